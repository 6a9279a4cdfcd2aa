// The Tools screen: a server's tools with their annotations (shown as the server's claims), an
// argument form from the input schema, calls with progress and cancel, and every kind of result.
import { useEffect, useState } from "react";
import type { Backend } from "../backend";
import { errorMessage, isBackendError } from "../backend";
import { ToolAppView } from "../components/app-frame";
import { isAppOnly, toolUiUri } from "../components/app-frame/tool-ui";
import { ToolResultView } from "../components/content";
import { SchemaForm } from "../components/schema-form";
import { SignInWaiting, useSignIn } from "../components/sign-in";
import { pickDefault, ServerPicker } from "../components/server-picker";
import type { CallProgress } from "../bindings/CallProgress";
import type { TaskView } from "../bindings/TaskView";
import { taskStatusText } from "./tasks";
import type { HostState } from "../host";
import type { CallToolResult, Tool } from "../mcp";

function claims(t: Tool): string[] {
  const a = t.annotations ?? {};
  const out: string[] = [];
  if (a.readOnlyHint) out.push("read-only");
  if (a.destructiveHint) out.push("destructive");
  if (a.idempotentHint) out.push("idempotent");
  if (a.openWorldHint) out.push("open-world");
  return out;
}

/** The Tools screen's choices, kept by the app while other screens are shown. */
export interface ToolSelection {
  server: string | null;
  /** The chosen tool of each server. */
  tools: Record<string, string>;
}

