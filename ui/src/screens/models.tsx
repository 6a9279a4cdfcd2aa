// The Models screen: the LLM providers sampling (and the chat) can use. Add OpenAI, any
// OpenAI-compatible server (Ollama, LM Studio, vLLM, OpenRouter), Anthropic or Gemini; the API key
// goes to the OS keychain and is never shown again. Fetch the provider's model list, choose models,
// and rate each (cost, speed, intelligence) so a server's model preferences map onto them. The
// manual provider (you write the answer) is always there.
import { useCallback, useEffect, useRef, useState } from "react";
import type { Backend } from "../backend";
import { errorMessage } from "../backend";
import type { ModelRating } from "../bindings/ModelRating";
import type { ProviderKind } from "../bindings/ProviderKind";
import type { ProviderSettings } from "../bindings/ProviderSettings";
import { ErrorBanner } from "../components/error-banner";
import { Choice } from "../components/choice";

const KINDS: { kind: ProviderKind; label: string; id: string; url: string; env: string }[] = [
  { kind: "openai", label: "OpenAI or compatible", id: "openai", url: "https://api.openai.com/v1", env: "OPENAI_API_KEY" },
  { kind: "anthropic", label: "Anthropic", id: "anthropic", url: "https://api.anthropic.com", env: "ANTHROPIC_API_KEY" },
  { kind: "gemini", label: "Google Gemini", id: "gemini", url: "https://generativelanguage.googleapis.com/v1beta", env: "GEMINI_API_KEY" },
];

function blank(kind: ProviderKind = "openai"): ProviderSettings {
  const k = KINDS.find((x) => x.kind === kind) ?? KINDS[0]!;
  return { id: k.id, kind, baseUrl: null, models: [], hasKey: false };
}

function rating(provider: string, model: string): ModelRating {
  return { provider, model, cost: 0.5, speed: 0.5, intelligence: 0.5, inputPrice: null, outputPrice: null };
}

