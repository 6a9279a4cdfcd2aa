// The Tools screen: a server's tools with their annotations (shown as the server's claims), an
// argument form from the input schema, calls with progress and cancel, and every kind of result.
// What the person typed and each tool's last call are kept while other screens are shown. The
// server's text (names, titles, descriptions, progress) is shown with hidden characters revealed.
// Beside each tool, whether the chat's model is offered it and what its definition costs in tokens,
// and per server its tools' tokens together and what its new tools start as; "Tool sets" opens the
// named sets of tools a chat may be limited to, and "Context" when the model searches for tools
// and when the chat's meter warns (tools/); beside the server's tokens, whether the model searches.
import { useEffect, useState, useSyncExternalStore } from "react";
import type { Backend } from "../backend";
import { errorMessage, isBackendError } from "../backend";
import { ToolAppView } from "../components/app-frame";
import { isAppOnly, toolUiUri } from "../components/app-frame/tool-ui";
import { ToolResultView } from "../components/content";
import { ErrorBanner } from "../components/error-banner";
import { Revealed } from "../components/revealed";
import type { FormDraft } from "../components/schema-form";
import { SchemaForm } from "../components/schema-form";
import { ListSearch, matching, NoMatch, SelectableList } from "../components/selectable-list";
import { SignInWaiting, useSignIn } from "../components/sign-in";
import { ServerTokens, TokenCount, toolsKey, toolTokens, useTokenMeter } from "../components/tool-tokens";
import { ItemLabel, pickDefault, ServerPicker } from "../components/server-picker";
import type { CallProgress } from "../bindings/CallProgress";
import type { TokenMeter } from "../bindings/TokenMeter";
import type { TaskView } from "../bindings/TaskView";
import { taskStatusText } from "./tasks";
import { ContextPanel, SearchState } from "./tools/context-limits";
import { ModelSwitch, NewToolsSwitch } from "./tools/model-switch";
import type { Switches } from "./tools/switches";
import { useSwitches } from "./tools/switches";
import { ToolSetsPanel } from "./tools/tool-sets";
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

/** One call of a tool with a view: its arguments, then its result or why it has none. */
interface ViewedCall {
  id: string;
  args: Record<string, unknown>;
  result: CallToolResult | null;
  cancelled: string | null;
}

/** A tool's call as the screen shows it: the one in flight, or how the last one ended. */
interface CallState {
  callId: string | null;
  progress: CallProgress | null;
  task: TaskView | null;
  result: CallToolResult | null;
  error: string | null;
  moreAccess: boolean;
  viewed: ViewedCall | null;
}

/** What is kept of one tool of one server. */
interface ToolMemory {
  draft: FormDraft | null;
  call: CallState;
}

const NO_CALL: CallState = { callId: null, progress: null, task: null, result: null, error: null, moreAccess: false, viewed: null };
const FRESH: ToolMemory = { draft: null, call: NO_CALL };

/** What the Tools screen keeps while it is not shown (the app unmounts it): the search, what was
 *  typed for each tool, and each tool's last call, which may end while the screen is away. */
class ToolsMemory {
  search = "";
  private tools = new Map<string, ToolMemory>();
  private listeners = new Set<() => void>();

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };
  tool(server: string, tool: string): ToolMemory {
    return this.tools.get(JSON.stringify([server, tool])) ?? FRESH;
  }
  setSearch(search: string) {
    this.search = search;
    this.changed();
  }
  setDraft(server: string, tool: string, draft: FormDraft) {
    this.tools.set(JSON.stringify([server, tool]), { ...this.tool(server, tool), draft });
    this.changed();
  }
  setCall(server: string, tool: string, change: Partial<CallState>) {
    const kept = this.tool(server, tool);
    this.tools.set(JSON.stringify([server, tool]), { ...kept, call: { ...kept.call, ...change } });
    this.changed();
  }
  private changed() {
    for (const listener of this.listeners) listener();
  }
}

// One per backend: each window (and each test) has its own.
const memories = new WeakMap<Backend, ToolsMemory>();

function memoryOf(backend: Backend): ToolsMemory {
  let memory = memories.get(backend);
  if (!memory) memories.set(backend, (memory = new ToolsMemory()));
  return memory;
}

