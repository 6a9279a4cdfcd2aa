// What the tool definitions may take of the chat model's context window: above how many tools the
// model is given a `search_tools` meta-tool instead of every definition, and above what share of
// its context window the chat's meter warns. Both are kept in the config file (a field left empty:
// the default); saved, the meter is read again so the values shown are the core's. Beside the
// server's tokens, whether the model searches now: the tools a chat turn would offer (as the core
// counts them) against the limit.
import type { ChangeEvent } from "react";
import { useState } from "react";
import type { Backend } from "../../backend";
import { errorMessage } from "../../backend";
import type { ContextLimits } from "../../bindings/ContextLimits";
import type { TokenMeter } from "../../bindings/TokenMeter";
import { ErrorBanner } from "../../components/error-banner";

const tools = (n: number) => `${n} ${n === 1 ? "tool" : "tools"}`;

/** "The model searches for tools (52 offered > 40)." or "The model is offered all 12 tools (…)",
 *  and the tools switched on that a turn holds back: "The model is offered 2 tools (…). 5
 *  wait for your approval in a chat." */
export function SearchState(props: { meter: TokenMeter | null }) {
  const { meter } = props;
  if (!meter) return null;
  const offered = meter.offeredTools;
  const searching = offered > meter.searchAbove;
  return (
    <p
      className="hint muted"
      data-testid="context-search-state"
      data-searching={searching}
      title="Above this many tools, the chat's model is given a search_tools tool that finds them instead of every definition (the Tools screen's Context sets the number). A chat limited to tool sets is offered only their tools."
    >
      {searching
        ? `The model searches for tools (${offered} offered > ${meter.searchAbove}).`
        : `The model is offered ${heldBack(meter) ? "" : "all "}${tools(offered)} (it searches for them above ${meter.searchAbove}).`}
      {heldBack(meter) ? ` ${held(meter)}` : null}
    </p>
  );
}

const heldBack = (meter: TokenMeter) => meter.toReview + meter.refusedTools > 0;

/** "3 wait for your approval in a chat; 1 is refused (a deny rule, or hidden characters)." */
function held(meter: TokenMeter): string {
  const parts = [];
  if (meter.toReview)
    parts.push(`${meter.toReview} ${meter.toReview === 1 ? "waits" : "wait"} for your approval in a chat`);
  if (meter.refusedTools)
    parts.push(`${meter.refusedTools} ${meter.refusedTools === 1 ? "is" : "are"} refused (a deny rule, or hidden characters)`);
  const text = parts.join("; ");
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/** What a number field holds: its text, and whether the browser found it no number at all. */
interface Field {
  text: string;
  bad: boolean;
}

/** The field's whole number; null when empty (the default); undefined when it is none. */
function wholeNumber(field: Field): number | null | undefined {
  const text = field.text.trim();
  if (field.bad) return undefined;
  if (text === "") return null;
  const n = Number(text);
  return /^\d+$/.test(text) && Number.isSafeInteger(n) ? n : undefined;
}

/** The limits as typed, or the sentence that says what is wrong with them. The percent's range
 *  is the core's to check, but a number no percent field can carry is refused here with its words. */
function limitsOf(searchAbove: Field, warnPercent: Field): ContextLimits | string {
  const above = wholeNumber(searchAbove);
  if (above === undefined) return "The number of tools above which the model searches must be a whole number (0 or more).";
  const percent = wholeNumber(warnPercent);
  if (percent === undefined || (percent !== null && percent > 255))
    return "The warning share must be a percentage from 1 to 100.";
  return { toolSearchAbove: above, toolTokensWarnPercent: percent };
}

export function ContextPanel(props: {
  backend: Backend;
  meter: TokenMeter | null;
  /** Saved: the meter is to be read again. */
  onSaved: () => void;
  onClose: () => void;
}) {
  const { meter } = props;
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(0);
  const save = (searchAbove: Field, warnPercent: Field) => {
    const limits = limitsOf(searchAbove, warnPercent);
    if (typeof limits === "string") {
      setError(limits);
      return;
    }
    props.backend.setContextLimits(limits).then(
      () => {
        setError(null);
        setSaved((n) => n + 1);
        props.onSaved();
      },
      (e: unknown) => setError(errorMessage(e)),
    );
  };
  return (
    <div className="detail context-limits" data-testid="context-limits">
      <header className="pane-header">
        <h2>Context</h2>
        <div className="actions">
          <button data-testid="context-close" onClick={props.onClose}>
            Close
          </button>
        </div>
      </header>
      <p className="muted">
        What the tool definitions may take of the chat's model's context window. A field left empty goes back to its
        default (40 tools, 10%).
      </p>
      <SearchState meter={meter} />
      <ErrorBanner error={error} testId="context-error" role="alert" />
      {meter ? (
        // Read again after a save, the form starts from the values the core now has.
        <LimitsForm key={`${meter.searchAbove}/${meter.warnPercent}`} meter={meter} onSave={save} />
      ) : (
        <p className="muted">Reading the current limits…</p>
      )}
      {saved && !error ? (
        <p className="hint muted" data-testid="context-saved">
          Saved: chats use these limits from their next turn.
        </p>
      ) : null}
    </div>
  );
}

function LimitsForm(props: { meter: TokenMeter; onSave: (searchAbove: Field, warnPercent: Field) => void }) {
  const [searchAbove, setSearchAbove] = useState<Field>({ text: String(props.meter.searchAbove), bad: false });
  const [warnPercent, setWarnPercent] = useState<Field>({ text: String(props.meter.warnPercent), bad: false });
  return (
    <form
      className="context-form"
      data-testid="context-form"
      // The fields' bounds are the core's to check: its sentence is shown, not the browser's bubble.
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        props.onSave(searchAbove, warnPercent);
      }}
    >
      <NumberField
        lead="Let the model search for tools above"
        tail="tools"
        min={0}
        placeholder="40"
        testId="context-search-above"
        field={searchAbove}
        onChange={setSearchAbove}
      />
      <NumberField
        lead="Warn when tool definitions take more than"
        tail="% of the model's context window"
        min={1}
        max={100}
        placeholder="10"
        testId="context-warn-percent"
        field={warnPercent}
        onChange={setWarnPercent}
      />
      <div className="actions">
        <button type="submit" className="primary" data-testid="context-save">
          Save
        </button>
      </div>
    </form>
  );
}

/** A whole number between `lead` and `tail`; what the browser could not read as a number is marked bad. */
function NumberField(props: {
  lead: string;
  tail: string;
  min: number;
  max?: number;
  placeholder: string;
  testId: string;
  field: Field;
  onChange: (f: Field) => void;
}) {
  const change = (e: ChangeEvent<HTMLInputElement>) =>
    props.onChange({ text: e.currentTarget.value, bad: e.currentTarget.validity?.badInput ?? false });
  return (
    <label>
      {props.lead}
      <input
        type="number"
        min={props.min}
        max={props.max}
        step={1}
        placeholder={props.placeholder}
        data-testid={props.testId}
        value={props.field.text}
        onChange={change}
      />
      {props.tail}
    </label>
  );
}
