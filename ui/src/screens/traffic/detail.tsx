// The Traffic screen's detail pane: one message's facts, its HTTP headers, the request or answer
// it pairs with (and a way there), and its body, asked for when the message is chosen — as a
// JSON tree, or as raw text with a notice when only its head was kept — with a Copy.
import { useEffect, useMemo, useState } from "react";
import type { Backend } from "../../backend";
import { errorMessage } from "../../backend";
import type { TrafficEntry } from "../../bindings/TrafficEntry";
import type { TrafficMessage } from "../../bindings/TrafficMessage";
import { ErrorBanner } from "../../components/error-banner";
import { reveal } from "../../components/visible";
import { JsonTree } from "./json-tree";
import { clockTime, directionText, humanSize, methodText } from "./model";

const bytes = (s: string) => new TextEncoder().encode(s).length;

/** The body as asked for: undefined while it loads, null when the ring no longer holds it. */
type Body = TrafficMessage | null | undefined;

function useBody(backend: Backend, seq: number, session: number | null): { body: Body; error: string | null } {
  const [body, setBody] = useState<Body>(undefined);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    backend.trafficMessages([seq], session).then(
      (found) => live && setBody(found.find((m) => m.seq === seq) ?? null),
      (e: unknown) => live && setError(errorMessage(e)),
    );
    return () => {
      live = false;
    };
  }, [backend, seq, session]);
  return { body, error };
}

/** Mount with `key={entry.seq}`: each message starts afresh. */
export function TrafficDetail(props: {
  backend: Backend;
  entry: TrafficEntry;
  /** Whether the paired message is in the list (so it can be shown). */
  pairShown: boolean;
  onJump: (seq: number) => void;
  /** The kept session the message is in (null: the live rings). */
  session?: number | null;
}) {
  const { entry } = props;
  const { body, error } = useBody(props.backend, entry.seq, props.session ?? null);
  return (
    <section className="traffic-detail" data-testid="traffic-detail" data-seq={entry.seq} aria-label={`Message ${entry.seq}`}>
      <Facts entry={entry} />
      <Pair entry={entry} shown={props.pairShown} onJump={props.onJump} />
      <Headers entry={entry} />
      <ErrorBanner error={error} testId="traffic-body-error" />
      {body === undefined && !error ? <p className="muted">Loading the message…</p> : null}
      {body === null ? (
        <p className="muted" data-testid="traffic-gone">
          This message is no longer kept: its server's ring has let it go.
        </p>
      ) : null}
      {body ? <BodyView message={body} /> : null}
    </section>
  );
}

function Facts(props: { entry: TrafficEntry }) {
  const { entry: e } = props;
  const way = directionText(e.direction);
  return (
    <>
      <h3>
        #{e.seq} {way.arrow} {e.server}: {e.kind} {reveal(methodText(e))}
      </h3>
      <dl className="facts">
        <dt>When</dt>
        <dd>
          {new Date(e.atMs).toLocaleDateString()} {clockTime(e.atMs)}
        </dd>
        <dt>Direction</dt>
        <dd>
          {way.words[0]!.toUpperCase()}
          {way.words.slice(1)} {e.server}
        </dd>
        {e.id === null ? null : (
          <>
            <dt>Id</dt>
            <dd className="mono">{reveal(e.id)}</dd>
          </>
        )}
        <dt>Size</dt>
        <dd>
          {humanSize(e.size)} ({e.size.toLocaleString("en-US")} bytes){e.truncated ? ", cut short when kept" : ""}
        </dd>
        {e.failed ? (
          <>
            <dt>Outcome</dt>
            <dd className="warn-text">Failed</dd>
          </>
        ) : null}
        {e.http?.error ? (
          <>
            <dt>HTTP error</dt>
            <dd className="warn-text">{reveal(e.http.error)}</dd>
          </>
        ) : null}
      </dl>
    </>
  );
}

/** "Answered by #12 in 40 ms" or "Answers #11", and a way to the other one. */
function Pair(props: { entry: TrafficEntry; shown: boolean; onJump: (seq: number) => void }) {
  const { entry: e } = props;
  if (e.pairedSeq === null) {
    return e.kind === "request" ? <p className="muted" data-testid="traffic-pair">Not answered yet.</p> : null;
  }
  const p = e.pairedSeq;
  const ms = e.latencyMs === null ? "" : `${e.latencyMs < 10 ? e.latencyMs.toFixed(2) : Math.round(e.latencyMs)} ms`;
  const text = p > e.seq ? `Answered by #${p}${ms ? ` in ${ms}` : ""}` : `Answers #${p}${ms ? ` (after ${ms})` : ""}`;
  return (
    <p className="actions" data-testid="traffic-pair">
      <span>{text}</span>
      <button className="small" data-testid="traffic-jump" disabled={!props.shown} onClick={() => props.onJump(p)}>
        Show #{p}
      </button>
      {props.shown ? null : <span className="muted">(not in the list: a filter or Clear view hides it, or it was let go)</span>}
    </p>
  );
}

function Headers(props: { entry: TrafficEntry }) {
  const http = props.entry.http;
  if (!http) return null;
  return (
    <div className="traffic-http">
      <p>
        HTTP <strong>{http.verb}</strong>
        {http.status === null ? "" : ` ${http.status}`}
      </p>
      {http.headers.length ? (
        <table className="table" data-testid="traffic-headers" aria-label="HTTP headers">
          <tbody>
            {http.headers.map((h, i) => (
              <tr key={i}>
                <th scope="row" className="mono">
                  {reveal(h.name)}
                </th>
                <td className="mono">{reveal(h.value)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}

function parse(text: string): { value: unknown } | null {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return null;
  }
}

function BodyView(props: { message: TrafficMessage }) {
  const { body, truncated, size } = props.message;
  const parsed = useMemo(() => (body ? parse(body) : null), [body]);
  return (
    <div className="traffic-body-view">
      <div className="actions">
        <h4>Body</h4>
        <CopyButton text={body} />
      </div>
      {truncated ? (
        <p className="banner warn" data-testid="traffic-truncated">
          Only the first {humanSize(bytes(body))} of this {humanSize(size)} message is kept.
        </p>
      ) : null}
      {!body ? <p className="muted">No body.</p> : null}
      {body && parsed ? <JsonTree value={parsed.value} /> : null}
      {body && !parsed ? (
        <pre className="text-block" data-testid="traffic-raw">
          {reveal(body)}
        </pre>
      ) : null}
    </div>
  );
}

function CopyButton(props: { text: string }) {
  const [said, setSaid] = useState<{ ok: boolean; text: string } | null>(null);
  const copy = async () => {
    try {
      if (!navigator.clipboard) throw new Error("this window has no clipboard access");
      await navigator.clipboard.writeText(props.text);
      setSaid({ ok: true, text: "Copied." });
    } catch (e) {
      setSaid({ ok: false, text: `The body could not be copied: ${errorMessage(e).replace(/\.$/, "")}.` });
    }
  };
  return (
    <>
      <button className="small" data-testid="traffic-copy" disabled={!props.text} onClick={() => void copy()}>
        Copy
      </button>
      <span className={said?.ok === false ? "warn-text" : "muted"} role="status" data-testid="traffic-copy-status">
        {said?.text ?? ""}
      </span>
    </>
  );
}
