// The model's tool calls as the chat shows them: which call a task belongs to, what a call went
// out with (the person may have edited the arguments in the approval dialog), and its result as a
// tool's result.
import type { ChatMessage } from "../../bindings/ChatMessage";
import type { CallToolResult, ContentBlock, Tool } from "../../mcp";

export type Json = Record<string, unknown>;

/** A tool the model may call, with the server it belongs to. */
export interface ServerTool {
  server: string;
  tool: Tool;
}

/** The id of the call the chat makes for `toolUse` in `conversation` (as the core names it). */
export function chatCallId(conversation: string, toolUse: string): string {
  return `chat:${conversation}:${[...toolUse].slice(0, 128).join("")}`;
}

/** How the core's chat words a result whose arguments the person changed (chat/turn.rs). */
const CHANGED = "The user changed the arguments before the call to: ";

/** How the core's chat words the result of a call that did not go out (chat/turn.rs). */
const NOT_CALLED = "The tool was not called: ";

function firstText(result: Json): string {
  const first = Array.isArray(result.content) ? (result.content as Json[])[0] : undefined;
  return typeof first?.text === "string" ? first.text : "";
}

/** Where the core keeps the arguments a call went out with, edits included (chat/turn.rs
 * `SENT_ARGUMENTS`): written by the core alone, so a tool's own text cannot pass for an edit. */
const SENT = "sentArguments";

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The arguments a finished call went out with, read from its result; null when that result
 * does not show that it went out as the model wrote it or as edited (any error result). */
export function sentArguments(result: Json, input: Json): Json | null {
  if (Object.hasOwn(result, SENT)) return isObject(result[SENT]) ? result[SENT] : null;
  // A result kept before the core wrote the field: read from its words.
  const text = firstText(result);
  if (text.startsWith(CHANGED)) {
    try {
      const edited: unknown = JSON.parse(text.slice(CHANGED.length));
      return typeof edited === "object" && edited !== null && !Array.isArray(edited) ? (edited as Json) : null;
    } catch {
      return null;
    }
  }
  return result.isError ? null : input;
}

/** The arguments a finished call went out with, for the chat to show: unlike `sentArguments`,
 * an error the tool itself returned counts as a call made as the model wrote it. Null when the
 * call did not go out (refused, failed) or its edited arguments cannot be read. */
export function calledWith(result: Json, input: Json): Json | null {
  if (Object.hasOwn(result, SENT)) return sentArguments(result, input);
  const text = firstText(result);
  if (text.startsWith(CHANGED) || !result.isError) return sentArguments(result, input);
  return text.startsWith(NOT_CALLED) ? null : input;
}

/** Whether two JSON values are equal, whatever the order of their keys (as the core compares). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return a === b;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && sameJson((a as Json)[k], (b as Json)[k]));
}

/** A chat `tool_result` block as the tool's result (what the chat kept of it). */
export function chatResult(block: Json): CallToolResult {
  const content = Array.isArray(block.content) ? (block.content as ContentBlock[]) : [];
  const structured = block.structuredContent;
  return {
    content,
    isError: Boolean(block.isError),
    ...(typeof structured === "object" && structured !== null ? { structuredContent: structured as Record<string, unknown> } : {}),
  };
}

/** A `tool_use` block's input (an object, or none). */
export function inputOf(toolUse: Json): Json {
  return typeof toolUse.input === "object" && toolUse.input !== null && !Array.isArray(toolUse.input) ? (toolUse.input as Json) : {};
}

/** The results of the model's calls in `messages`, by call id. */
export function resultsById(messages: ChatMessage[]): Map<string, Json> {
  const byId = new Map<string, Json>();
  for (const m of messages)
    for (const b of Array.isArray(m.content) ? (m.content as Json[]) : [])
      if (b.type === "tool_result" && typeof b.toolUseId === "string") byId.set(b.toolUseId, b);
  return byId;
}

/** What a call went out with: as approved in this turn (`approved`, by tool_use id), else as its
 * result tells; null while it has not gone out, or when it did not. */
export function sentFor(toolUse: Json, approved: ReadonlyMap<string, Json>, results: ReadonlyMap<string, Json>): Json | null {
  if (typeof toolUse.id !== "string") return null;
  const result = results.get(toolUse.id);
  return approved.get(toolUse.id) ?? (result ? calledWith(result, inputOf(toolUse)) : null);
}
