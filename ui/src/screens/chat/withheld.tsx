// The tools the model is not offered and why, and their review. A turn reports the ones it held
// back; before the first message, and after the person approved some, the chat asks the core,
// which decides as a turn does (chat/tools.rs `accepted`; see `useChatSession`), so they can be
// reviewed before a turn starts: a turn with the manual provider opens the answer dialog at once,
// over the chat.
import type { Backend } from "../../backend";
import type { WithheldReason } from "../../bindings/WithheldReason";
import type { WithheldTool } from "../../bindings/WithheldTool";
import { PinsPanel } from "../../components/pins-panel";
import { Revealed } from "../../components/revealed";
import type { HostState } from "../../host";

/** Why a tool is held back. */
export type Reason = WithheldReason;

/** A tool held back, and why. */
export type Held = WithheldTool;

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

/** Whether approving a definition can get the model offered `t` (not so a name hiding
 * characters, nor a tool a rule denies). */
export function pinsCanOffer(t: Held): boolean {
  return t.reason !== "hidden_characters" && t.reason !== "denied";
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
                <Revealed text={t.server} /> · <Revealed text={t.tool} />
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

/** The tools held back, or that none are while the review is open; the review is the pins panel
 * of the first server whose approval can get its tools offered. */
export function WithheldReview(props: {
  backend: Backend;
  host: HostState;
  state: WithheldState;
  reviewing: boolean;
  onToggle: () => void;
  onClose: () => void;
  onApproved: () => void;
}) {
  const held = props.state.tools;
  return (
    <>
      {held.length ? (
        <Withheld state={props.state} reviewing={props.reviewing} onReview={props.onToggle} />
      ) : props.reviewing ? (
        <AllOffered onClose={props.onClose} />
      ) : null}
      {props.reviewing ? (
        <div className="chat-pins" data-testid="chat-pins">
          <PinsPanel
            backend={props.backend}
            host={props.host}
            server={held.find(pinsCanOffer)?.server ?? null}
            onApproved={props.onApproved}
          />
          <p className="muted small">Tools you approve here are offered from your next message on.</p>
        </div>
      ) : null}
    </>
  );
}
