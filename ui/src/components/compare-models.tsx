// One sampling request on several models side by side: tick up to three of the person's models,
// run, and each model's answer streams into a column of its own, then shows with its latency and
// tokens (cost is not known for any provider), where it was cut off, or why it failed. Used by the
// sampling request dialog (where a column's answer, edited or not, can go back to the server) and
// by the audit log's replay of a past request (where nothing goes back).
// What the models say is the model's (and, through the request, the server's) text: it is shown
// as text only, hidden characters revealed.
import { useEffect, useRef, useState } from "react";
import type { Backend } from "../backend";
import { errorMessage } from "../backend";
import type { ComparedAnswer } from "../bindings/ComparedAnswer";
import type { ModelChoice } from "../bindings/ModelChoice";
import { ErrorBanner } from "./error-banner";
import { isAllowed, splitChoice, useModelChoices } from "./model-choices";
import type { Json } from "./review-dialog/loose-json";
import { obj, str } from "./review-dialog/loose-json";
import { Media } from "./review-dialog/review-fields";
import { Revealed, RevealedCopy } from "./revealed";
import { reveal } from "./visible";

/** At most this many models in one comparison (the core's `MAX_COMPARED`). */
export const MAX_COMPARED = 3;

/**
 * The `provider/model` choices a comparison may use: the person's models the server may be
 * sampled on (`allowed`), without the manual provider (nobody types three answers at once).
 */
export function comparableChoices(choices: readonly string[], allowed: readonly string[]): string[] {
  return choices.filter((c) => {
    const [provider, model] = splitChoice(c);
    return provider !== "manual" && provider !== "" && isAllowed(allowed, provider, model);
  });
}

/** A latency as people read it: "1.2 s". */
export function seconds(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "";
  return ms < 100 ? "< 0.1 s" : `${(ms / 1000).toFixed(1)} s`;
}

/** What an answer cost, from the prices set for its model on the Models screen. */
export function costText(usd: number | null): string {
  if (usd === null) return "cost unknown (no price set for this model)";
  if (usd === 0) return "free";
  return usd < 0.01 ? `$${usd.toPrecision(2)}` : `$${usd.toFixed(2)}`;
}

/** Tokens in and out: "7 in · 3 out" (a count the provider did not give is "?"). */
export function tokensText(a: Pick<ComparedAnswer, "inputTokens" | "outputTokens">): string {
  if (a.inputTokens === null && a.outputTokens === null) return "tokens unknown";
  return `${a.inputTokens ?? "?"} in · ${a.outputTokens ?? "?"} out`;
}

/** The content blocks of an answer, none when it has none. */
function blocksOfAnswer(result: Json): Json[] {
  const content = result.content;
  if (content === undefined || content === null) return [];
  return (Array.isArray(content) ? content : [content]).map(obj);
}

/** Where the answer's editable text is: its first text block (-1: it has none). */
function textIndex(result: Json): number {
  return blocksOfAnswer(result).findIndex((b) => str(b.type) === "text");
}

/**
 * The answer as it goes back: `result` itself unless its text was edited, then with that text in
 * its first text block (a single text block stays a single block: `{type: "text", text}`).
 */
export function editedAnswer(result: Json, edited: string | undefined): Json {
  const at = textIndex(result);
  if (edited === undefined || at < 0) return result;
  if (!Array.isArray(result.content)) return { ...result, content: { ...obj(result.content), text: edited } };
  const content = (result.content as unknown[]).map((b, i) => (i === at ? { ...obj(b), text: edited } : b));
  return { ...result, content };
}

interface Run {
  /** Which run this is: answers of an earlier one are dropped. */
  id: number;
  models: string[];
  streams: string[];
  answers: ComparedAnswer[] | null;
}

export interface CompareModelsProps {
  backend: Backend;
  /** The `provider/model` strings the server may be sampled on (empty: any). */
  allowed: readonly string[];
  /** The `provider/model` ticked at first (when it can be compared). */
  initial: readonly string[];
  /** Sends the request to `models`; resolves with their answers in the same order. */
  run: (models: ModelChoice[]) => Promise<ComparedAnswer[]>;
  /**
   * The flow whose `comparedText` events stream into the columns while a run is in flight; null
   * when it is not known beforehand (a replay's flow is made by the core), and the columns wait.
   */
  flow: string | null;
  /** Why the request cannot be sent as it stands (the dialog's own check), else null. */
  invalid?: string | null;
  /** "Use this answer" (with the text as edited); absent where nothing goes back. */
  onUse?: (picked: ComparedAnswer, answer: Json) => void;
  /** Whether "Use this answer" may be pressed now. */
  canUse?: boolean;
  /** A line shown above the columns. */
  note?: React.ReactNode;
  onClose: () => void;
}

