// The Servers screen: every configured server with live status, details, stderr and MCP logs;
// add, edit, remove, enable/disable, start/stop/restart, and import from other hosts.
// The detail pane, the add/edit form and the import panel live under ./servers/.
import { useEffect, useState } from "react";
import type { Backend } from "../backend";
import type { ServerView } from "../bindings/ServerView";
import { ErrorBanner } from "../components/error-banner";
import { SelectableList } from "../components/selectable-list";
import type { HostState } from "../host";
import { needsSignIn, statusText } from "../host";
import { ImportPanel } from "./servers/import-panel";
import { useNow, useSince } from "./servers/restart-countdown";
import { ServerDetail } from "./servers/server-detail";
import { ServerForm } from "./servers/server-form";

export { ServerForm };

export function ServersScreen(props: { backend: Backend; host: HostState }) {
  const { backend, host } = props;
  const [selected, setSelected] = useState<string | null>(null);
  const [editing, setEditing] = useState<{ name: string | null } | null>(null);
  const [importing, setImporting] = useState(false);
  const [configPath, setConfigPath] = useState("");
  const counting = host.servers.some((s) => s.status.state === "restarting");
  const now = useNow(counting);
  const since = useSince(host.servers);

  useEffect(() => {
    backend.configPath().then(setConfigPath, () => undefined);
  }, [backend]);

  // The chosen server, else the first: one just added or renamed is chosen before the list has it.
  const current = host.servers.find((s) => s.name === selected) ?? host.servers[0] ?? null;

  return (
    <div className="split">
      <section className="list-pane" aria-label="Servers">
        <header className="pane-header">
          <h2>Servers</h2>
          <div className="actions">
            <button data-testid="add-server" onClick={() => setEditing({ name: null })}>
              Add server
            </button>
            <button data-testid="import-server" onClick={() => setImporting(true)}>
              Import…
            </button>
          </div>
        </header>
        <ErrorBanner error={host.error} testId="error-banner" />
        {host.loaded && host.servers.length === 0 && !host.error ? (
          <div className="empty">
            <p>No servers yet.</p>
            <p className="muted">
              Add one, or import your Claude Desktop or VS Code configuration. Servers are saved in{" "}
              <code>{configPath}</code>.
            </p>
          </div>
        ) : null}
        <SelectableList
          items={host.servers}
          label="Configured servers"
          className="server-list"
          keyOf={(s) => s.name}
          selected={current?.name ?? null}
          onSelect={setSelected}
          testId="server-row"
          data={(s) => ({ "data-name": s.name, "data-state": s.status.state })}
          arrowKeys
        >
          {(s) => (
            <>
              <span className={`dot ${s.status.state}`} aria-hidden="true" />
              <span className="name">{s.name}</span>
              <span className="state muted">{rowState(s)}</span>
            </>
          )}
        </SelectableList>
      </section>
      <section className="detail-pane" aria-label="Server details">
        {editing ? (
          <ServerForm
            backend={backend}
            original={editing.name ? (host.servers.find((s) => s.name === editing.name) ?? null) : null}
            onSaving={(name, previous) => {
              if (previous) host.renaming(previous, name);
            }}
            onDone={(name) => {
              setEditing(null);
              if (name) setSelected(name);
              void host.reload();
            }}
          />
        ) : importing ? (
          <ImportPanel
            backend={backend}
            onImported={() => void host.reload()}
            onDone={() => {
              setImporting(false);
              void host.reload();
            }}
          />
        ) : current ? (
          <ServerDetail
            // One card per server: what was pressed on one (busy, an error) never shows on another.
            key={current.name}
            backend={backend}
            host={host}
            server={current}
            status={statusText(current, now, since[current.name] ?? now)}
            onEdit={() => setEditing({ name: current.name })}
          />
        ) : (
          <div className="empty muted">Select a server to see its details.</div>
        )}
      </section>
    </div>
  );
}

/** A row's state in a few words. */
function rowState(s: ServerView): string {
  if (needsSignIn(s.status)) return "sign in";
  if (s.status.state === "needsTrust") return "needs trust";
  if (s.status.state === "invalid") return "not valid";
  return s.status.state;
}
