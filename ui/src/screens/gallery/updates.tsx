// Servers installed from a registry that now lists a newer version: each updated through the
// native trust dialog (which shows what changed), or uninstalled with its keychain entries.
import { useEffect, useState } from "react";
import type { Backend } from "../../backend";
import { errorMessage } from "../../backend";
import type { UpdateView } from "../../bindings/UpdateView";
import { registryHost } from "./listing-card";

export interface Notice {
  tone: "ok" | "warn";
  text: string;
}

export function Updates(props: { backend: Backend; onNotice: (n: Notice) => void; onError: (e: string) => void }) {
  const { backend } = props;
  const [updates, setUpdates] = useState<UpdateView[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    backend.checkUpdates().then(
      (u) => live && setUpdates(u),
      (e: unknown) => live && setProblem(errorMessage(e)),
    );
    return () => {
      live = false;
    };
  }, [backend]);
  const done = (server: string) => setUpdates((us) => us.filter((u) => u.server !== server));
  if (!updates.length && !problem) return null;
  return (
    <section className="card updates" aria-label="Updates" data-testid="updates">
      <h3>Updates</h3>
      {problem ? <p className="muted">Updates could not be checked: {problem}</p> : null}
      <ul className="item-list">
        {updates.map((u) => (
          <UpdateRow
            key={u.server}
            backend={backend}
            update={u}
            onDone={() => done(u.server)}
            onNotice={props.onNotice}
            onError={props.onError}
          />
        ))}
      </ul>
    </section>
  );
}

function UpdateRow(props: {
  backend: Backend;
  update: UpdateView;
  onDone: () => void;
  onNotice: (n: Notice) => void;
  onError: (e: string) => void;
}) {
  const { backend, update: u } = props;
  const [busy, setBusy] = useState(false);
  const [removing, setRemoving] = useState(false);
  const run = <T,>(step: () => Promise<T>, after: (result: T) => void) => {
    setBusy(true);
    step()
      .then(after, (e: unknown) => props.onError(errorMessage(e)))
      .finally(() => setBusy(false));
  };
  const updateIt = () =>
    run(
      () => backend.updateServer(u.server),
      (updated) => {
        if (!updated) return props.onNotice({ tone: "warn", text: `${u.server} was not updated: it stays at ${u.installed}.` });
        props.onNotice({ tone: "ok", text: `Updated ${u.server} to ${u.latest}.` });
        props.onDone();
      },
    );
  const uninstall = () =>
    run(
      () => backend.uninstallServer(u.server),
      () => {
        props.onNotice({ tone: "ok", text: `Uninstalled ${u.server}, with its keychain entries.` });
        props.onDone();
      },
    );
  return (
    <li className="update-row" data-testid="update" data-server={u.server}>
      <span className="grow">
        <strong>{u.server}</strong> {u.installed} → {u.latest} <span className="muted">from {registryHost(u.registry)}</span>
      </span>
      {removing ? (
        <span className="actions">
          <span>Remove {u.server} and its keychain entries?</span>
          <button className="danger" data-testid="uninstall-confirm" disabled={busy} onClick={uninstall}>
            Uninstall
          </button>
          <button disabled={busy} onClick={() => setRemoving(false)}>
            Keep
          </button>
        </span>
      ) : (
        <span className="actions">
          <button className="primary" data-testid="update-server" disabled={busy} onClick={updateIt}>
            {busy ? "Updating…" : "Update"}
          </button>
          <button data-testid="uninstall-server" disabled={busy} onClick={() => setRemoving(true)}>
            Uninstall…
          </button>
        </span>
      )}
    </li>
  );
}
