// The tools the model is not offered and why. A turn reports the ones it held back; before the
// first message, and after the person approved some, the chat works them out from the pins the
// way the core decides (chat/tools.rs `accepted`), so they can be reviewed before a turn starts:
// a turn with the manual provider opens the answer dialog at once, over the chat.
import { useCallback, useEffect, useRef, useState } from "react";
import type { Backend } from "../../backend";
import type { PinItem } from "../../bindings/PinItem";
import type { PolicyEntry } from "../../bindings/PolicyEntry";
import type { WithheldReason } from "../../bindings/WithheldReason";
import { isAppOnly } from "../../components/app-frame/tool-ui";
import { hasHidden, reveal } from "../../components/visible";
import type { Tool } from "../../mcp";

/** Why a tool is held back. A deny rule holds a tool back too ("denied", new in the core). */
export type Reason = WithheldReason | "denied";

/** A tool held back, and why (the core's `WithheldTool`). */
export interface Held {
  server: string;
  tool: string;
  reason: Reason;
}

const WITHHELD: Record<Reason, string> = {
  not_approved: "not approved yet",
  changed: "changed since you approved it",
  instructions_not_approved: "its server's instructions are not approved yet",
  instructions_changed: "its server's instructions changed since you approved them",
  hidden_characters: "hidden characters in its name or its arguments' names (never offered)",
  denied: "a rule you set denies it",
};

/** What the chat says of the tools held back: `turn` when a turn reported them as they are. */
export interface WithheldState {
  tools: Held[];
  turn: boolean;
}

/** A tool the model may be held back from; `reason` null while its pins are still to be read. */
export type Candidate = Omit<Held, "reason"> & { reason: Reason | null };

/** Characters the core strips for the model (visible.rs `is_stripped`): a name with one is never offered. */
function stripped(s: string): boolean {
  return hasHidden(s) || /[\uFE00-\uFE0F]/u.test(s);
}

function keysHaveHidden(v: unknown): boolean {
  if (Array.isArray(v)) return v.some(keysHaveHidden);
  if (typeof v !== "object" || v === null) return false;
  return Object.entries(v).some(([k, x]) => stripped(k) || keysHaveHidden(x));
}

/** The tools of the running servers the model could be offered. */
export function modelTools(tools: { server: string; tool: Tool }[]): Candidate[] {
  return tools
    .filter((t) => !isAppOnly(t.tool))
    .map((t) => ({
      server: t.server,
      tool: t.tool.name,
      reason: stripped(t.tool.name) || keysHaveHidden(t.tool.inputSchema) ? "hidden_characters" : null,
    }));
}

/** Why the core would hold `tool` back given its server's pins; null when it would offer it (or
 * the server no longer has it). */
export function withheldReason(items: PinItem[], tool: string): WithheldReason | null {
  const item = items.find((i) => i.item === `tool:${tool}`);
  if (!item) return null;
  const instructions = items.find((i) => i.item === "instructions")?.state ?? "pinned";
  if (item.state === "changed") return "changed";
  if (instructions === "changed") return "instructions_changed";
  if (item.state === "new") return "not_approved";
  if (instructions === "new") return "instructions_not_approved";
  return null;
}

/** Whether approving a definition can get the model offered `t` (not so a name hiding
 * characters, nor a tool a rule denies). */
export function pinsCanOffer(t: Held): boolean {
  return t.reason !== "hidden_characters" && t.reason !== "denied";
}

/** Whether a deny rule covers the model's calls of `tool` (the tool's own rule, else its server's). */
function deniedBy(policies: PolicyEntry[], server: string, tool: string): boolean {
  const rule = (scope: string | null) =>
    policies.find((p) => p.server === server && p.kind === "tool_call" && p.tool === scope)?.rule;
  return (rule(tool) ?? rule(null)) === "deny";
}