export function CompareModels(props: CompareModelsProps) {
  const { backend, flow } = props;
  const offered = comparableChoices(useModelChoices(backend), props.allowed);
  const [ticked, setTicked] = useState<string[]>(() => [...props.initial]);
  const [run, setRun] = useState<Run | null>(null);
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [edits, setEdits] = useState<Record<number, string>>({});
  const nextRun = useRef(1);
  // The run whose text is streaming (null: none); events outside a run are dropped.
  const streaming = useRef<number | null>(null);
  const picked = offered.filter((c) => ticked.includes(c));
  const full = picked.length >= MAX_COMPARED;

  useEffect(() => {
    if (flow === null) return;
    let stop: (() => void) | null = null;
    let gone = false;
    void backend
      .onCoreEvent((e) => {
        if (e.type !== "comparedText" || e.flow !== flow) return;
        const id = streaming.current;
        if (id === null) return;
        setRun((r) => {
          if (!r || r.id !== id || r.answers || !Number.isInteger(e.column) || e.column < 0 || e.column >= r.models.length)
            return r;
          const streams = r.streams.slice();
          streams[e.column] = (streams[e.column] ?? "") + e.text;
          return { ...r, streams };
        });
      })
      .then((u) => {
        if (gone) u();
        else stop = u;
      });
    return () => {
      gone = true;
      stop?.();
    };
  }, [backend, flow]);

  const start = async () => {
    if (picked.length === 0 || running) return;
    const id = nextRun.current++;
    const models = picked;
    streaming.current = id;
    setRun({ id, models, streams: models.map(() => ""), answers: null });
    setEdits({});
    setError(null);
    setRunning(true);
    try {
      const choices = models.map((c): ModelChoice => {
        const [provider, model] = splitChoice(c);
        return { provider, model };
      });
      const answers = await props.run(choices);
      setRun((r) => (r && r.id === id ? { ...r, answers } : r));
    } catch (e) {
      setRun((r) => (r && r.id === id ? null : r));
      setError(errorMessage(e));
    } finally {
      if (streaming.current === id) streaming.current = null;
      setRunning(false);
    }
  };

  return (
    <section className="compare card" aria-label="Compare models" data-testid="compare">
      <fieldset className="compare-picker" data-testid="compare-picker">
        <legend>Send it to up to {MAX_COMPARED} of your models, side by side</legend>
        {offered.length === 0 ? (
          <p className="muted" data-testid="compare-none">
            None of your models can take this request. Add a provider and its models on the Models screen
            {props.allowed.length > 0 ? ", among those this server may be sampled on" : ""}.
          </p>
        ) : (
          <div className="chips">
            {offered.map((c) => {
              const on = ticked.includes(c);
              return (
                <label key={c} className="toggle">
                  <input
                    type="checkbox"
                    data-testid="compare-model"
                    data-model={c}
                    checked={on}
                    disabled={running || (!on && full)}
                    onChange={(e) => {
                      const tick = e.currentTarget.checked;
                      setTicked((t) => (tick ? [...t.filter((x) => x !== c), c] : t.filter((x) => x !== c)));
                    }}
                  />
                  {reveal(c)}
                </label>
              );
            })}
          </div>
        )}
        <div className="actions">
          <button
            className="primary"
            data-testid="compare-run"
            disabled={running || picked.length === 0 || !!props.invalid}
            onClick={() => void start()}
          >
            {running ? "Running…" : "Run"}
          </button>
          <button data-testid="compare-close" onClick={props.onClose}>
            Close
          </button>
          {props.invalid ? (
            <span className="warn-text">{props.invalid}</span>
          ) : full ? (
            <span className="muted" data-testid="compare-full">
              At most {MAX_COMPARED} models at once.
            </span>
          ) : null}
        </div>
      </fieldset>
      <ErrorBanner error={error} testId="compare-failed" />
      {run ? (
        <>
          {props.note}
          <div className="compare-columns" data-testid="compare-columns">
            {run.models.map((m, i) => (
              <Column
                key={`${run.id}-${i}`}
                name={m}
                stream={run.streams[i] ?? ""}
                waiting={flow === null}
                answer={run.answers?.[i] ?? null}
                settled={run.answers !== null}
                edit={edits[i]}
                setEdit={(text) => setEdits((all) => ({ ...all, [i]: text }))}
                onUse={props.onUse}
                canUse={props.canUse ?? true}
              />
            ))}
          </div>
        </>
      ) : null}
    </section>
  );
}

