// The server form's one-per-line text fields as lists.

/** The non-empty, trimmed lines of `text`. */
export function lines(text: string): string[] {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
}
