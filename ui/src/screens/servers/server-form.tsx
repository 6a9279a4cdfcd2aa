// The add/edit form for one server (a local stdio program or a remote HTTP endpoint), with the
// one-per-line text conversions for its arguments, environment and headers.
import { useState } from "react";
import type { Backend } from "../../backend";
import { errorMessage } from "../../backend";
import type { RemoteTransport } from "../../bindings/RemoteTransport";
import type { ServerConfig } from "../../bindings/ServerConfig";
import type { ServerView } from "../../bindings/ServerView";
import { ErrorBanner } from "../../components/error-banner";
import { SamplingModelsField, samplingModelsSetting } from "./sampling-models-field";
import { SandboxFields, sandboxFields, sandboxSetting } from "./sandbox-fields";
import { lines } from "./text-lines";
import { Choice } from "../../components/choice";

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

export function ServerForm(props: {
  backend: Backend;
  original: ServerView | null;
  /** Told before the save goes out (a rename is known before the list changes). */
  onSaving?: (name: string, previousName: string | null) => void;
  onDone: (name: string | null) => void;
}) {
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
  const [sandbox, setSandbox] = useState(sandboxFields(o?.sandbox));
  const [samplingModels, setSamplingModels] = useState(o?.samplingModels ?? []);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const save = () => {
    const config: ServerConfig = { ...(o ?? {}), enabled };
    if (kind === "stdio") {
      config.command = command.trim();
      config.args = lines(args);
      config.env = pairs(env, "=");
      config.cwd = cwd.trim() || null;
      const setting = sandboxSetting(sandbox, o?.sandbox);
      if (setting === undefined || setting === null) delete config.sandbox;
      else config.sandbox = setting;
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
    const models = samplingModelsSetting(samplingModels, o?.samplingModels);
    if (models === undefined) delete config.samplingModels;
    else config.samplingModels = models;
    setBusy(true);
    setError(null);
    props.onSaving?.(name.trim(), props.original?.name ?? null);
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
      <ErrorBanner error={error} testId="error-banner" role="alert" />
      <label className="field">
        <span>Name</span>
        <input data-testid="server-name" required value={name} onChange={(e) => setName(e.currentTarget.value)} autoFocus />
      </label>
      <label className="field">
        <span>Kind</span>
        <Choice data-testid="server-kind" value={kind} onChoose={(picked) => setKind(picked as "stdio" | "remote")}>
          <option value="stdio">Local program (stdio)</option>
          <option value="remote">Remote (HTTP)</option>
        </Choice>
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
            <span>
              Environment (KEY=value per line; use {"${secret:NAME}"} for keychain values, or {"${env:NAME}"} for a variable
              of the environment Switchboard starts from, e.g. where there is no keychain)
            </span>
            <textarea data-testid="server-env" className="mono" rows={3} value={env} onChange={(e) => setEnv(e.currentTarget.value)} />
          </label>
          <label className="field">
            <span>Working directory</span>
            <input value={cwd} onChange={(e) => setCwd(e.currentTarget.value)} />
          </label>
          <SandboxFields value={sandbox} onChange={setSandbox} />
        </>
      ) : (
        <>
          <label className="field">
            <span>URL</span>
            <input data-testid="server-url" type="url" value={url} placeholder="https://example.com/mcp" onChange={(e) => setUrl(e.currentTarget.value)} />
          </label>
          <label className="field">
            <span>Transport</span>
            <Choice value={transport} onChoose={(picked) => setTransport(picked as RemoteTransport)}>
              <option value="auto">Automatic (Streamable HTTP, then legacy SSE)</option>
              <option value="streamable-http">Streamable HTTP</option>
              <option value="sse">Legacy HTTP+SSE</option>
            </Choice>
          </label>
          <label className="field">
            <span>
              Headers (Name: value per line; {"${secret:NAME}"} for a keychain value, {"${env:NAME}"} for an environment
              variable)
            </span>
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
      <SamplingModelsField backend={props.backend} value={samplingModels} onChange={setSamplingModels} />
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
