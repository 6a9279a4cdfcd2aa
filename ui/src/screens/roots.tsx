// The Roots screen: the folders servers may work in — a global set plus per-server overrides —
// added with the native folder picker or a typed path, and pushed to running servers.
import { useCallback, useEffect, useState } from "react";
import type { Backend } from "../backend";
import { errorMessage } from "../backend";
import type { RootsView } from "../bindings/RootsView";
import { ErrorBanner } from "../components/error-banner";
import type { HostState } from "../host";

export function RootsScreen(props: { backend: Backend; host: HostState }) {
  const { backend } = props;
  const [roots, setRoots] = useState<RootsView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(() => {
    backend.getRoots().then(setRoots, (e: unknown) => setError(errorMessage(e)));
  }, [backend]);
  useEffect(load, [load, props.host.servers.length]);

  const save = (server: string | null, paths: string[] | null) => {
    setError(null);
    return backend.setRoots(server, paths).then(load, (e: unknown) => {
      setError(errorMessage(e));
      throw e;
    });
  };

  if (!roots) return <div className="empty muted">{error ?? "Loading…"}</div>;
  return (
    <div className="single">
      <header className="pane-header">
        <div>
          <h2>Roots</h2>
          <p className="muted">The folders servers are told they may work in. Running servers hear about changes at once.</p>
        </div>
      </header>
      <ErrorBanner error={error} testId="error-banner" role="alert" />
      <RootList
        backend={backend}
        title="Every server"
        testId="roots-global"
        paths={roots.global}
        main
        onChange={(paths) => save(null, paths)}
      />
      {Object.entries(roots.servers).map(([name, own]) => (
        <div key={name} className="root-server">
          <label className="toggle">
            <input
              type="checkbox"
              checked={own !== null}
              onChange={(e) => void save(name, e.currentTarget.checked ? [...roots.global] : null).catch(() => undefined)}
            />
            <strong>{name}</strong>&nbsp;uses its own roots
          </label>
          {own === null ? (
            <p className="muted indent">Uses the roots above.</p>
          ) : (
            <RootList backend={backend} title={`${name}'s roots`} testId={`roots-${name}`} paths={own} onChange={(p) => save(name, p)} />
          )}
        </div>
      ))}
    </div>
  );
}

function RootList(props: {
  backend: Backend;
  title: string;
  testId: string;
  paths: string[];
  main?: boolean;
  onChange: (paths: string[]) => Promise<void>;
}) {
  const [typed, setTyped] = useState("");
  const add = (p: string) => {
    const path = p.trim();
    if (!path || props.paths.includes(path)) return;
    props.onChange([...props.paths, path]).then(() => setTyped(""), () => undefined);
  };
  const t = (id: string) => (props.main ? id : `${props.testId}-${id}`);
  return (
    <section className="root-list" data-testid={props.testId} aria-label={props.title}>
      <h3>{props.title}</h3>
      {props.paths.length === 0 ? <p className="muted">No folders yet.</p> : null}
      <ul>
        {props.paths.map((p) => (
          <li key={p} data-testid="root-item" data-path={p}>
            <code>{p}</code>
            <button data-testid="root-remove" className="small" aria-label={`Remove ${p}`} onClick={() => void props.onChange(props.paths.filter((x) => x !== p)).catch(() => undefined)}>
              Remove
            </button>
          </li>
        ))}
      </ul>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          add(typed);
        }}
      >
        <input data-testid={t("root-path")} className="grow" placeholder="/path/to/folder" value={typed} onChange={(e) => setTyped(e.currentTarget.value)} />
        <button type="submit" data-testid={t("root-add")} disabled={!typed.trim()}>
          Add
        </button>
        <button
          type="button"
          data-testid={t("root-pick")}
          onClick={() => props.backend.pickFolder().then((p) => p && add(p), () => undefined)}
        >
          Choose folder…
        </button>
      </form>
    </section>
  );
}
