// What the fake backend answers `withheldTools`: the core's rule (chat/tools.rs `accepted`) over
// the fake's tools, pins and rules, so the chat's tests see what the core would hold back.
import type { PinItem } from "../bindings/PinItem";
import type { PolicyEntry } from "../bindings/PolicyEntry";
import type { WithheldReason } from "../bindings/WithheldReason";
import type { WithheldTool } from "../bindings/WithheldTool";
import { isAppOnly } from "../components/app-frame/tool-ui";
import { hasHidden } from "../components/visible";
import type { Tool } from "../mcp";

/** Characters the core strips for the model (visible.rs `is_stripped`). */
function stripped(s: string): boolean {
  return hasHidden(s) || /[\uFE00-\uFE0F]/u.test(s);
}

function keysHaveHidden(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(keysHaveHidden);
  if (typeof v !== "object" || v === null) return false;
  return Object.entries(v).some(([k, x]) => stripped(k) || keysHaveHidden(x));
}

/** Whether a deny rule covers the model's calls of `tool` (the tool's own rule, else its server's). */
function denied(policies: PolicyEntry[], server: string, tool: string): boolean {
  const rule = (scope: string | null) =>
    policies.find((p) => p.server === server && p.kind === "tool_call" && p.tool === scope)?.rule;
  return (rule(tool) ?? rule(null)) === "deny";
}

/** Why `tool` is held back by its server's pins; null when it is offered (or has no pin item). */
function byPins(items: PinItem[], tool: string): WithheldReason | null {
  const item = items.find((i) => i.item === `tool:${tool}`);
  if (!item) return null;
  const instructions = items.find((i) => i.item === "instructions")?.state ?? "pinned";
  if (item.state === "changed") return "changed";
  if (instructions === "changed") return "instructions_changed";
  if (item.state === "new") return "not_approved";
  if (instructions === "new") return "instructions_not_approved";
  return null;
}

/** The tools of `server` held back from the model, in the core's order of reasons. */
export function withheldOf(server: string, tools: Tool[], pins: PinItem[], policies: PolicyEntry[]): WithheldTool[] {
  return tools
    .filter((t) => !isAppOnly(t))
    .flatMap((t) => {
      const hidden = stripped(t.name) || keysHaveHidden(t.inputSchema);
      const reason = denied(policies, server, t.name) ? "denied" : hidden ? "hidden_characters" : byPins(pins, t.name);
      return reason ? [{ server, tool: t.name, reason }] : [];
    });
}
