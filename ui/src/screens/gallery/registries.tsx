// The registries the gallery lists from, kept in the config: a company's private registry or a
// mirror added by URL, one made the default (the first), one removed. The core checks each URL
// (https, or plain http on this computer) and writes it as the gallery will call it; nothing is
// kept until Save, and a refusal says which URL and why.
import type { FormEvent } from "react";
import { useEffect, useState } from "react";
import type { Backend } from "../../backend";
import { errorMessage } from "../../backend";
import type { RegistrySettings } from "../../bindings/RegistrySettings";
import { reveal } from "../../components/visible";

export function RegistriesPanel(props: { backend: Backend; onSaved: () => void; onClose: () => void }) {
  const { backend } = props;
  const [settings, setSettings] = useState<RegistrySettings | null>(null);
  const [list, setList] = useState<string[]>([]);
  const [adding, setAdding] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    backend.registrySettings().then(
      (s) => {
        if (!live) return;
        setSettings(s);
        setList(s.registries);
      },
      (e: unknown) => live && setProblem(errorMessage(e)),
    );
    return () => {
      live = false;
    };
  }, [backend]);
  const add = (e: FormEvent) => {
    e.preventDefault();
    const url = adding.trim();
    if (!url) return;
    setList((l) => (l.includes(url) ? l : [...l, url]));
    setAdding("");
  };
  const save = () => {
    setBusy(true);
    setProblem(null);
    backend.setRegistries(list).then(
      (kept) => {
        setBusy(false);
        setList(kept.registries);
        setSettings((s) => s && { ...s, registries: kept.registries });
        props.onSaved();
      },
      (e: unknown) => {
        setBusy(false);
        setProblem(errorMessage(e));
      },
    );
  };
  const changed = settings !== null && list.join("\n") !== settings.registries.join("\n");
  return (
    <section className="card registries" aria-label="Registries" data-testid="registries-panel">
      <h3>Registries</h3>
      <p className="muted">
        The gallery lists servers from these; the first is the default. What a registry says is shown as text only, and
        nothing it lists runs before you trust it.
      </p>
      {settings?.fromEnvironment ? (
        <p className="banner warn" data-testid="registry-from-environment">
          SWITCHBOARD_REGISTRY names {reveal(settings.fromEnvironment)}: it comes first while it is set.
        </p>
      ) : null}
      <ul className="item-list">
        {list.map((url, i) => (
          <li key={url} data-testid="registry-row" data-url={url}>
            <code>{reveal(url)}</code>
            {i === 0 ? <span className="badge">default</span> : null}
            {settings && url === settings.official ? <span className="badge">official</span> : null}
            {i > 0 ? (
              <button className="link" data-testid="registry-default" onClick={() => setList((l) => [url, ...l.filter((u) => u !== url)])}>
                Make default
              </button>
            ) : null}
            <button
              className="link"
              data-testid="registry-remove"
              disabled={list.length === 1}
              title={list.length === 1 ? "The gallery needs one registry" : undefined}
              onClick={() => setList((l) => l.filter((u) => u !== url))}
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
      <form className="row" onSubmit={add}>
        <input
          type="url"
          aria-label="Registry URL"
          data-testid="registry-url"
          placeholder="https://registry.example.com"
          spellCheck={false}
          value={adding}
          onChange={(e) => setAdding(e.currentTarget.value)}
        />
        <button type="submit" data-testid="registry-add" disabled={!adding.trim()}>
          Add
        </button>
        {settings && !list.includes(settings.official) ? (
          <button type="button" data-testid="registry-add-official" onClick={() => setList((l) => [...l, settings.official])}>
            Add the official one
          </button>
        ) : null}
      </form>
      {problem ? (
        <p className="banner error" role="alert" data-testid="registries-error">
          {problem}
        </p>
      ) : null}
      <div className="row">
        <button className="primary" data-testid="registries-save" disabled={!changed || busy} onClick={save}>
          Save
        </button>
        <button data-testid="registries-close" onClick={props.onClose}>
          Close
        </button>
      </div>
    </section>
  );
}