export function ModelsScreen(props: { backend: Backend }) {
  const { backend } = props;
  const [providers, setProviders] = useState<ProviderSettings[]>([]);
  // Each opened form is its own (`form` counts them): a save still in flight when the person
  // opens another must neither hand its state to the new form nor close it when it finishes.
  const [editing, setEditing] = useState<{ draft: ProviderSettings; isNew: boolean; form: number } | null>(null);
  const forms = useRef(0);
  const open = (draft: ProviderSettings, isNew: boolean) => {
    forms.current += 1;
    setEditing({ draft, isNew, form: forms.current });
  };
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(() => {
    backend.listProviders().then(setProviders, (e: unknown) => setError(errorMessage(e)));
  }, [backend]);
  useEffect(load, [load]);

  return (
    <div className="page" data-testid="models-screen">
      <ErrorBanner error={error} testId="error-banner" />
      <section aria-label="Providers">
        <header className="pane-header">
          <h2>Models</h2>
          <button className="primary" data-testid="add-provider" onClick={() => open(blank(), true)}>
            Add a provider
          </button>
        </header>
        <p className="muted">
          Servers' sampling requests go to these models, chosen by the server's preferences (hints first, then its
          cost, speed and intelligence priorities against your ratings); you see and can change the choice in every
          request.
        </p>
        <table className="table" data-testid="providers">
          <thead>
            <tr>
              <th>Provider</th>
              <th>Kind</th>
              <th>Address</th>
              <th>Key</th>
              <th>Models</th>
              <th />
            </tr>
          </thead>
          <tbody>
            <tr data-testid="provider-row" data-id="manual">
              <td>manual</td>
              <td>built in</td>
              <td className="muted">none: you write the answer</td>
              <td className="muted">not needed</td>
              <td>manual</td>
              <td />
            </tr>
            {providers.map((p) => (
              <tr key={p.id} data-testid="provider-row" data-id={p.id}>
                <td>{p.id}</td>
                <td>{KINDS.find((k) => k.kind === p.kind)?.label ?? p.kind}</td>
                <td>{p.baseUrl ?? <span className="muted">default</span>}</td>
                <td data-testid="provider-key">{p.hasKey ? "in the keychain" : <span className="muted">none</span>}</td>
                <td>{p.models.map((m) => m.model).join(", ") || <span className="warn-text">no models chosen</span>}</td>
                <td className="actions">
                  <button className="small" data-testid="edit-provider" onClick={() => open(structuredClone(p), false)}>
                    Edit
                  </button>
                  <button
                    className="small danger"
                    data-testid="remove-provider"
                    onClick={() => backend.removeProvider(p.id).then(load, (e: unknown) => setError(errorMessage(e)))}
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      {editing ? (
        <ProviderForm
          key={editing.form}
          backend={backend}
          initial={editing.draft}
          isNew={editing.isNew}
          onDone={(form) => {
            setEditing((shown) => (shown?.form === form ? null : shown));
            load();
          }}
          form={editing.form}
          onCancel={() => setEditing(null)}
        />
      ) : null}
    </div>
  );
}

function ProviderForm(props: {
  backend: Backend;
  initial: ProviderSettings;
  isNew: boolean;
  // Which opened form this is, handed back to `onDone`.
  form: number;
  onDone: (form: number) => void;
  onCancel: () => void;
}) {
  const { backend } = props;
  const [draft, setDraft] = useState<ProviderSettings>(props.initial);
  const [key, setKey] = useState("");
  const [offered, setOffered] = useState<string[] | null>(null);
  const [custom, setCustom] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const kind = KINDS.find((k) => k.kind === draft.kind) ?? KINDS[0]!;
  const chosen = new Set(draft.models.map((m) => m.model));

  const toggle = (model: string) =>
    setDraft((d) => ({
      ...d,
      models: chosen.has(model) ? d.models.filter((m) => m.model !== model) : [...d.models, rating(d.id, model)],
    }));
  const setRating = (
    model: string,
    field: "cost" | "speed" | "intelligence" | "inputPrice" | "outputPrice",
    value: number | null,
  ) =>
    setDraft((d) => ({ ...d, models: d.models.map((m) => (m.model === model ? { ...m, [field]: value } : m)) }));

  const save = async () => {
    setBusy(true);
    try {
      await backend.saveProvider(draft, key === "" ? null : key);
      setKey("");
      props.onDone(props.form);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };
  const fetchModels = async () => {
    setBusy(true);
    try {
      // The key must be stored before the backend can ask the provider.
      await backend.saveProvider(draft, key === "" ? null : key);
      setKey("");
      setOffered(await backend.providerModels(draft.id));
      setError(null);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card" aria-label="Provider" data-testid="provider-form">
      <h3>{props.isNew ? "Add a provider" : `Edit ${draft.id}`}</h3>
      <ErrorBanner error={error} testId="provider-error" />
      <div className="row">
        <label className="field">
          <span className="muted">Kind</span>
          <Choice
            data-testid="provider-kind"
            value={draft.kind}
            disabled={!props.isNew}
            onChoose={(picked) => setDraft({ ...blank(picked as ProviderKind), models: [] })}
          >
            {KINDS.map((k) => (
              <option key={k.kind} value={k.kind}>
                {k.label}
              </option>
            ))}
          </Choice>
        </label>
        <label className="field">
          <span className="muted">Name</span>
          <input
            data-testid="provider-id"
            value={draft.id}
            disabled={!props.isNew}
            onChange={(e) => setDraft({ ...draft, id: e.currentTarget.value })}
          />
        </label>
      </div>
      <label className="field">
        <span className="muted">Address (empty for {kind.url}; for Ollama: http://localhost:11434/v1)</span>
        <input
          data-testid="provider-url"
          placeholder={kind.url}
          value={draft.baseUrl ?? ""}
          onChange={(e) => setDraft({ ...draft, baseUrl: e.currentTarget.value.trim() === "" ? null : e.currentTarget.value })}
        />
      </label>
      <label className="field">
        <span className="muted">
          API key {draft.hasKey ? "(one is stored in the keychain; type to replace it)" : "(stored in the OS keychain)"}
        </span>
        <span className="hint muted" data-testid="provider-key-env">
          Without a keychain, set <code>{KINDS.find((k) => k.kind === draft.kind)?.env ?? "the key's variable"}</code> in the
          environment Switchboard starts from instead.
        </span>
        <input
          data-testid="provider-key-input"
          type="password"
          autoComplete="off"
          value={key}
          onChange={(e) => setKey(e.currentTarget.value)}
        />
      </label>
      <div className="actions">
        <button data-testid="fetch-models" disabled={busy || draft.id === ""} onClick={fetchModels}>
          Fetch the model list
        </button>
        <input
          data-testid="custom-model"
          placeholder="or type a model name"
          value={custom}
          onChange={(e) => setCustom(e.currentTarget.value)}
        />
        <button
          className="small"
          data-testid="add-model"
          disabled={custom.trim() === "" || chosen.has(custom.trim())}
          onClick={() => {
            toggle(custom.trim());
            setCustom("");
          }}
        >
          Add
        </button>
      </div>
      {offered ? (
        <div className="chips" data-testid="offered-models">
          {offered.map((m) => (
            <label key={m} className="chip">
              <input type="checkbox" data-testid="offered-model" data-model={m} checked={chosen.has(m)} onChange={() => toggle(m)} />
              {m}
            </label>
          ))}
        </div>
      ) : null}
      {draft.models.length ? (
        <table className="table" data-testid="ratings">
          <thead>
            <tr>
              <th>Model</th>
              <th title="0 = cheap, 1 = expensive">Cost</th>
              <th title="0 = slow, 1 = fast">Speed</th>
              <th title="0 = basic, 1 = most capable">Intelligence</th>
              <th title="US dollars per million tokens, as the provider bills them; shown as the cost of compared answers">
                Price in / out ($ per M tokens)
              </th>
              <th />
            </tr>
          </thead>
          <tbody>
            {draft.models.map((m) => (
              <tr key={m.model} data-testid="rating-row" data-model={m.model}>
                <td>{m.model}</td>
                {(["cost", "speed", "intelligence"] as const).map((f) => (
                  <td key={f}>
                    <input
                      type="range"
                      min={0}
                      max={1}
                      step={0.1}
                      data-testid={`rating-${f}`}
                      aria-label={`${m.model} ${f}`}
                      value={m[f]}
                      onChange={(e) => setRating(m.model, f, Number(e.currentTarget.value))}
                    />{" "}
                    {m[f].toFixed(1)}
                  </td>
                ))}
                <td>
                  {(["inputPrice", "outputPrice"] as const).map((f) => (
                    <input
                      key={f}
                      className="price"
                      type="number"
                      min={0}
                      step="any"
                      data-testid={`rating-${f}`}
                      aria-label={`${m.model} ${f === "inputPrice" ? "input" : "output"} price, dollars per million tokens`}
                      placeholder="unknown"
                      value={m[f] ?? ""}
                      onChange={(e) => {
                        const v = e.currentTarget.value;
                        setRating(m.model, f, v === "" ? null : Number(v));
                      }}
                    />
                  ))}
                </td>
                <td>
                  <button className="small" onClick={() => toggle(m.model)}>
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="warn-text">Choose at least one model, or sampling will not use this provider.</p>
      )}
      <div className="actions">
        <button onClick={props.onCancel}>Cancel</button>
        <button className="primary" data-testid="save-provider" disabled={busy || draft.id === ""} onClick={save}>
          Save
        </button>
      </div>
    </section>
  );
}
