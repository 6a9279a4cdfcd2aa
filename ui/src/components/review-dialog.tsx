// The approval dialog: one pending review at a time (never a modal on a modal), with how many
// more are waiting. Sampling requests are shown whole and editable before they reach the model;
// the model's answer streams in and is editable before it goes back; elicitation forms and URLs;
// a model's tool call with its arguments. Decisions carry the digest of what was shown, so the
// backend refuses a decision about anything else. Hidden characters are shown visibly. Approve is
// armed only a moment after a request appears, so a click or Enter meant for the window beneath
// (the chat composer, say) cannot approve what nobody has read.
import { createContext, useCallback, useContext, useEffect, useState } from "react";
import type { Backend } from "../backend";
import { errorMessage } from "../backend";
import type { Review } from "../bindings/Review";
import type { Rule } from "../bindings/Rule";
import type { Verdict } from "../bindings/Verdict";
import type { JsonSchema } from "../mcp";
import { SchemaForm } from "./schema-form";
import { hasHidden, reveal } from "./visible";

type Json = Record<string, unknown>;

function obj(v: unknown): Json {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : {};
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** The content blocks of a sampling message: a single block or a list. */
function blocksOf(content: unknown): Json[] {
  return (Array.isArray(content) ? content : [content]).map(obj);
}

/** The pending reviews and the text streaming from the model, kept current from host events. */
export function useReviews(backend: Backend) {
  const [reviews, setReviews] = useState<Review[]>([]);
  const [streamed, setStreamed] = useState<Record<string, string>>({});
  const refresh = useCallback(() => {
    backend.pendingReviews().then(setReviews, () => setReviews([]));
  }, [backend]);
  useEffect(() => {
    let unlisten: (() => void) | null = null;
    let live = true;
    refresh();
    backend
      .onHostEvent((e) => {
        if (e.type === "reviewsChanged") refresh();
        if (e.type === "samplingText") setStreamed((old) => ({ ...old, [e.flow]: (old[e.flow] ?? "") + e.text }));
      })
      .then((u) => {
        if (live) unlisten = u;
        else u();
      });
    return () => {
      live = false;
      unlisten?.();
    };
  }, [backend, refresh]);
  const drop = useCallback((flow: string) => {
    setStreamed((old) => {
      if (!(flow in old)) return old;
      const next = { ...old };
      delete next[flow];
      return next;
    });
  }, []);
  // Once the answer is up for review, its stream is over.
  useEffect(() => {
    for (const r of reviews) if (r.kind === "sampling_completion") drop(r.flow);
  }, [reviews, drop]);
  return { reviews, streamed, refresh, drop };
}

const TITLES: Record<Review["kind"], string> = {
  sampling_request: "A server asks the model",
  sampling_completion: "The model's answer",
  elicitation: "A server asks you",
  tool_call: "The model wants to call a tool",
};

/** How long Approve stays disabled after a request appears (as browsers do for permission prompts). */
export const ARM_DELAY_MS = 700;

/** Whether the dialog's Approve may be pressed yet. */
const Armed = createContext(true);

export function ReviewDialog(props: { backend: Backend; armDelayMs?: number }) {
  const { backend } = props;
  const delay = props.armDelayMs ?? ARM_DELAY_MS;
  const { reviews, streamed, refresh, drop } = useReviews(backend);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [armedFor, setArmedFor] = useState<string | null>(null);
  const review = reviews[0];
  const reviewId = review?.id;
  useEffect(() => {
    if (reviewId === undefined || delay <= 0) return;
    const t = setTimeout(() => setArmedFor(reviewId), delay);
    return () => clearTimeout(t);
  }, [reviewId, delay]);
  if (!review) return <Streaming streamed={streamed} drop={drop} />;
  const armed = delay <= 0 || armedFor === review.id;

  const decide = async (verdict: Verdict) => {
    setBusy(true);
    try {
      await backend.decideReview(review.id, review.digest, verdict);
      setError(null);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
      refresh();
    }
  };
  const more = reviews.length - 1;
  return (
    <div className="modal-backdrop">
      <div
        className="modal review"
        role="dialog"
        aria-modal="true"
        aria-labelledby="review-title"
        data-testid="review-dialog"
        data-kind={review.kind}
      >
        <header className="pane-header">
          <h2 id="review-title">{TITLES[review.kind]}</h2>
          <span className="muted">
            from <strong>{review.server}</strong>
            {more > 0 ? <span data-testid="review-more"> · {more} more waiting</span> : null}
          </span>
        </header>
        {review.hiddenCharacters ? (
          <div className="banner error" data-testid="review-hidden">
            This contains hidden characters. They are shown below as ⟨U+XXXX⟩ or ␛; the text may try to tell the
            model something you cannot see.
          </div>
        ) : null}
        {error ? (
          <div className="banner error" data-testid="review-error">
            {error}
          </div>
        ) : null}
        <Armed.Provider value={armed}>
          {review.kind === "sampling_request" ? (
            <SamplingRequest key={review.id} review={review} backend={backend} busy={busy} decide={decide} />
          ) : review.kind === "sampling_completion" ? (
            <SamplingCompletion key={review.id} review={review} busy={busy} decide={decide} />
          ) : review.kind === "elicitation" ? (
            <Elicitation key={review.id} review={review} backend={backend} busy={busy} decide={decide} />
          ) : (
            <ToolCall key={review.id} review={review} busy={busy} decide={decide} />
          )}
        </Armed.Provider>
      </div>
    </div>
  );
}

/** While the model answers (between the request and the answer's review), its text as it streams. */
function Streaming(props: { streamed: Record<string, string>; drop: (flow: string) => void }) {
  const { drop } = props;
  const flows = Object.keys(props.streamed);
  const flow = flows[flows.length - 1];
  const text = flow ? (props.streamed[flow] ?? "") : "";
  useEffect(() => {
    if (!flow) return;
    // A stream that stops without an answer (the provider failed) is dropped after a while.
    const t = setTimeout(() => drop(flow), 15_000);
    return () => clearTimeout(t);
  }, [flow, text, drop]);
  if (!flow) return null;
  return (
    <aside className="stream-panel" aria-live="polite" data-testid="sampling-stream">
      <header className="muted">The model is answering…</header>
      <div className="stream-text">{reveal(text)}</div>
    </aside>
  );
}

interface EditorProps {
  review: Review;
  busy: boolean;
  decide: (v: Verdict) => void;
}

/** A text that may hide characters: editable, with the revealed form beside it when needed. */
function TextBlock(props: { value: string; onChange: (v: string) => void; testid: string; rows?: number; label: string }) {
  return (
    <label className="field">
      <span className="muted">{props.label}</span>
      <textarea
        data-testid={props.testid}
        rows={props.rows ?? Math.min(12, Math.max(2, props.value.split("\n").length + 1))}
        value={props.value}
        onChange={(e) => props.onChange(e.currentTarget.value)}
      />
      {hasHidden(props.value) ? (
        <pre className="revealed" data-testid={`${props.testid}-revealed`}>
          {reveal(props.value)}
        </pre>
      ) : null}
    </label>
  );
}

function Media(props: { block: Json }) {
  const { block } = props;
  const type = str(block.type);
  const src = `data:${str(block.mimeType)};base64,${str(block.data)}`;
  if (type === "image") return <img className="media" alt="image from the server" src={src} />;
  if (type === "audio") return <audio controls src={src} />;
  return <pre className="json">{reveal(JSON.stringify(block, null, 2))}</pre>;
}

function RememberPicker(props: { value: Rule | null; onChange: (r: Rule | null) => void }) {
  return (
    <label className="inline">
      <span className="muted">From now on:</span>
      <select
        data-testid="review-remember"
        value={props.value ?? "ask"}
        onChange={(e) => {
          const v = e.currentTarget.value as Rule;
          props.onChange(v === "ask" ? null : v);
        }}
      >
        <option value="ask">ask every time</option>
        <option value="allow_session">allow until I quit</option>
        <option value="always_allow">always allow</option>
        <option value="deny">always deny</option>
      </select>
    </label>
  );
}

/** Edits as JSON: the escape hatch for anything the fields do not cover. */
function JsonEditor(props: { value: unknown; onChange: (v: unknown) => void; onError: (e: string | null) => void }) {
  const [text, setText] = useState(() => JSON.stringify(props.value, null, 2));
  return (
    <textarea
      className="json"
      data-testid="review-json"
      rows={16}
      value={text}
      onChange={(e) => {
        const t = e.currentTarget.value;
        setText(t);
        try {
          props.onChange(JSON.parse(t));
          props.onError(null);
        } catch (err) {
          props.onError(`Not valid JSON: ${errorMessage(err)}`);
        }
      }}
    />
  );
}

function Actions(props: {
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

function SamplingRequest(props: EditorProps & { backend: Backend }) {
  const { review, backend } = props;
  const [choices, setChoices] = useState<string[]>([]);
  useEffect(() => {
    backend.listProviders().then(
      (list) => setChoices(["manual/manual", ...list.flatMap((p) => p.models.map((m) => `${p.id}/${m.model}`))]),
      () => setChoices([]),
    );
  }, [backend]);
  const [draft, setDraft] = useState<Json>(() => structuredClone(obj(review.content)));
  const [asJson, setAsJson] = useState(false);
  const [jsonError, setJsonError] = useState<string | null>(null);
  const [remember, setRemember] = useState<Rule | null>(null);
  const request = obj(draft.request);
  const messages = Array.isArray(request.messages) ? (request.messages as unknown[]).map(obj) : [];
  const setRequest = (patch: Json) => setDraft((d) => ({ ...d, request: { ...obj(d.request), ...patch } }));
  const setBlockText = (i: number, j: number, text: string) => {
    const next = messages.map((m, mi) => {
      if (mi !== i) return m;
      const list = blocksOf(m.content).map((b, bj) => (bj === j ? { ...b, text } : b));
      return { ...m, content: Array.isArray(m.content) ? list : list[0] };
    });
    setRequest({ messages: next });
  };
  const maxTokens = Number(request.maxTokens);
  const invalid =
    jsonError ?? (!Number.isInteger(maxTokens) || maxTokens < 1 ? "maxTokens must be a whole number above 0" : null);
  const extra = <RememberPicker value={remember} onChange={setRemember} />;
  return (
    <>
      <div className="review-body" data-testid="sampling-request">
        <p className="muted">
          {choices.length > 1 ? (
            <select
              data-testid="sampling-choice"
              aria-label="Provider and model"
              value={`${str(draft.provider)}/${str(draft.model)}`}
              onChange={(e) => {
                // Provider names never contain "/"; model names may.
                const v = e.currentTarget.value;
                const cut = v.indexOf("/");
                setDraft((d) => ({ ...d, provider: v.slice(0, cut), model: v.slice(cut + 1) }));
              }}
            >
              {choices.includes(`${str(draft.provider)}/${str(draft.model)}`) ? null : (
                <option value={`${str(draft.provider)}/${str(draft.model)}`}>
                  {str(draft.provider)} · {str(draft.model)}
                </option>
              )}
              {choices.map((c) => (
                <option key={c} value={c}>
                  {c.replace("/", " · ")}
                </option>
              ))}
            </select>
          ) : null}{" "}
          Going to <strong data-testid="sampling-provider">{str(draft.provider)}</strong>, model{" "}
          <input
            data-testid="sampling-model"
            value={str(draft.model)}
            onChange={(e) => setDraft((d) => ({ ...d, model: e.currentTarget.value }))}
          />
          <button className="link" data-testid="review-json-toggle" onClick={() => setAsJson(!asJson)}>
            {asJson ? "Edit as fields" : "Edit as JSON"}
          </button>
        </p>
        {asJson ? (
          <JsonEditor value={draft} onChange={(v) => setDraft(obj(v))} onError={setJsonError} />
        ) : (
          <>
            <TextBlock
              label="System prompt"
              testid="sampling-system"
              value={str(request.systemPrompt)}
              onChange={(v) => setRequest({ systemPrompt: v === "" ? undefined : v })}
            />
            {messages.map((m, i) =>
              blocksOf(m.content).map((b, j) =>
                str(b.type) === "text" ? (
                  <TextBlock
                    key={`${i}-${j}`}
                    label={`${str(m.role)} message ${i + 1}`}
                    testid={`sampling-message-${i}-${j}`}
                    value={str(b.text)}
                    onChange={(v) => setBlockText(i, j, v)}
                  />
                ) : (
                  <div key={`${i}-${j}`} className="field">
                    <span className="muted">
                      {str(m.role)} message {i + 1} ({str(b.type)})
                    </span>
                    <Media block={b} />
                  </div>
                ),
              ),
            )}
            <div className="row">
              <label className="field">
                <span className="muted">Max tokens</span>
                <input
                  data-testid="sampling-max-tokens"
                  type="number"
                  min={1}
                  value={Number.isFinite(maxTokens) ? maxTokens : ""}
                  onChange={(e) => setRequest({ maxTokens: Number(e.currentTarget.value) })}
                />
              </label>
              <label className="field">
                <span className="muted">Temperature</span>
                <input
                  data-testid="sampling-temperature"
                  type="number"
                  step={0.1}
                  min={0}
                  value={typeof request.temperature === "number" ? request.temperature : ""}
                  onChange={(e) =>
                    setRequest({ temperature: e.currentTarget.value === "" ? undefined : Number(e.currentTarget.value) })
                  }
                />
              </label>
              <label className="field">
                <span className="muted">Stop sequences (one per line)</span>
                <textarea
                  data-testid="sampling-stop"
                  rows={2}
                  value={Array.isArray(request.stopSequences) ? (request.stopSequences as string[]).join("\n") : ""}
                  onChange={(e) => {
                    const lines = e.currentTarget.value.split("\n").filter((l) => l !== "");
                    setRequest({ stopSequences: lines.length ? lines : undefined });
                  }}
                />
              </label>
            </div>
            {request.modelPreferences || request.tools || request.toolChoice ? (
              <details>
                <summary>Model preferences and tools (edit as JSON to change)</summary>
                <pre className="json">
                  {reveal(
                    JSON.stringify(
                      { modelPreferences: request.modelPreferences, tools: request.tools, toolChoice: request.toolChoice },
                      null,
                      2,
                    ),
                  )}
                </pre>
              </details>
            ) : null}
          </>
        )}
      </div>
      <Actions
        busy={props.busy}
        invalid={invalid}
        approveLabel="Send to the model"
        extra={extra}
        onApprove={() => props.decide({ decision: "approve", content: draft, remember })}
        onDeny={() => props.decide({ decision: "deny" })}
      />
    </>
  );
}

function SamplingCompletion(props: EditorProps) {
  const { review } = props;
  const [draft, setDraft] = useState<Json>(() => structuredClone(obj(review.content)));
  const [asJson, setAsJson] = useState(false);
  const [jsonError, setJsonError] = useState<string | null>(null);
  const context = obj(review.context);
  const blocks = blocksOf(draft.content);
  const setText = (j: number, text: string) => {
    const list = blocks.map((b, bj) => (bj === j ? { ...b, text } : b));
    setDraft((d) => ({ ...d, content: Array.isArray(d.content) ? list : list[0] }));
  };
  const manual = str(context.provider) === "manual";
  return (
    <>
      <div className="review-body" data-testid="sampling-completion">
        <p className="muted">
          {manual
            ? "No model answers this one: write the answer the server gets."
            : `From ${str(context.provider)}, model ${str(draft.model) || str(context.model)}. Edit it before it goes back.`}
          <button className="link" data-testid="review-json-toggle" onClick={() => setAsJson(!asJson)}>
            {asJson ? "Edit as fields" : "Edit as JSON"}
          </button>
        </p>
        {asJson ? (
          <JsonEditor value={draft} onChange={(v) => setDraft(obj(v))} onError={setJsonError} />
        ) : (
          blocks.map((b, j) =>
            str(b.type) === "text" ? (
              <TextBlock
                key={j}
                label="Answer"
                rows={8}
                testid={`completion-text-${j}`}
                value={str(b.text)}
                onChange={(v) => setText(j, v)}
              />
            ) : (
              <Media key={j} block={b} />
            ),
          )
        )}
        <details>
          <summary>The request it answers</summary>
          <pre className="json">{reveal(JSON.stringify(context.request, null, 2))}</pre>
        </details>
      </div>
      <Actions
        busy={props.busy}
        invalid={jsonError}
        approveLabel="Return to the server"
        onApprove={() => props.decide({ decision: "approve", content: draft, remember: null })}
        onDeny={() => props.decide({ decision: "deny" })}
      />
    </>
  );
}

function Elicitation(props: EditorProps & { backend: Backend }) {
  const { review, backend } = props;
  const content = obj(review.content);
  const [values, setValues] = useState<Record<string, unknown> | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [opened, setOpened] = useState(false);
  const armed = useContext(Armed);
  const url = typeof content.url === "string" ? content.url : null;
  const cancel = (
    <button data-testid="review-cancel" disabled={props.busy} onClick={() => props.decide({ decision: "cancel" })}>
      Cancel
    </button>
  );
  if (url !== null) {
    return (
      <>
        <div className="review-body" data-testid="elicitation-url">
          <p>{reveal(str(content.message))}</p>
          <p className="muted">It wants you to open this page. Check the whole address before you do:</p>
          <pre className="json url" data-testid="elicitation-url-text">
            {reveal(url)}
          </pre>
          <button
            data-testid="elicitation-open"
            disabled={!armed || !url.startsWith("https://")}
            onClick={() => backend.openExternal(url).then(() => setOpened(true), () => setOpened(false))}
          >
            Open in my browser
          </button>
          {opened ? <span className="muted"> Opened. Come back here when you are done.</span> : null}
        </div>
        <Actions
          busy={props.busy}
          invalid={null}
          approveLabel="Done"
          denyLabel="Decline"
          extra={cancel}
          onApprove={() => props.decide({ decision: "approve", content, remember: null })}
          onDeny={() => props.decide({ decision: "deny" })}
        />
      </>
    );
  }
  const schema = obj(content.requestedSchema) as JsonSchema;
  const problem = typeof content.error === "string" ? content.error : null;
  return (
    <>
      <div className="review-body" data-testid="elicitation-form">
        <p>{reveal(str(content.message))}</p>
        {problem ? (
          <div className="banner error" data-testid="elicitation-problem">
            {problem}
          </div>
        ) : null}
        <SchemaForm
          schema={schema}
          initial={obj(content.values)}
          onChange={(v, e) => {
            setValues(v);
            setFormError(e);
          }}
        />
      </div>
      <Actions
        busy={props.busy}
        invalid={formError}
        approveLabel="Send"
        denyLabel="Decline"
        extra={cancel}
        onApprove={() => props.decide({ decision: "approve", content: { ...content, values: values ?? {} }, remember: null })}
        onDeny={() => props.decide({ decision: "deny" })}
      />
    </>
  );
}

function ToolCall(props: EditorProps) {
  const { review } = props;
  const content = obj(review.content);
  const context = obj(review.context);
  const definition = obj(context.definition);
  const pins = Array.isArray(context.pins) ? (context.pins as unknown[]).map(obj) : [];
  const [args, setArgs] = useState<unknown>(content.arguments ?? {});
  const [jsonError, setJsonError] = useState<string | null>(null);
  const [remember, setRemember] = useState<Rule | null>(null);
  return (
    <>
      <div className="review-body" data-testid="tool-call">
        <p>
          <strong>{reveal(str(content.tool))}</strong>: {reveal(str(definition.description))}
        </p>
        {pins.some((p) => p.state === "new") ? (
          <p className="muted" data-testid="tool-call-new">
            First use: approving also pins this tool's definition; a later change is blocked until you review it.
          </p>
        ) : null}
        <span className="muted">Arguments</span>
        <JsonEditor value={args} onChange={setArgs} onError={setJsonError} />
      </div>
      <Actions
        busy={props.busy}
        invalid={jsonError}
        approveLabel="Call it"
        extra={<RememberPicker value={remember} onChange={setRemember} />}
        onApprove={() => props.decide({ decision: "approve", content: { ...content, arguments: args }, remember })}
        onDeny={() => props.decide({ decision: "deny" })}
      />
    </>
  );
}
