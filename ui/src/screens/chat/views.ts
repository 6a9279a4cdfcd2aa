// What a tool's view (MCP Apps) gives the chat: a message that waits for the person to send it,
// and context that goes with the person's next message; both as chat content blocks.
import type { AppView } from "../../bindings/AppView";
import type { AppContextParams, AppMessageParams, ContentBlock, Tool } from "../../mcp";
import type { Json } from "./calls";

/** A `ui/message` a view asked to send: it waits for the person. */
export interface ViewMessage {
  key: number;
  label: string;
  message: AppMessageParams;
}

/** The latest `ui/update-model-context` of a view: it goes with the person's next message. */
export interface ViewContext {
  viewId: string;
  label: string;
  context: AppContextParams;
}

export function viewLabel(view: AppView, tool: Tool): string {
  return `${tool.title ?? tool.name} (${view.server})`;
}

/** A view's message or context as chat content blocks (the model reads what the person saw). */
export function viewBlocks(label: string, content: ContentBlock[] | undefined, structured?: Record<string, unknown>): Json[] {
  const out: Json[] = [];
  for (const b of content ?? []) {
    // A text goes as its words alone: nothing a view adds to it can mark it as something else
    // (a skill's, blocks.ts).
    if (b.type === "text") out.push({ type: "text", text: b.text });
    else if (b.type === "image") out.push(b as unknown as Json);
    else out.push({ type: "text", text: `From ${label}: ${JSON.stringify(b)}` });
  }
  if (structured !== undefined) out.push({ type: "text", text: `From ${label}: ${JSON.stringify(structured)}` });
  return out;
}

export function contextBlocks(contexts: ViewContext[]): Json[] {
  return contexts.flatMap((c) => [
    { type: "text", text: `Context from the view ${c.label}:` },
    ...viewBlocks(c.label, c.context.content, c.context.structuredContent),
  ]);
}
