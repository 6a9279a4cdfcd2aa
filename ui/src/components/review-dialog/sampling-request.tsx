// Review of a server's sampling request before it reaches the model: provider and model, system
// prompt, messages, limits, editable as fields or as JSON, with a "from now on" rule. When the
// server may only be sampled on some models, the dialog says which and offers no other. "Compare
// models…" sends the request, as edited, to up to three of the person's models side by side; the
// answer picked there (edited or not) goes back to the server as this dialog's approval.
import { useContext, useState } from "react";
import type { Backend } from "../../backend";
import type { Rule } from "../../bindings/Rule";
import { CompareModels } from "../compare-models";
import { allowedModelsOf, isAllowed, splitChoice, useModelChoices } from "../model-choices";
import { reveal } from "../visible";
import type { Json } from "./loose-json";
import { blocksOf, obj, str } from "./loose-json";
import type { EditorProps } from "./review-actions";
import { Actions, Armed, RememberPicker } from "./review-actions";
import { JsonEditor, Media, TextBlock } from "./review-fields";
import { Choice } from "../choice";

/** The provider and model picker: the person's models, only those the server may use when it has a list. */
function ModelChoice(props: { choices: string[]; allowed: string[]; current: string; onPick: (choice: string) => void }) {
  const offered = props.choices.filter((c) => isAllowed(props.allowed, ...splitChoice(c)));
  if (!offered.some((c) => c !== props.current)) return null;
  return (
    <Choice
      data-testid="sampling-choice"
      aria-label="Provider and model"
      value={props.current}
      onChoose={props.onPick}
    >
      {offered.includes(props.current) ? null : <option value={props.current}>{props.current.replace("/", " · ")}</option>}
      {offered.map((c) => (
        <option key={c} value={c}>
          {c.replace("/", " · ")}
        </option>
      ))}
    </Choice>
  );
}

/** The line naming the only models this server may be sampled on (nothing when it may use any). */
function AllowedModels(props: { allowed: string[] }) {
  if (props.allowed.length === 0) return null;
  return (
    <p className="muted" data-testid="sampling-allowed-models">
      This server may only be sampled on: {reveal(props.allowed.join(", "))}
    </p>
  );
}

export function SamplingRequest(props: EditorProps & { backend: Backend }) {
  const { review, backend } = props;
  const choices = useModelChoices(backend);
  const allowed = allowedModelsOf(review.context);
  const [draft, setDraft] = useState<Json>(() => structuredClone(obj(review.content)));
  const [asJson, setAsJson] = useState(false);
  const [jsonError, setJsonError] = useState<string | null>(null);
  const [remember, setRemember] = useState<Rule | null>(null);
  const [comparing, setComparing] = useState(false);
  // The content as it was when last compared: a picked answer goes back with the request it answers.
  const [compared, setCompared] = useState<Json | null>(null);
  const armed = useContext(Armed);
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
  const unsendable = jsonError ?? (!Number.isInteger(maxTokens) || maxTokens < 1 ? "maxTokens must be a whole number above 0" : null);
  const invalid =
    unsendable ?? (isAllowed(allowed, str(draft.provider), str(draft.model)) ? null : "This server may not be sampled on that model");
  const current = `${str(draft.provider)}/${str(draft.model)}`;
  const extra = <RememberPicker value={remember} onChange={setRemember} />;
  return (
    <>
      <div className="review-body" data-testid="sampling-request">
        <AllowedModels allowed={allowed} />
        <p className="muted">
          <ModelChoice
            choices={choices}
            allowed={allowed}
            current={current}
            onPick={(c) => {
              const [provider, model] = splitChoice(c);
              setDraft((d) => ({ ...d, provider, model }));
            }}
          />{" "}
          Going to <strong data-testid="sampling-provider">{str(draft.provider)}</strong>, model{" "}
          <input
            data-testid="sampling-model"
            value={str(draft.model)}
            onChange={(e) => {
              // Read now: the event's target is gone by the time React runs the update.
              const model = e.currentTarget.value;
              setDraft((d) => ({ ...d, model }));
            }}
          />{" "}
          <button className="link" data-testid="review-json-toggle" onClick={() => setAsJson(!asJson)}>
            {asJson ? "Edit as fields" : "Edit as JSON"}
          </button>{" "}
          <button className="link" data-testid="compare-open" disabled={comparing} onClick={() => setComparing(true)}>
            Compare models…
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
        {comparing ? (
          <CompareModels
            backend={backend}
            allowed={allowed}
            initial={[current]}
            flow={review.flow}
            invalid={unsendable}
            run={(models) => {
              const content = structuredClone(draft);
              setCompared(content);
              return backend.compareSampling({ id: review.id, digest: review.digest, content, models });
            }}
            onUse={(picked, answer) =>
              props.decide({
                decision: "approve",
                content: { ...(compared ?? draft), provider: picked.provider, model: picked.model, answer },
                remember,
              })
            }
            canUse={armed && !props.busy}
            note={
              compared && JSON.stringify(compared.request) !== JSON.stringify(draft.request) ? (
                <p className="banner warn" data-testid="compare-stale">
                  You changed the request after running the comparison. These answers are to the request as it was
                  then, and an answer used from here goes back with that request. Run again to compare the request as it
                  is now.
                </p>
              ) : null
            }
            onClose={() => setComparing(false)}
          />
        ) : null}
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