/** Calls the tool and keeps its progress and its end in the memory, shown or not. */
function startCall(backend: Backend, memory: ToolsMemory, server: string, tool: Tool, args: Record<string, unknown>) {
  const id = crypto.randomUUID();
  const name = tool.name;
  const current = () => memory.tool(server, name).call;
  const update = (change: Partial<CallState>) => {
    if (current().callId === id) memory.setCall(server, name, change);
  };
  // The view (if any) opens as the call starts, a new view for a new call, and hears how it ends.
  const viewedWith = (change: Partial<ViewedCall>) => {
    const v = current().viewed;
    return v && v.id === id ? { ...v, ...change } : v;
  };
  const viewed = toolUiUri(tool) ? { id, args, result: null, cancelled: null } : null;
  memory.setCall(server, name, { ...NO_CALL, callId: id, viewed });
  // A call the server runs as a task: its status follows the task's events.
  const unlisten = backend.onCoreEvent((e) => {
    if (e.type === "task" && e.task.callId === id) update({ task: e.task });
  });
  backend
    .callTool(server, name, args, id, (progress) => update({ progress }))
    .then(
      (result) => update({ callId: null, result, viewed: viewedWith({ result }) }),
      (e: unknown) => {
        const cancelled = isBackendError(e) && e.code === "cancelled";
        update({
          callId: null,
          error: cancelled ? "Cancelled; the server was told." : errorMessage(e),
          moreAccess: isBackendError(e) && e.code === "insufficient_scope",
          viewed: viewedWith({ cancelled: cancelled ? "cancelled" : errorMessage(e) }),
        });
      },
    )
    .finally(() => void unlisten.then((stop) => stop()));
}

/** The meter's two lines, blank until it is read, so the list below does not jump under the
 * pointer when they arrive. */
function MeterPending() {
  return (
    <div data-testid="meter-pending" aria-hidden="true">
      <p className="hint">&nbsp;</p>
      <p className="hint">&nbsp;</p>
    </div>
  );
}

export function ToolsScreen(props: {
  backend: Backend;
  host: HostState;
  selection: ToolSelection;
  onSelect: (selection: ToolSelection) => void;
}) {
  const { backend, host, selection } = props;
  const memory = memoryOf(backend);
  const [tools, setTools] = useState<Tool[]>([]);
  const [error, setError] = useState<string | null>(null);
  // The detail pane shows the chosen tool, else the tool sets or the context limits.
  const [panel, setPanel] = useState<"sets" | "context" | null>(null);
  const search = useSyncExternalStore(memory.subscribe, () => memory.search);
  const picked = pickDefault(host.servers, selection.server, "tools");
  const selected = picked ? (selection.tools[picked] ?? null) : null;
  const setSelected = (name: string) => {
    setPanel(null);
    if (picked) props.onSelect({ server: picked, tools: { ...selection.tools, [picked]: name } });
  };
  const revision = picked ? (host.catalog[picked] ?? 0) : 0;
  const switches = useSwitches(backend, revision);
  // Read again when the context limits are saved.
  const [limitsSaved, setLimitsSaved] = useState(0);
  const meter = useTokenMeter(backend, null, `${toolsKey(host)}/${limitsSaved}/${switches.saved}`);
  const toggle = (which: "sets" | "context") => setPanel(panel === which ? null : which);

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
  const shown = matching(tools, search, (t) => [t.name, t.title, t.description]);
  return (
    <div className="split">
      <section className="list-pane" aria-label="Tools">
        <header className="pane-header">
          <h2>Tools</h2>
          <div className="actions">
            <button data-testid="tool-sets-open" aria-pressed={panel === "sets"} onClick={() => toggle("sets")}>
              Tool sets
            </button>
            <button
              data-testid="context-open"
              aria-pressed={panel === "context"}
              onClick={() => toggle("context")}
              title="When the model searches for tools, and when the chat warns that tool definitions take too much of its context window"
            >
              Context
            </button>
          </div>
        </header>
        <ServerPicker
          servers={host.servers}
          value={picked}
          need="tools"
          onChange={(s) => props.onSelect({ ...selection, server: s })}
        />
        {picked ? (
          <>
            {meter ? (
              <>
                <ServerTokens meter={meter} server={picked} />
                <SearchState meter={meter} />
              </>
            ) : (
              <MeterPending />
            )}
            <NewToolsSwitch server={picked} on={switches.newToolsOn(picked)} onChange={(on) => switches.setNewTools(picked, on)} />
          </>
        ) : null}
        <ListSearch testId="tool-search" label="Search tools" value={search} onChange={(v) => memory.setSearch(v)} />
        <ErrorBanner error={error} testId="error-banner" />
        <ErrorBanner error={switches.error} testId="switch-error" />
        {!picked ? <div className="empty muted">Start a server that offers tools to see them here.</div> : null}
        <SelectableList
          items={shown}
          label="Tools"
          keyOf={(t) => t.name}
          selected={selected}
          onSelect={setSelected}
          testId="tool-item"
          data={(t) => ({ "data-name": t.name })}
        >
          {(t) => (picked ? <ToolItem server={picked} tool={t} switches={switches} meter={meter} /> : null)}
        </SelectableList>
        <NoMatch what="tool" search={search} total={tools.length} shown={shown.length} />
      </section>
      <section className="detail-pane" aria-label="Tool">
        {panel === "sets" ? (
          <ToolSetsPanel backend={backend} host={host} switches={switches} onClose={() => setPanel(null)} />
        ) : panel === "context" ? (
          <ContextPanel
            backend={backend}
            meter={meter}
            onSaved={() => setLimitsSaved((n) => n + 1)}
            onClose={() => setPanel(null)}
          />
        ) : tool && picked ? (
          <ToolPanel key={`${picked}/${tool.name}`} backend={backend} host={host} server={picked} tool={tool} />
        ) : (
          <div className="empty muted">{tools.length ? "Choose a tool." : ""}</div>
        )}
      </section>
    </div>
  );
}