/** Why `c` is held back now, by the rules, then its server's pins (the core's order). Pins or
 * rules that could not be read (null) leave its reason as it was, or drop one the rules no
 * longer give. */
function reasonNow(c: Candidate, items: PinItem[] | null, policies: PolicyEntry[] | null): Reason | null {
  if (policies ? deniedBy(policies, c.server, c.tool) : c.reason === "denied") return "denied";
  if (c.reason === "hidden_characters") return c.reason;
  if (items) return withheldReason(items, c.tool);
  return c.reason === "denied" ? null : c.reason;
}

/** Those of `candidates` still held back, by their servers' pins and the rules now. */
export async function stillWithheld(backend: Backend, candidates: Candidate[]): Promise<Held[]> {
  const servers = [...new Set(candidates.map((c) => c.server))];
  const [read, policies] = await Promise.all([
    Promise.all(servers.map(async (s) => [s, await backend.reviewPins(s).catch(() => null)] as const)),
    candidates.length ? backend.listPolicies().catch(() => null) : null,
  ]);
  const pins = new Map(read);
  return candidates.flatMap((c) => {
    const reason = reasonNow(c, pins.get(c.server) ?? null, policies);
    return reason ? [{ server: c.server, tool: c.tool, reason }] : [];
  });
}

/** The tools held back, and why; "Review them" opens the pins panel. */
export function Withheld(props: { state: WithheldState; reviewing: boolean; onReview: () => void }) {
  const { tools, turn } = props.state;
  const n = tools.length;
  const count = `${n} ${n === 1 ? "tool" : "tools"}`;
  return (
    <div className="banner warn withheld" data-testid="chat-withheld" data-count={n}>
      <details>
        <summary>
          {turn ? `The model was not offered ${count}` : `The model will not be offered ${count}`}: it sees only tools you
          approved as they are.
        </summary>
        <ul>
          {tools.map((t) => (
            <li
              key={`${t.server}\u0000${t.tool}`}
              data-testid="chat-withheld-tool"
              data-server={t.server}
              data-tool={t.tool}
              data-reason={t.reason}
            >
              <code>
                {reveal(t.server)} · {reveal(t.tool)}
              </code>
              : {WITHHELD[t.reason]}
            </li>
          ))}
        </ul>
      </details>
      <button className="small" data-testid="chat-review-tools" onClick={props.onReview}>
        {props.reviewing ? "Close the review" : "Review them"}
      </button>
    </div>
  );
}

/** In place of the list once nothing is held back, while the review is still open. */
export function AllOffered(props: { onClose: () => void }) {
  return (
    <div className="banner ok withheld" data-testid="chat-all-offered">
      <span>Nothing is held back now: the model is offered the running servers' tools from your next message on.</span>
      <button className="small" data-testid="chat-review-tools" onClick={props.onClose}>
        Close the review
      </button>
    </div>
  );
}

const NONE: WithheldState = { tools: [], turn: false };

/** The tools held back in `current`: worked out from the pins when the conversation opens and
 * when the servers' tools change, as a turn reports them, and re-checked after an approval. */
export function useWithheld(backend: Backend, current: string | null, tools: { server: string; tool: Tool }[]) {
  const [state, setState] = useState<WithheldState>(NONE);
  // Bumped by whatever sets the list, so a check that was overtaken does not overwrite it.
  const generation = useRef(0);
  const check = useCallback(
    (candidates: Candidate[]) => {
      const mine = ++generation.current;
      void stillWithheld(backend, candidates).then((list) => {
        if (generation.current === mine) setState({ tools: list, turn: false });
      });
    },
    [backend],
  );
  useEffect(() => {
    generation.current++;
    setState(NONE);
  }, [current]);
  useEffect(() => {
    if (current) check(modelTools(tools));
  }, [current, tools, check]);
  const reported = useCallback((list: Held[]) => {
    generation.current++;
    setState({ tools: list, turn: true });
  }, []);
  return { state, reported, recheck: () => check(state.tools) };
}
