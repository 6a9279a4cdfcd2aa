// The Servers screen: every configured server with live status, details, stderr and MCP logs;
// add, edit, remove, enable/disable, start/stop/restart, and import from other hosts.
import { useEffect, useState } from "react";
import type { Backend } from "../backend";
import { errorMessage } from "../backend";
import type { ImportPlan } from "../bindings/ImportPlan";
import type { ImportReport } from "../bindings/ImportReport";
import type { RemoteTransport } from "../bindings/RemoteTransport";
import type { ServerConfig } from "../bindings/ServerConfig";
import type { ServerView } from "../bindings/ServerView";
import { TextBlock } from "../components/content";
import type { HostState } from "../host";
import { statusText } from "../host";
import type { LogLevel } from "../mcp";

const LEVELS: LogLevel[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

/** Ticks once a second while something counts down. */
function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [active]);
  return now;
}

/** When each server's current status arrived (for the restart countdown). */
function useSince(servers: ServerView[]): Record<string, number> {
  const [since, setSince] = useState<Record<string, { key: string; at: number }>>({});
  useEffect(() => {
    setSince((old) => {
      const next: Record<string, { key: string; at: number }> = {};
      for (const s of servers) {
        const key = JSON.stringify(s.status);
        const prev = old[s.name];
        next[s.name] = prev && prev.key === key ? prev : { key, at: Date.now() };
      }
      return next;
    });
  }, [servers]);
  return Object.fromEntries(Object.entries(since).map(([k, v]) => [k, v.at]));
}

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
  useEffect(() => {
    if (selected && !host.servers.some((s) => s.name === selected)) setSelected(null);
    if (!selected && host.servers[0]) setSelected(host.servers[0].name);
  }, [host.servers, selected]);

  const current = host.servers.find((s) => s.name === selected) ?? null;

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
        {host.error ? (
          <div className="banner error" data-testid="error-banner">
            {host.error}
          </div>
        ) : null}
        {host.loaded && host.servers.length === 0 && !host.error ? (
          <div className="empty">
            <p>No servers yet.</p>
            <p className="muted">
              Add one, or import your Claude Desktop or VS Code configuration. Servers are saved in{" "}
              <code>{configPath}</code>.
            </p>
          </div>
        ) : null}
        <ul className="server-list" role="listbox" aria-label="Configured servers">
          {host.servers.map((s, i) => (
            <li
              key={s.name}
              role="option"
              tabIndex={0}
              aria-selected={s.name === selected}
              data-testid="server-row"
              data-name={s.name}
              data-state={s.status.state}
              className={s.name === selected ? "selected" : undefined}
              onClick={() => setSelected(s.name)}
              onKeyDown={(e) => {
                const move = e.key === "ArrowDown" ? 1 : e.key === "ArrowUp" ? -1 : 0;
                if (move) {
                  e.preventDefault();
                  const next = host.servers[i + move];
                  if (next) {
                    setSelected(next.name);
                    (e.currentTarget.parentElement?.children[i + move] as HTMLElement | undefined)?.focus();
                  }
                }
              }}
            >
              <span className={`dot ${s.status.state}`} aria-hidden="true" />
              <span className="name">{s.name}</span>
              <span className="state muted">{s.status.state}</span>
            </li>
          ))}
        </ul>
      </section>
      <section className="detail-pane" aria-label="Server details">
        {editing ? (
          <ServerForm
            backend={backend}
            original={editing.name ? (host.servers.find((s) => s.name === editing.name) ?? null) : null}
            onDone={(name) => {
              setEditing(null);
              if (name) setSelected(name);
              void host.reload();
            }}
          />
        ) : importing ? (
          <ImportPanel
            backend={backend}
            onDone={() => {
              setImporting(false);
              void host.reload();
            }}
          />
        ) : current ? (
          <ServerDetail
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

function ServerDetail(props: { backend: Backend; host: HostState; server: ServerView; status: string; onEdit: () => void }) {
  const { backend, server } = props;
  const [tab, setTab] = useState<"overview" | "stderr" | "log">("overview");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [level, setLevel] = useState<LogLevel>("info");
  const s = server.status;
  const enabled = server.config?.enabled ?? true;
  const act = (f: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    f()
      .catch((e: unknown) => setError(errorMessage(e)))
      .finally(() => {
        setBusy(false);
        void props.host.reload();
      });
  };
  const info = s.state === "running" ? s.summary.serverInfo : null;
  const logs = props.host.logs[server.name] ?? [];
  return (
    <div className="detail">
      <header className="pane-header">
        <div>
          <h2>{server.name}</h2>
          <p className={`status-line ${s.state}`} data-testid="server-status-text">
            {props.status}
          </p>
        </div>
        <div className="actions">
          <label className="toggle">
            <input
              type="checkbox"
              data-testid="server-enabled"
              checked={enabled}
              disabled={busy}
              onChange={(e) => {
                const on = e.currentTarget.checked;
                act(() => backend.setServerEnabled(server.name, on));
              }}
            />
            Enabled
          </label>
          {s.state === "running" || s.state === "starting" || s.state === "restarting" ? (
            <button data-testid="server-stop" disabled={busy} onClick={() => act(() => backend.stopServer(server.name))}>
              Stop
            </button>
          ) : (
            <button
              data-testid="server-start"
              disabled={busy || !enabled}
              onClick={() => act(() => backend.startServer(server.name))}
            >
              Start
            </button>
          )}
          <button data-testid="server-restart" disabled={busy || !enabled} onClick={() => act(() => backend.restartServer(server.name))}>
            Restart
          </button>
          <button onClick={props.onEdit}>Edit</button>
          <button
            data-testid="server-remove"
            className="danger"
            disabled={busy}
            onClick={() => {
              if (window.confirm(`Remove ${server.name}? It is stopped and deleted from the configuration.`)) {
                act(() => backend.removeServer(server.name));
              }
            }}
          >
            Remove
          </button>
        </div>
      </header>
      {error ? (
        <div className="banner error" data-testid="error-banner">
          {error}
        </div>
      ) : null}
      <div className="tabs" role="tablist">
        {(["overview", "stderr", "log"] as const).map((t) => (
          <button key={t} role="tab" aria-selected={tab === t} className={tab === t ? "tab active" : "tab"} onClick={() => setTab(t)}>
            {t === "overview" ? "Overview" : t === "stderr" ? `Stderr (${server.stderrTail.length})` : `Log (${logs.length})`}
          </button>
        ))}
      </div>
      {tab === "overview" ? (
        <div className="overview">
          <dl className="facts">
            <dt>Transport</dt>
            <dd>{server.config?.url ? `${server.config.transport ?? "auto"} · ${server.config.url}` : "stdio"}</dd>
            {server.config?.command ? (
              <>
                <dt>Command</dt>
                <dd>
                  <code>{[server.config.command, ...(server.config.args ?? [])].join(" ")}</code>
                </dd>
              </>
            ) : null}
            {s.state === "running" ? (
              <>
                <dt>Protocol</dt>
                <dd>{s.summary.protocolVersion}</dd>
                <dt>Server</dt>
                <dd>
                  {String(info?.["title"] ?? info?.["name"] ?? "unknown")} {info?.["version"] ? `v${String(info["version"])}` : ""}
                </dd>
                <dt>Capabilities</dt>
                <dd className="chips">
                  {Object.keys(s.summary.capabilities).map((c) => (
                    <span key={c} className="chip">
                      {c}
                    </span>
                  ))}
                </dd>
              </>
            ) : null}
          </dl>
          {s.state === "running" && s.summary.instructions ? (
            <div className="instructions">
              <h4>Instructions from the server</h4>
              <TextBlock text={s.summary.instructions} />
            </div>
          ) : null}
        </div>
      ) : tab === "stderr" ? (
        <pre className="log-view" data-testid="stderr-tail" ref={(el) => el?.scrollTo(0, el.scrollHeight)}>
          {server.stderrTail.length ? server.stderrTail.join("\n") : "Nothing on stderr yet."}
        </pre>
      ) : (
        <div className="log-tab">
          <label className="picker">
            <span>Level sent to the server</span>
            <select
              data-testid="log-level"
              value={level}
              disabled={s.state !== "running" || !("logging" in (s.state === "running" ? s.summary.capabilities : {}))}
              onChange={(e) => {
                const l = e.currentTarget.value as LogLevel;
                setLevel(l);
                act(() => backend.setLogLevel(server.name, l));
              }}
            >
              {LEVELS.map((l) => (
                <option key={l}>{l}</option>
              ))}
            </select>
          </label>
          <pre className="log-view" ref={(el) => el?.scrollTo(0, el.scrollHeight)}>
            {logs.length
              ? logs
                  .map((l) => `${new Date(l.at).toLocaleTimeString()} ${l.level.padEnd(8)} ${l.logger ? `[${l.logger}] ` : ""}${typeof l.data === "string" ? l.data : JSON.stringify(l.data)}`)
                  .join("\n")
              : "No log messages yet."}
          </pre>
        </div>
      )}
    </div>
  );
}

function lines(text: string): string[] {
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
}

function pairs(text: string, sep: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const l of lines(text)) {
    const i = l.indexOf(sep);
    if (i > 0) out[l.slice(0, i).trim()] = l.slice(i + sep.length).trim();
  }
  return out;
}

function unpairs(map: Record<string, string> | undefined, sep: string): string {
  return Object.entries(map ?? {})
    .map(([k, v]) => `${k}${sep}${v}`)
    .join("\n");
}

export function ServerForm(props: { backend: Backend; original: ServerView | null; onDone: (name: string | null) => void }) {
  const o = props.original?.config ?? null;
  const [name, setName] = useState(props.original?.name ?? "");
  const [kind, setKind] = useState<"stdio" | "remote">(o?.url ? "remote" : "stdio");
  const [command, setCommand] = useState(o?.command ?? "");
  const [args, setArgs] = useState((o?.args ?? []).join("\n"));
  const [env, setEnv] = useState(unpairs(o?.env, "="));
  const [cwd, setCwd] = useState(o?.cwd ?? "");
  const [url, setUrl] = useState(o?.url ?? "");
  const [transport, setTransport] = useState<RemoteTransport>(o?.transport ?? "auto");
  const [headers, setHeaders] = useState(unpairs(o?.headers, ": "));
  const [enabled, setEnabled] = useState(o?.enabled ?? true);
  const [timeout, setTimeoutSecs] = useState(o?.requestTimeoutSecs ? String(o.requestTimeoutSecs) : "");
  const [maxBytes, setMaxBytes] = useState(o?.maxMessageBytes ? String(o.maxMessageBytes) : "");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const save = () => {
    const config: ServerConfig = { ...(o ?? {}), enabled };
    if (kind === "stdio") {
      config.command = command.trim();
      config.args = lines(args);
      config.env = pairs(env, "=");
      config.cwd = cwd.trim() || null;
      config.url = null;
      config.headers = {};
    } else {
      config.url = url.trim();
      config.transport = transport;
      config.headers = pairs(headers, ":");
      config.command = null;
      config.args = [];
      config.env = {};
    }
    const t = timeout.trim() ? Number(timeout) : null;
    const m = maxBytes.trim() ? Number(maxBytes) : null;
    if ((t !== null && !(t > 0)) || (m !== null && !(m > 0))) {
      setError("Timeouts and sizes must be positive numbers");
      return;
    }
    config.requestTimeoutSecs = t;
    config.maxMessageBytes = m;
    setBusy(true);
    setError(null);
    props.backend
      .saveServer(name.trim(), config, props.original?.name ?? null)
      .then(() => props.onDone(name.trim()))
      .catch((e: unknown) => setError(errorMessage(e)))
      .finally(() => setBusy(false));
  };

  return (
    <form
      className="server-form"
      onSubmit={(e) => {
        e.preventDefault();
        save();
      }}
    >
      <header className="pane-header">
        <h2>{props.original ? `Edit ${props.original.name}` : "Add a server"}</h2>
      </header>
      {error ? (
        <div className="banner error" data-testid="error-banner" role="alert">
          {error}
        </div>
      ) : null}
      <label className="field">
        <span>Name</span>
        <input data-testid="server-name" required value={name} onChange={(e) => setName(e.currentTarget.value)} autoFocus />
      </label>
      <label className="field">
        <span>Kind</span>
        <select data-testid="server-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as "stdio" | "remote")}>
          <option value="stdio">Local program (stdio)</option>
          <option value="remote">Remote (HTTP)</option>
        </select>
      </label>
      {kind === "stdio" ? (
        <>
          <label className="field">
            <span>Command</span>
            <input data-testid="server-command" value={command} placeholder="npx" onChange={(e) => setCommand(e.currentTarget.value)} />
          </label>
          <label className="field">
            <span>Arguments (one per line)</span>
            <textarea data-testid="server-args" className="mono" rows={3} value={args} onChange={(e) => setArgs(e.currentTarget.value)} />
          </label>
          <label className="field">
            <span>Environment (KEY=value per line; use {"${secret:NAME}"} for keychain values)</span>
            <textarea data-testid="server-env" className="mono" rows={3} value={env} onChange={(e) => setEnv(e.currentTarget.value)} />
          </label>
          <label className="field">
            <span>Working directory</span>
            <input value={cwd} onChange={(e) => setCwd(e.currentTarget.value)} />
          </label>
        </>
      ) : (
        <>
          <label className="field">
            <span>URL</span>
            <input data-testid="server-url" type="url" value={url} placeholder="https://example.com/mcp" onChange={(e) => setUrl(e.currentTarget.value)} />
          </label>
          <label className="field">
            <span>Transport</span>
            <select value={transport} onChange={(e) => setTransport(e.currentTarget.value as RemoteTransport)}>
              <option value="auto">Automatic (Streamable HTTP, then legacy SSE)</option>
              <option value="streamable-http">Streamable HTTP</option>
              <option value="sse">Legacy HTTP+SSE</option>
            </select>
          </label>
          <label className="field">
            <span>Headers (Name: value per line)</span>
            <textarea className="mono" rows={3} value={headers} onChange={(e) => setHeaders(e.currentTarget.value)} />
          </label>
        </>
      )}
      <div className="row">
        <label className="field">
          <span>Request timeout (s)</span>
          <input type="number" min={1} value={timeout} placeholder="60" onChange={(e) => setTimeoutSecs(e.currentTarget.value)} />
        </label>
        <label className="field">
          <span>Max message size (bytes)</span>
          <input type="number" min={1} value={maxBytes} placeholder="16777216" onChange={(e) => setMaxBytes(e.currentTarget.value)} />
        </label>
      </div>
      <label className="field check">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
        <span>Enabled</span>
      </label>
      <div className="actions">
        <button type="submit" className="primary" data-testid="server-save" disabled={busy}>
          {busy ? "Saving…" : "Save"}
        </button>
        <button type="button" onClick={() => props.onDone(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
}

function ImportPanel(props: { backend: Backend; onDone: () => void }) {
  const [path, setPath] = useState("");
  const [plan, setPlan] = useState<ImportPlan | null>(null);
  const [inputs, setInputs] = useState<Record<string, string>>({});
  const [report, setReport] = useState<ImportReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const preview = (p: string) => {
    setError(null);
    setPlan(null);
    props.backend.importPreview(p).then(setPlan, (e: unknown) => setError(errorMessage(e)));
  };
  return (
    <div className="import">
      <header className="pane-header">
        <h2>Import servers</h2>
      </header>
      <p className="muted">
        From Claude Desktop (<code>claude_desktop_config.json</code>) or VS Code (<code>mcp.json</code>). Secrets in the file go to the
        system keychain, never into Switchboard's configuration.
      </p>
      <div className="row">
        <input
          data-testid="import-path"
          className="grow"
          value={path}
          placeholder="/path/to/claude_desktop_config.json"
          onChange={(e) => setPath(e.currentTarget.value)}
        />
        <button
          onClick={() =>
            props.backend.pickFile().then((p) => {
              if (p) {
                setPath(p);
                preview(p);
              }
            }, (e: unknown) => setError(errorMessage(e)))
          }
        >
          Choose file…
        </button>
        <button disabled={!path.trim()} onClick={() => preview(path.trim())}>
          Preview
        </button>
      </div>
      {error ? (
        <div className="banner error" data-testid="error-banner">
          {error}
        </div>
      ) : null}
      {plan ? (
        <div className="plan">
          <h3>
            {Object.keys(plan.servers).length} server(s) from {plan.source === "vs-code" ? "VS Code" : "Claude Desktop"}
          </h3>
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Runs</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(plan.servers).map(([n, s]) => (
                <tr key={n}>
                  <td>{n}</td>
                  <td>
                    <code>{s.url ?? [s.command, ...(s.args ?? [])].join(" ")}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {plan.secretNames.length ? (
            <p>
              Into the keychain: {plan.secretNames.map((n) => <code key={n}>{n} </code>)}
            </p>
          ) : null}
          {plan.inputs.map((i) => (
            <label className="field" key={i.id}>
              <span>{i.description || i.id}</span>
              <input
                type={i.password ? "password" : "text"}
                value={inputs[i.id] ?? ""}
                onChange={(e) => {
                  const v = e.currentTarget.value;
                  setInputs((old) => ({ ...old, [i.id]: v }));
                }}
              />
            </label>
          ))}
          <div className="actions">
            <button
              className="primary"
              onClick={() =>
                props.backend.importApply(path.trim(), inputs).then(setReport, (e: unknown) => setError(errorMessage(e)))
              }
            >
              Import
            </button>
            <button onClick={props.onDone}>Cancel</button>
          </div>
        </div>
      ) : null}
      {report ? (
        <div className="banner ok">
          Added {report.added.join(", ") || "nothing"}.
          {report.inputsMissing.length ? ` Missing values: ${report.inputsMissing.join(", ")}.` : ""}{" "}
          <button onClick={props.onDone}>Done</button>
        </div>
      ) : null}
    </div>
  );
}