export function ToolsScreen(props: {
  backend: Backend;
  host: HostState;
  selection: ToolSelection;
  onSelect: (selection: ToolSelection) => void;
}) {
  const { backend, host, selection } = props;
  const [tools, setTools] = useState<Tool[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [search, setSearch] = useState("");
  const picked = pickDefault(host.servers, selection.server, "tools");
  const selected = picked ? (selection.tools[picked] ?? null) : null;
  const setSelected = (name: string) => {
    if (picked) props.onSelect({ server: picked, tools: { ...selection.tools, [picked]: name } });
  };
  const revision = picked ? (host.catalog[picked] ?? 0) : 0;

  useEffect(() => {
    if (!picked) {
      setTools([]);
      return;
    }
    let live = true;
    backend.listTools(picked).then(
      (t) => {
        if (!live) return;
        setTools(t);
        setError(null);
      },
      (e: unknown) => live && setError(errorMessage(e)),
    );
    return () => {
      live = false;
    };
  }, [backend, picked, revision]);

  const tool = tools.find((t) => t.name === selected) ?? null;
  const q = search.trim().toLowerCase();
  const shown = q
    ? tools.filter((t) => [t.name, t.title ?? "", t.description ?? ""].some((x) => x.toLowerCase().includes(q)))
    : tools;
  return (
    <div className="split">
      <section className="list-pane" aria-label="Tools">
        <header className="pane-header">
          <h2>Tools</h2>
        </header>
        <ServerPicker
          servers={host.servers}
          value={picked}
          need="tools"
          onChange={(s) => props.onSelect({ ...selection, server: s })}
        />
        <input
          data-testid="tool-search"
          type="search"
          placeholder="Search tools"
          aria-label="Search tools"
          value={search}
          onChange={(e) => setSearch(e.currentTarget.value)}
        />
        {error ? (
          <div className="banner error" data-testid="error-banner">
            {error}
          </div>
        ) : null}
        {!picked ? <div className="empty muted">Start a server that offers tools to see them here.</div> : null}
        <ul className="item-list" role="listbox" aria-label="Tools">
          {shown.map((t) => (
            <li
              key={t.name}
              role="option"
              tabIndex={0}
              aria-selected={t.name === selected}
              className={t.name === selected ? "selected" : undefined}
              data-testid="tool-item"
              data-name={t.name}
              onClick={() => setSelected(t.name)}
              onKeyDown={(e) => {
                if (e.key === "Enter" || e.key === " ") {
                  e.preventDefault();
                  setSelected(t.name);
                }
              }}
            >
              <div className="item-title">
                {t.icons?.[0] && /^(https:|data:)/.test(t.icons[0].src) ? <img className="icon" alt="" src={t.icons[0].src} /> : null}
                <strong>{t.title ?? t.annotations?.title ?? t.name}</strong>
                {t.title ? <code className="muted">{t.name}</code> : null}
                {toolUiUri(t) ? <span className="badge" data-testid="tool-has-view">view</span> : null}
                {isAppOnly(t) ? <span className="badge" data-testid="tool-app-only">app only</span> : null}
              </div>
              {t.description ? <div className="muted clamp">{t.description}</div> : null}
            </li>
          ))}
        </ul>
        {q && tools.length && !shown.length ? <div className="empty muted">No tool matches “{search.trim()}”.</div> : null}
      </section>
      <section className="detail-pane" aria-label="Tool">
        {tool && picked ? (
          <ToolPanel key={`${picked}/${tool.name}`} backend={backend} host={host} server={picked} tool={tool} />
        ) : (
          <div className="empty muted">{tools.length ? "Choose a tool." : ""}</div>
        )}
      </section>
    </div>
  );
}

/** One call of a tool with a view: its arguments, then its result or why it has none. */
interface ViewedCall {
  id: string;
  args: Record<string, unknown>;
  result: CallToolResult | null;
  cancelled: string | null;
}

function ToolPanel(props: { backend: Backend; host: HostState; server: string; tool: Tool }) {
  const { backend, tool, server } = props;
  const uiUri = toolUiUri(tool);
  const [viewed, setViewed] = useState<ViewedCall | null>(null);
  const [args, setArgs] = useState<Record<string, unknown> | null>({});
  const [argError, setArgError] = useState<string | null>(null);
  const [callId, setCallId] = useState<string | null>(null);
  const [result, setResult] = useState<CallToolResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [moreAccess, setMoreAccess] = useState(false);
  const [progress, setProgress] = useState<CallProgress | null>(null);
  const [task, setTask] = useState<TaskView | null>(null);
  const [tried, setTried] = useState(false);
  // The server asked for more scopes: signing in again asks for them, then the call is repeated.
  const signIn = useSignIn(backend, server, () => call());

  // A call the server runs as a task: its status follows the task's events.
  useEffect(() => {
    if (!callId) return;
    const stop = backend.onHostEvent((e) => {
      if (e.type === "task" && e.task.callId === callId) setTask(e.task);
    });
    return () => void stop.then((f) => f());
  }, [backend, callId]);

  const call = () => {
    if (callId) return;
    // A click with arguments missing or wrong shows what is wrong instead.
    setTried(true);
    if (!args || argError) return;
    const id = crypto.randomUUID();
    setCallId(id);
    setError(null);
    setMoreAccess(false);
    setProgress(null);
    // The view opens as the call starts (a new call, a new view) and hears how it ends.
    if (uiUri) setViewed({ id, args, result: null, cancelled: null });
    const ended = (change: Partial<ViewedCall>) => setViewed((v) => (v && v.id === id ? { ...v, ...change } : v));
    setTask(null);
    backend
      .callTool(server, tool.name, args, id, setProgress)
      .then(
        (r) => {
          setResult(r);
          ended({ result: r });
        },
        (e: unknown) => {
          setResult(null);
          const cancelled = isBackendError(e) && e.code === "cancelled";
          setError(cancelled ? "Cancelled; the server was told." : errorMessage(e));
          setMoreAccess(isBackendError(e) && e.code === "insufficient_scope");
          ended({ cancelled: cancelled ? "cancelled" : errorMessage(e) });
        },
      )
      .finally(() => setCallId(null));
  };
  const claimed = claims(tool);
  return (
    <div className="detail">
      <header className="pane-header">
        <div>
          <h2>{tool.title ?? tool.name}</h2>
          {claimed.length ? (
            <p className="claims" title="Annotations are what the server says about its tool; Switchboard cannot check them.">
              The server claims:{" "}
              {claimed.map((c) => (
                <span key={c} className={`chip ${c === "destructive" ? "warn" : ""}`}>
                  {c}
                </span>
              ))}
            </p>
          ) : null}
          {isAppOnly(tool) ? (
            <p className="claims" data-testid="tool-app-only-note">
              <span className="chip">app only</span> Meant to be called by its view; the model is not offered it.
            </p>
          ) : null}
        </div>
      </header>
      {tool.description ? <p className="description">{tool.description}</p> : null}
      <SchemaForm
        schema={tool.inputSchema}
        onChange={(a, e) => {
          setArgs(a);
          setArgError(e);
        }}
        onSubmit={call}
        showErrors={tried}
      />
      <div className="actions">
        <button className="primary" data-testid="call-tool" disabled={!!callId} onClick={call}>
          Call
        </button>
        {callId ? (
          <button data-testid="cancel-call" onClick={() => void backend.cancelCall(callId)}>
            Cancel
          </button>
        ) : null}
        <span className="call-status" aria-live="polite">
          {callId ? (
            <>
              <span className="spinner" aria-hidden="true" /> Calling…
              {callId && progress ? (
                <>
                  {" "}
                  <progress value={progress.progress} max={progress.total ?? undefined} />
                  {progress.message ? ` ${progress.message}` : ""}
                </>
              ) : null}
              {task ? (
                <span data-testid="call-task-status" data-status={task.status}>
                  {" "}
                  Task {taskStatusText(task)}
                </span>
              ) : null}
            </>
          ) : null}
        </span>
      </div>
      {signIn.waiting ? <SignInWaiting backend={backend} server={server} /> : null}
      {error && !signIn.waiting ? (
        <div className="banner error" data-testid="error-banner">
          {error}
          {moreAccess ? (
            <>
              {" "}
              <button data-testid="sign-in-more-access" onClick={signIn.start}>
                Sign in for more access
              </button>
              <span className="muted"> (the browser asks you to grant what {server} needs; the call is then repeated)</span>
            </>
          ) : null}
          {signIn.error ? <div data-testid="sign-in-error">{signIn.error}</div> : null}
        </div>
      ) : null}
      {uiUri && viewed ? (
        <ToolAppView
          key={viewed.id}
          backend={backend}
          server={server}
          tool={tool}
          uri={uiUri}
          args={viewed.args}
          result={viewed.result}
          cancelled={viewed.cancelled}
        />
      ) : null}
      {result ? <ToolResultView backend={backend} result={result} outputSchema={tool.outputSchema} /> : null}
    </div>
  );
}