/** A tool in the list: its name and title, badges, what its definition costs the model in tokens,
 * description, and whether the model is offered it (not asked of a tool only its view may call: the
 * model is never offered that). */
function ToolItem(props: { server: string; tool: Tool; switches: Switches; meter: TokenMeter | null }) {
  const { server, tool: t, switches } = props;
  return (
    <>
      <ItemLabel
        name={t.name}
        title={t.title ?? t.annotations?.title}
        icon={t.icons?.[0] && /^(https:|data:)/.test(t.icons[0].src) ? <img className="icon" alt="" src={t.icons[0].src} /> : null}
      >
        {toolUiUri(t) ? <span className="badge" data-testid="tool-has-view">view</span> : null}
        {isAppOnly(t) ? <span className="badge" data-testid="tool-app-only">app only</span> : null}
        <TokenCount meter={props.meter} tokens={toolTokens(props.meter, server, t.name)} testId="tool-tokens" />
      </ItemLabel>
      {t.description ? (
        <div className="muted clamp" data-testid="tool-item-description">
          <Revealed text={t.description} />
        </div>
      ) : null}
      {isAppOnly(t) ? null : (
        <ModelSwitch on={switches.isOn(server, t.name)} onChange={(on) => switches.setTool(server, t.name, on)} />
      )}
    </>
  );
}

function ToolPanel(props: { backend: Backend; host: HostState; server: string; tool: Tool }) {
  const { backend, tool, server } = props;
  const memory = memoryOf(backend);
  const kept = useSyncExternalStore(memory.subscribe, () => memory.tool(server, tool.name));
  const { callId, progress, task, result, error, moreAccess, viewed } = kept.call;
  const uiUri = toolUiUri(tool);
  const [args, setArgs] = useState<Record<string, unknown> | null>(null);
  const [argError, setArgError] = useState<string | null>(null);
  // The server asked for more scopes: signing in again asks for them, then the call is repeated.
  const signIn = useSignIn(backend, server, () => call());

  const call = () => {
    if (memory.tool(server, tool.name).call.callId || !args || argError) return;
    startCall(backend, memory, server, tool, args);
  };
  const claimed = claims(tool);
  return (
    <div className="detail">
      <header className="pane-header">
        <div>
          <h2>
            <Revealed text={tool.title ?? tool.name} />
          </h2>
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
      {tool.description ? (
        <p className="description" data-testid="tool-description">
          <Revealed text={tool.description} />
        </p>
      ) : null}
      <SchemaForm
        schema={tool.inputSchema}
        draft={kept.draft}
        onDraft={(d) => memory.setDraft(server, tool.name, d)}
        onChange={(a, e) => {
          setArgs(a);
          setArgError(e);
        }}
        onSubmit={call}
      />
      <div className="actions">
        <button className="primary" data-testid="call-tool" disabled={!!callId || !args || !!argError} onClick={call}>
          Call
        </button>
        {callId ? (
          <button data-testid="cancel-call" onClick={() => void backend.cancelCall(callId)}>
            Cancel
          </button>
        ) : null}
        {!callId && argError ? (
          <span className="muted call-needs" data-testid="call-needs">
            <Revealed text={argError} />
          </span>
        ) : null}
        <span className="call-status" aria-live="polite">
          {callId ? (
            <>
              <span className="spinner" aria-hidden="true" /> Calling…
              {progress ? (
                <>
                  {" "}
                  <progress value={progress.progress} max={progress.total ?? undefined} />
                  {progress.message ? (
                    <>
                      {" "}
                      <Revealed text={progress.message} />
                    </>
                  ) : null}
                </>
              ) : null}
              {task ? (
                <span data-testid="call-task-status" data-status={task.status}>
                  {" "}
                  Task <Revealed text={taskStatusText(task)} />
                </span>
              ) : null}
            </>
          ) : null}
        </span>
      </div>
      {signIn.waiting ? <SignInWaiting backend={backend} server={server} /> : null}
      <ErrorBanner error={signIn.waiting ? null : error} testId="error-banner">
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
      </ErrorBanner>
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
