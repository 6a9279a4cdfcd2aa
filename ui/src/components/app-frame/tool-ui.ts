// Which tools have an MCP Apps view (`_meta.ui.resourceUri`, either form) and who may call them
// (`_meta.ui.visibility`), read with the ext-apps helpers; results in the SDK's wire shape; and the
// way back from a chat tool name (`server__tool`) to the server's tool.
import type { CallToolResult as SdkCallToolResult } from "@modelcontextprotocol/client";
import { getToolUiResourceUri, isToolVisibilityAppOnly } from "@modelcontextprotocol/ext-apps/app-bridge";
import type { CallToolResult, Tool } from "../../mcp";

/** The tool's `ui://` resource, or null. A malformed declaration counts as none. */
export function toolUiUri(tool: Tool): string | null {
  try {
    const uri = getToolUiResourceUri(tool as Parameters<typeof getToolUiResourceUri>[0]);
    return typeof uri === "string" && uri.startsWith("ui://") ? uri : null;
  } catch {
    return null;
  }
}

/** Only the tool's own view is meant to call it (the model is not offered it). */
export function isAppOnly(tool: Tool): boolean {
  try {
    return isToolVisibilityAppOnly(tool as Parameters<typeof isToolVisibilityAppOnly>[0]);
  } catch {
    return false;
  }
}

/** A result as the bridge sends it: `content` is required on the wire. */
export function sdkResult(result: CallToolResult): SdkCallToolResult {
  return { ...result, content: result.content ?? [] } as SdkCallToolResult;
}

// As the core names tools for the model (chat/tools.rs `ToolNames`): characters outside
// [A-Za-z0-9_-] become `_`, a name not starting with a letter or `_` gets one, at most 64 long.
const MAX_TOOL_NAME = 64;
function sanitize(s: string): string {
  return s.replace(/[^A-Za-z0-9_-]/g, "_");
}
export function exposedToolName(server: string, tool: string): string {
  let base = `${sanitize(server)}__${sanitize(tool)}`;
  if (!/^[A-Za-z_]/.test(base)) base = `_${base}`;
  return Array.from(base).slice(0, MAX_TOOL_NAME).join("");
}

/**
 * The server's tool behind a name the model called, when exactly one running tool has that name.
 * Names the core had to number (`_2`) because two met are ambiguous here and stay unresolved.
 */
export function resolveExposed<T extends { server: string; tool: Tool }>(tools: T[], name: string): T | null {
  const found = tools.filter((t) => exposedToolName(t.server, t.tool.name) === name);
  return found.length === 1 ? found[0]! : null;
}
