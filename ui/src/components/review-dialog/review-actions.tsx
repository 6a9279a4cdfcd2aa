// What every review kind's footer shares: whether Approve is armed yet, the Reject/Approve buttons,
// the "from now on" rule picker, and elicitation's Cancel.
import { createContext, useContext } from "react";
import type { Review } from "../../bindings/Review";
import type { Rule } from "../../bindings/Rule";
import type { Verdict } from "../../bindings/Verdict";
import { Choice } from "../choice";

/** Whether the dialog's Approve may be pressed yet. */
export const Armed = createContext(true);

/** What the dialog hands each review kind's component. */
export interface EditorProps {
  review: Review;
  busy: boolean;
  decide: (v: Verdict) => void;
}

export function RememberPicker(props: { value: Rule | null; onChange: (r: Rule | null) => void }) {
  return (
    <label className="inline">
      <span className="muted">From now on:</span>
      <Choice
        data-testid="review-remember"
        value={props.value ?? "ask"}
        onChoose={(picked) => {
          const v = picked as Rule;
          props.onChange(v === "ask" ? null : v);
        }}
      >
        <option value="ask">ask every time</option>
        <option value="allow_session">allow until I quit</option>
        <option value="always_allow">always allow</option>
        <option value="deny">always deny</option>
      </Choice>
    </label>
  );
}

export function Actions(props: {
  busy: boolean;
  invalid: string | null;
  approveLabel: string;
  onApprove: () => void;
  onDeny: () => void;
  denyLabel?: string;
  extra?: React.ReactNode;
}) {
  const armed = useContext(Armed);
  return (
    <footer className="actions">
      {props.invalid ? <span className="warn-text">{props.invalid}</span> : null}
      {props.extra}
      <button data-testid="review-deny" className="danger" disabled={props.busy} onClick={props.onDeny}>
        {props.denyLabel ?? "Reject"}
      </button>
      <button
        data-testid="review-approve"
        className="primary"
        disabled={props.busy || !armed || props.invalid !== null}
        onClick={props.onApprove}
      >
        {props.approveLabel}
      </button>
    </footer>
  );
}

/** Elicitation's third answer beside Send/Done and Decline: dismiss without choosing. */
export function CancelButton(props: { busy: boolean; decide: (v: Verdict) => void }) {
  return (
    <button data-testid="review-cancel" disabled={props.busy} onClick={() => props.decide({ decision: "cancel" })}>
      Cancel
    </button>
  );
}
