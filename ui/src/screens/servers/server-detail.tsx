// One server's detail pane: status, enable/start/stop/restart/edit/remove, what its tool definitions
// cost the chat's model in tokens while it runs, and tabs for its overview (transport, protocol,
// capabilities, instructions), its stderr tail and its MCP log.
import type { ReactNode } from "react";
import { useEffect, useState } from "react";
import type { Backend } from "../../backend";
import { errorMessage } from "../../backend";
import type { ServerView } from "../../bindings/ServerView";
import type { SignInInfo } from "../../bindings/SignInInfo";
import { CommandLine } from "../../components/command-line";
import { TextBlock } from "../../components/content";
import { ErrorBanner } from "../../components/error-banner";
import { SignInWaiting, useSignIn } from "../../components/sign-in";
import { MeteredServer } from "../../components/tool-tokens";
import type { HostState } from "../../host";
import { needsSignIn } from "../../host";
import { ErrorDetails } from "../../components/error-details";
import { SandboxLine, withHost } from "./sandbox-line";
import type { LogLevel } from "../../mcp";
import { Choice } from "../../components/choice";

const OFF = "The server is disabled: tick Enabled to start it.";

const LEVELS: LogLevel[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

export function ServerDetail(props: { backend: Backend; host: HostState; server: ServerView; status: string; onEdit: () => void }) {
  if (props.server.status.state === "invalid") return <InvalidServerDetail {...props} />;
  return <ConfiguredServerDetail {...props} />;
}

/** An entry of the configuration file that is not valid: why, and Remove; it runs nothing. */
function InvalidServerDetail(props: { backend: Backend; host: HostState; server: ServerView }) {
  const { backend, server } = props;
  const [error, setError] = useState<string | null>(null);
  const s = server.status;
  return (
    <div className="detail" data-testid="server-detail" data-name={server.name}>
      <header className="pane-header server-header">
        <h2>{server.name}</h2>
        <div className="actions">
          <button
            data-testid="server-remove"
            className="danger"
            onClick={() => {
              if (window.confirm(`Remove ${server.name}? Its entry is deleted from the configuration file.`)) {
                backend
                  .removeServer(server.name)
                  .catch((e: unknown) => setError(errorMessage(e)))
                  .finally(() => void props.host.reload());
              }
            }}
          >
            Remove
          </button>
        </div>
      </header>
      <div className="banner error" data-testid="server-invalid">
        <strong>Not valid.</strong> This entry of the configuration file cannot be read, so it does not run; the other
        servers are not affected. Fix it in the file (it is kept as you wrote it) or remove it.
      </div>
      {s.state === "invalid" ? (
        <>
          <p className="error-text" data-testid="server-invalid-why">
            {s.error.message}
          </p>
          <ErrorDetails error={s.error} />
        </>
      ) : null}
      <ErrorBanner error={error} testId="error-banner" />
    </div>
  );
}

function ConfiguredServerDetail(props: { backend: Backend; host: HostState; server: ServerView; status: string; onEdit: () => void }) {
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
    <div className="detail" data-testid="server-detail" data-name={server.name}>
      <header className="pane-header server-header">
        <h2>{server.name}</h2>
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
          {s.state === "running" || s.state === "starting" || s.state === "restarting" || s.state === "stopping" ? (
            <button
              className="start-stop"
              data-testid="server-stop"
              disabled={busy || s.state === "stopping"}
              onClick={() => act(() => backend.stopServer(server.name))}
            >
              Stop
            </button>
          ) : (
            <button
              className="start-stop"
              data-testid="server-start"
              disabled={busy || !enabled}
              title={enabled ? undefined : OFF}
              onClick={() => act(() => backend.startServer(server.name))}
            >
              Start
            </button>
          )}
          <button
            data-testid="server-restart"
            disabled={busy || !enabled}
            title={enabled ? undefined : OFF}
            onClick={() => act(() => props.host.restartServer(server.name))}
          >
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
      {/* Its own fixed-height line: a changing status (a countdown, a long error) moves no button. */}
      <p className={`status-line server-status ${s.state}`} data-testid="server-status-text" title={props.status}>
        {props.status}
      </p>
      {(s.state === "failed" || s.state === "restarting") && !needsSignIn(s) ? <ErrorDetails error={s.error} /> : null}
      {enabled ? null : <p className="hint muted">{OFF}</p>}
      {s.state === "running" ? (
        <MeteredServer backend={backend} host={props.host} server={server.name} hasTools={"tools" in s.summary.capabilities} />
      ) : null}
      <SandboxLine
        server={server}
        busy={busy}
        onSandbox={() => act(async () => void (await backend.invoke("sandbox_server", { server: server.name })))}
        onAllowHost={(host) => {
          // A wider box is a new definition: the native dialog asks before it is saved.
          if (server.config) act(() => backend.saveServer(server.name, withHost(server.config!, host), server.name));
        }}
      />
      {s.state === "needsTrust" ? (
        <div className="banner warn" data-testid="needs-trust">
          <strong>Not trusted yet.</strong> {server.name}'s definition is new or changed since you last trusted it, so
          Switchboard has not run it. Review exactly what it runs (command, arguments, environment, URL, headers) in the
          dialog before it starts.{" "}
          <button
            className="primary"
            data-testid="trust-server"
            disabled={busy}
            onClick={() =>
              act(async () => {
                await backend.trustServer(server.name);
              })
            }
          >
            Review and trust…
          </button>
        </div>
      ) : null}
      {server.config?.url ? <SignIn backend={backend} host={props.host} server={server} /> : null}
      <ErrorBanner error={error} testId="error-banner" />
      <div className="tabs" role="tablist">
        {(server.config?.url ? (["overview", "log"] as const) : (["overview", "stderr", "log"] as const)).map((t) => (
          <button key={t} role="tab" data-testid={`tab-${t}`} aria-selected={tab === t} className={tab === t ? "tab active" : "tab"} onClick={() => setTab(t)}>
            {t === "overview" ? "Overview" : t === "stderr" ? `Stderr (${server.stderrTail.length})` : `Log (${logs.length})`}
          </button>
        ))}
      </div>
      {tab === "overview" ? (
        <div className="overview">
          <dl className="facts">
            <dt>Transport</dt>
            <dd data-testid="server-transport">{transportText(server)}</dd>
            {server.config?.command ? (
              <>
                <dt>Command</dt>
                <dd>
                  <CommandLine command={server.config.command} args={server.config.args ?? []} />
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
      ) : tab === "stderr" && !server.config?.url ? (
        <pre className="log-view" data-testid="stderr-tail" ref={(el) => el?.scrollTo(0, el.scrollHeight)}>
          {server.stderrTail.length ? server.stderrTail.join("\n") : "Nothing on stderr yet."}
        </pre>
      ) : (
        <div className="log-tab">
          <label className="picker">
            <span>Level sent to the server</span>
            <Choice
              data-testid="log-level"
              value={level}
              disabled={s.state !== "running" || !("logging" in (s.state === "running" ? s.summary.capabilities : {}))}
              onChoose={(picked) => {
                const l = picked as LogLevel;
                setLevel(l);
                act(() => backend.setLogLevel(server.name, l));
              }}
            >
              {LEVELS.map((l) => (
                <option key={l}>{l}</option>
              ))}
            </Choice>
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

/** Signing in to a remote server that asks for it, who is signed in, and signing out again. */
function SignIn(props: { backend: Backend; host: HostState; server: ServerView }) {
  const { backend, server } = props;
  const signIn = useSignIn(backend, server.name, () => void props.host.reload());
  const [error, setError] = useState<string | null>(null);
  const s = server.status;
  if (signIn.waiting) return <SignInWaiting backend={backend} server={server.name} />;
  if (needsSignIn(s)) {
    const expired = s.state === "failed" && s.error.code === "sign_in_expired";
    return (
      <div className="banner warn" data-testid="sign-in-required">
        {expired ? (
          <>
            <strong>Signed out.</strong> {server.name} no longer accepts your sign-in (it expired or was revoked); sign in
            again to reconnect.{" "}
          </>
        ) : (
          <>
            <strong>Sign in required.</strong> {server.name} lets Switchboard in only after you sign in with your account
            there; your browser opens its sign-in page.{" "}
          </>
        )}
        <button className="primary" data-testid="sign-in" onClick={signIn.start}>
          {expired ? "Sign in again" : "Sign in"}
        </button>
        {signIn.error ? (
          <div className="error" data-testid="sign-in-error">
            {signIn.error}
          </div>
        ) : null}
      </div>
    );
  }
  if (s.state !== "running") return null;
  return (
    <SignedInAs backend={backend} server={server.name}>
      <button
        className="link"
        data-testid="sign-out"
        title="Deletes this server's sign-in tokens from the keychain and restarts it"
        onClick={() => {
          backend
            .signOutServer(server.name)
            .catch((e: unknown) => setError(errorMessage(e)))
            .finally(() => void props.host.reload());
        }}
      >
        Sign out
      </button>
      {error ? <span className="error"> {error}</span> : null}
    </SignedInAs>
  );
}

/** The transport as connected (what `auto` settled on), else as configured. */
function transportText(server: ServerView): string {
  const s = server.status;
  const url = server.config?.url;
  const negotiated = s.state === "running" ? s.summary.transport : null;
  const kind = negotiated ?? (url ? (server.config?.transport ?? "auto") : "stdio");
  return url ? `${kind} · ${url}` : kind;
}

/** "Signed in as … at … (scopes)", from the keychain, with `children` (Sign out); nothing while
 *  not signed in (a server reached with a static header never was). */
function SignedInAs(props: { backend: Backend; server: string; children: ReactNode }) {
  const [info, setInfo] = useState<SignInInfo | null>(null);
  useEffect(() => {
    let live = true;
    props.backend.signInInfo(props.server).then(
      (i) => live && setInfo(i),
      () => live && setInfo(null),
    );
    return () => {
      live = false;
    };
  }, [props.backend, props.server]);
  if (!info) return null;
  return (
    <p className="hint muted" data-testid="signed-in">
      <span data-testid="signed-in-as">
        Signed in{info.account ? ` as ${info.account}` : ""}
        {info.issuer ? ` at ${info.issuer}` : ""}
        {info.scopes.length ? ` · ${info.scopes.join(" ")}` : ""}.{" "}
      </span>
      {props.children}
    </p>
  );
}