function Column(props: {
  name: string;
  stream: string;
  /** No text streams into this column: it waits for the answer. */
  waiting: boolean;
  answer: ComparedAnswer | null;
  /** The run is over (an answer missing from it is shown as such). */
  settled: boolean;
  edit: string | undefined;
  setEdit: (text: string) => void;
  onUse: ((picked: ComparedAnswer, answer: Json) => void) | undefined;
  canUse: boolean;
}) {
  const { answer } = props;
  return (
    <div className="compare-column" data-testid="compare-column" data-model={props.name}>
      <header>
        <strong>{reveal(props.name)}</strong>
      </header>
      {!props.settled ? (
        <div className="stream-text" aria-live="polite" data-testid="compare-stream">
          {props.stream ? (
            <Revealed text={props.stream} />
          ) : (
            <span className="muted">
              <span className="spinner" /> {props.waiting ? "Waiting for the answer…" : "Waiting for the first words…"}
            </span>
          )}
        </div>
      ) : answer === null ? (
        <p className="warn-text" data-testid="compare-error">
          No answer came back for this model.
        </p>
      ) : (
        <Settled answer={answer} edit={props.edit} setEdit={props.setEdit} onUse={props.onUse} canUse={props.canUse} />
      )}
    </div>
  );
}

function Settled(props: {
  answer: ComparedAnswer;
  edit: string | undefined;
  setEdit: (text: string) => void;
  onUse: ((picked: ComparedAnswer, answer: Json) => void) | undefined;
  canUse: boolean;
}) {
  const { answer } = props;
  const result = answer.result === null || answer.result === undefined ? null : obj(answer.result);
  const figures = (
    <p className="muted compare-figures">
      <span data-testid="compare-latency">{seconds(answer.latencyMs)}</span>
      {" · "}
      <span data-testid="compare-tokens">{tokensText(answer)}</span>
      {" · "}
      <span data-testid="compare-cost">{costText(answer.costUsd)}</span>
    </p>
  );
  if (answer.error !== null || result === null)
    return (
      <>
        <p className="warn-text" data-testid="compare-error">
          {reveal(answer.error ?? "The model gave no answer.")}
        </p>
        {figures}
      </>
    );
  const blocks = blocksOfAnswer(result);
  const at = textIndex(result);
  const text = props.edit ?? str(blocks[at]?.text);
  const others = blocks.filter((_, i) => i !== at);
  return (
    <>
      {answer.cut ? (
        <div className="banner warn" role="status" data-testid="compare-cut">
          Cut off before it finished ({reveal(answer.cut)}).
        </div>
      ) : null}
      {figures}
      {at < 0 ? (
        <p className="muted">This answer has no text.</p>
      ) : props.onUse ? (
        <label className="field">
          <span className="muted">Answer (edit it before you use it)</span>
          <textarea
            data-testid="compare-edit"
            rows={Math.min(14, Math.max(4, text.split("\n").length + 1))}
            value={text}
            onChange={(e) => props.setEdit(e.currentTarget.value)}
          />
          <RevealedCopy value={text} testid="compare-edit" />
        </label>
      ) : (
        <div className="stream-text" data-testid="compare-text">
          <Revealed text={text} />
        </div>
      )}
      {others.map((b, i) =>
        str(b.type) === "image" || str(b.type) === "audio" ? (
          <Media key={i} block={b} />
        ) : (
          <pre key={i} className="json" data-testid="compare-block">
            {reveal(JSON.stringify(b, null, 2))}
          </pre>
        ),
      )}
      {props.onUse ? (
        <button
          className="primary"
          data-testid="compare-use"
          disabled={!props.canUse}
          onClick={() => props.onUse?.(answer, editedAnswer(result, props.edit))}
        >
          Use this answer
        </button>
      ) : null}
    </>
  );
}
