// How much each server's traffic ring keeps, a form the Traffic screen opens on request: messages,
// megabytes, and kilobytes kept of each message. The core checks the bounds and says what is
// wrong in a sentence, shown as it is.
import { useEffect, useState } from "react";
import type { Backend } from "../../backend";
import { errorMessage } from "../../backend";
import type { TrafficLimits } from "../../bindings/TrafficLimits";
import { ErrorBanner } from "../../components/error-banner";

const KB = 1024;
const MB = 1024 * 1024;

/** The form's fields, as typed. */
interface Fields {
  messages: string;
  mb: string;
  kb: string;
}

const shown = (n: number) => String(Number(n.toFixed(2)));

function fieldsOf(l: TrafficLimits): Fields {
  return { messages: String(l.maxMessages), mb: shown(l.maxBytes / MB), kb: shown(l.maxMessageBytes / KB) };
}

/** The limits the fields say, or why they say none. */
function limitsOf(f: Fields): TrafficLimits | string {
  const [messages, mb, kb] = [f.messages, f.mb, f.kb].map((v) => (v.trim() ? Number(v) : NaN));
  if (![messages, mb, kb].every((n) => Number.isFinite(n))) return "Give each limit as a number.";
  return { maxMessages: Math.round(messages!), maxBytes: Math.round(mb! * MB), maxMessageBytes: Math.round(kb! * KB) };
}

/** Opened by the screen's Limits button (`aria-controls="traffic-limits"`). */
export function TrafficLimitsForm(props: { backend: Backend }) {
  const { backend } = props;
  const [fields, setFields] = useState<Fields | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    let live = true;
    backend.trafficLimits().then(
      (l) => live && setFields(fieldsOf(l)),
      (e: unknown) => live && setError(errorMessage(e)),
    );
    return () => {
      live = false;
    };
  }, [backend]);
  const edit = (change: Partial<Fields>) => {
    setFields((f) => (f ? { ...f, ...change } : f));
    setSaved(false);
  };
  const save = async () => {
    const limits = fields ? limitsOf(fields) : "The limits have not been read yet.";
    setSaved(false);
    if (typeof limits === "string") return setError(limits);
    try {
      await backend.setTrafficLimits(limits);
      setError(null);
      setSaved(true);
    } catch (e) {
      setError(errorMessage(e));
    }
  };
  return (
    <form
      id="traffic-limits"
      className="context-form traffic-limits-form"
      data-testid="traffic-limits"
      aria-label="Traffic limits"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <p className="muted hint">Each server keeps its latest messages within these bounds, whichever comes first.</p>
      <NumberField testId="traffic-max-messages" label="Messages per server" value={fields?.messages} onChange={(messages) => edit({ messages })} />
      <NumberField testId="traffic-max-mb" label="MB per server" value={fields?.mb} onChange={(mb) => edit({ mb })} />
      <NumberField testId="traffic-max-message-kb" label="KB kept of each message" value={fields?.kb} onChange={(kb) => edit({ kb })} />
      <ErrorBanner error={error} testId="traffic-limits-error" role="alert" />
      <div className="actions">
        <button type="submit" className="primary" data-testid="traffic-limits-save" disabled={!fields}>
          Save
        </button>
        {saved ? (
          <span className="muted" role="status" data-testid="traffic-limits-saved">
            Saved
          </span>
        ) : null}
      </div>
    </form>
  );
}

function NumberField(props: { testId: string; label: string; value: string | undefined; onChange: (value: string) => void }) {
  return (
    <label>
      {props.label}
      <input
        type="number"
        min={0}
        step="any"
        data-testid={props.testId}
        value={props.value ?? ""}
        disabled={props.value === undefined}
        onChange={(e) => props.onChange(e.currentTarget.value)}
      />
    </label>
  );
}
