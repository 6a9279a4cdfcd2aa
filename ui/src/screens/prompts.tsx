// The Prompts screen: a server's prompts with their arguments, a form whose fields complete as
// you type, and a preview of the messages the prompt produces.
import { useEffect, useState } from "react";
import type { Backend } from "../backend";
import { errorMessage } from "../backend";
import { CompletionInput } from "../components/completion-input";
import { ContentView } from "../components/content";
import { ErrorBanner } from "../components/error-banner";
import { ListSearch, matching, NoMatch, SelectableList } from "../components/selectable-list";
import { ItemLabel, pickDefault, ServerPicker } from "../components/server-picker";
import type { HostState } from "../host";
import type { GetPromptResult, Prompt } from "../mcp";

export function PromptsScreen(props: { backend: Backend; host: HostState }) {
  const { backend, host } = props;
  const [server, setServer] = useState<string | null>(null);
  const picked = pickDefault(host.servers, server, "prompts");
  const [prompts, setPrompts] = useState<Prompt[]>([]);
  const [selected, setSelected] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [search, setSearch] = useState("");
  const revision = picked ? (host.catalog[picked] ?? 0) : 0;

  useEffect(() => {
    if (!picked) return setPrompts([]);
    // Another server picked meanwhile: this answer is for the one before and must not show.
    let live = true;
    backend.listPrompts(picked).then(
      (p) => {
        if (!live) return;
        setPrompts(p);
        setError(null);
      },
      (e: unknown) => live && setError(errorMessage(e)),
    );
    return () => {
      live = false;
    };
  }, [backend, picked, revision]);

  const prompt = prompts.find((p) => p.name === selected) ?? null;
  const shown = matching(prompts, search, (p) => [p.name, p.title, p.description]);
  return (
    <div className="split">
      <section className="list-pane" aria-label="Prompts">
        <header className="pane-header">
          <h2>Prompts</h2>
        </header>
        <ServerPicker servers={host.servers} value={picked} need="prompts" onChange={(s) => (setServer(s), setSelected(null))} />
        <ListSearch testId="prompt-search" label="Search prompts" value={search} onChange={setSearch} />
        <ErrorBanner error={error} testId="error-banner" />
        {!picked ? <div className="empty muted">Start a server that offers prompts to see them here.</div> : null}
        <SelectableList
          items={shown}
          label="Prompts"
          keyOf={(p) => p.name}
          selected={selected}
          onSelect={setSelected}
          testId="prompt-item"
          data={(p) => ({ "data-name": p.name })}
        >
          {(p) => (
            <>
              <ItemLabel name={p.name} title={p.title}>
                {(p.arguments ?? []).length ? <span className="muted"> ({(p.arguments ?? []).map((a) => a.name).join(", ")})</span> : null}
              </ItemLabel>
              {p.description ? <div className="muted clamp">{p.description}</div> : null}
            </>
          )}
        </SelectableList>
        <NoMatch what="prompt" search={search} total={prompts.length} shown={shown.length} />
      </section>
      <section className="detail-pane" aria-label="Prompt">
        {prompt && picked ? (
          <PromptPanel key={`${picked}/${prompt.name}`} backend={backend} server={picked} prompt={prompt} />
        ) : (
          <div className="empty muted">{prompts.length ? "Choose a prompt." : ""}</div>
        )}
      </section>
    </div>
  );
}

export function PromptPanel(props: {
  backend: Backend;
  server: string;
  prompt: Prompt;
  /** Offers to insert the prompt's messages (the chat's "/" palette). */
  onInsert?: (result: GetPromptResult) => void;
  /** Focuses the first argument (or Get prompt, when there is none) as the panel opens. */
  autoFocus?: boolean;
}) {
  const { backend, server, prompt } = props;
  const [values, setValues] = useState<Record<string, string>>({});
  const [result, setResult] = useState<GetPromptResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const args = prompt.arguments ?? [];
  const missing = args.filter((a) => a.required && !values[a.name]?.trim()).map((a) => a.name);
  const get = () => {
    setBusy(true);
    setError(null);
    const filled = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ""));
    backend
      .getPrompt(server, prompt.name, filled)
      .then(setResult, (e: unknown) => setError(errorMessage(e)))
      .finally(() => setBusy(false));
  };
  return (
    <div className="detail">
      <header className="pane-header">
        <h2>{prompt.title ?? prompt.name}</h2>
      </header>
      {prompt.description ? <p className="description">{prompt.description}</p> : null}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          get();
        }}
      >
        {args.map((a, i) => (
          <CompletionInput
            key={a.name}
            autoFocus={props.autoFocus === true && i === 0}
            label={a.title ?? a.name}
            description={a.description}
            required={a.required ?? false}
            testId={`prompt-arg-${a.name}`}
            value={values[a.name] ?? ""}
            onChange={(v) => setValues((old) => ({ ...old, [a.name]: v }))}
            complete={(value) => {
              const context = Object.fromEntries(Object.entries(values).filter(([k, v]) => k !== a.name && v));
              return backend.complete(server, { type: "ref/prompt", name: prompt.name }, a.name, value, context);
            }}
          />
        ))}
        <div className="actions">
          <button
            type="submit"
            className="primary"
            data-testid="get-prompt"
            disabled={busy || missing.length > 0}
            autoFocus={props.autoFocus === true && args.length === 0}
          >
            Get prompt
          </button>
          {missing.length ? (
            <span className="muted call-needs" data-testid="prompt-needs">
              Needs {missing.join(", ")}
            </span>
          ) : null}
        </div>
      </form>
      <ErrorBanner error={error} testId="error-banner" />
      {result ? (
        <div className="prompt-preview" data-testid="prompt-preview">
          {result.description ? <p className="muted">{result.description}</p> : null}
          {result.messages.map((m, i) => (
            <div key={i} className={`message ${m.role}`}>
              <div className="role">{m.role}</div>
              <ContentView backend={backend} block={m.content} />
            </div>
          ))}
          {props.onInsert ? (
            <div className="actions">
              <button className="primary" data-testid="insert-prompt" onClick={() => props.onInsert?.(result)}>
                Insert into the message
              </button>
            </div>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
