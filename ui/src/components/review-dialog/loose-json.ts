// Reads the loosely typed JSON a review carries: objects, strings and a sampling message's content
// blocks, each falling back to empty when the shape is not what it should be.
export type Json = Record<string, unknown>;

export function obj(v: unknown): Json {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : {};
}

export function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** The content blocks of a sampling message: a single block or a list. */
export function blocksOf(content: unknown): Json[] {
  return (Array.isArray(content) ? content : [content]).map(obj);
}
