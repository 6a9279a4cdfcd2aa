// An MCP Apps view in the window: the tool's `ui://` resource in a sandboxed iframe (scripts only:
// an opaque origin, no top navigation, no popups), driven through the official AppBridge whose
// requests go to the Backend under the view's id. It asks before granting the device permissions a
// view declares, sends the call's input, result or cancellation, follows the window's theme and
// size, shows the view inline or over the whole window, and tears it down before closing it.
// A view is bounded as a server is: few requests waiting, none too large (app-frame/limits.ts; the
// person is told once when the excess was refused), and full screen only after the person's
// gesture in it (app-frame/gesture.ts).
// What a view wants said to the model (`ui/message`, `ui/update-model-context`) is never sent
// from here: the screen decides (chat: the person sends it; elsewhere it is only shown).
import type { AppBridge, McpUiDisplayMode, McpUiResourcePermissions } from "@modelcontextprotocol/ext-apps/app-bridge";
import { buildAllowAttribute } from "@modelcontextprotocol/ext-apps/app-bridge";
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";
import type { Backend } from "../backend";
import { errorMessage } from "../backend";
import type { AppPermissions } from "../bindings/AppPermissions";
import type { AppView } from "../bindings/AppView";
import type { AppContextParams, AppMessageParams, CallToolResult, Tool } from "../mcp";
import { connectBridge, createBridge, teardown } from "./app-frame/bridge";
import { FrameGesture, grantedMode, watchFocus } from "./app-frame/gesture";
import { clampHeight, currentTheme, hostContext, INITIAL_HEIGHT, watchTheme } from "./app-frame/host-context";
import { sdkResult } from "./app-frame/tool-ui";
import { ContentView } from "./content";
import { ErrorBanner } from "./error-banner";

/** How long a view has to answer `ui/resource-teardown` before it is closed anyway. */
export const TEARDOWN_MS = 1000;
/** How long a view has to initialize before the frame says it did not start. */
export const INIT_TIMEOUT_MS = 15000;
const MAX_LOG = 50;

const PERMISSION_NAMES: Record<keyof AppPermissions, string> = {
  camera: "camera",
  microphone: "microphone",
  geolocation: "location",
  clipboardWrite: "writing to the clipboard",
};

function declared(p: AppPermissions): (keyof AppPermissions)[] {
  return (Object.keys(PERMISSION_NAMES) as (keyof AppPermissions)[]).filter((k) => p[k] === true);
}

/** Where a view's messages and context go; without one the frame shows them itself. */
export interface ViewOutlets {
  /** True when the message now waits for the person to send or discard it. */
  onMessage?: ((view: AppView, message: AppMessageParams) => boolean) | undefined;
  onContext?: ((view: AppView, context: AppContextParams) => void) | undefined;
}

export interface AppFrameProps extends ViewOutlets {
  backend: Backend;
  view: AppView;
  tool: Tool;
  /** The call's arguments, once known. */
  args: Record<string, unknown> | null;
  result: CallToolResult | null;
  /** Why the call ended without a result (cancelled, refused, failed), if it did. */
  cancelled: string | null;
  initTimeoutMs?: number;
}

type Note = { kind: "message"; message: AppMessageParams } | { kind: "context"; context: AppContextParams };

export function AppFrame(props: AppFrameProps) {
  const { backend, view, tool } = props;
  const wanted = declared(view.permissions);
  // Undecided until the person answers; a view that declares nothing needs no answer.
  const [granted, setGranted] = useState<McpUiResourcePermissions | null>(wanted.length ? null : {});
  const [ready, setReady] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [mode, setMode] = useState<McpUiDisplayMode>("inline");
  const [height, setHeight] = useState(INITIAL_HEIGHT);
  const [box, setBox] = useState<{ width: number; height: number } | null>(null);
  const [theme, setTheme] = useState(currentTheme);
  const [notes, setNotes] = useState<Note[]>([]);
  const [log, setLog] = useState<{ level: string; text: string }[]>([]);
  const [limited, setLimited] = useState(false);
  const [gesture] = useState(() => new FrameGesture());
  const frame = useRef<HTMLIFrameElement>(null);
  const container = useRef<HTMLDivElement>(null);
  const bridgeRef = useRef<AppBridge | null>(null);
  const connected = useRef(false);
  const latest = useRef(props);
  latest.current = props;
  const modeRef = useRef(mode);
  modeRef.current = mode;
  const tornDown = useRef<Promise<void> | null>(null);
  const closedView = useRef(false);
  const [closed, setClosed] = useState(false);

  const closeView = useCallback(() => {
    if (closedView.current) return;
    closedView.current = true;
    const id = view.viewId;
    void (tornDown.current ?? Promise.resolve()).then(() => backend.closeAppView(id).catch(() => undefined));
  }, [backend, view.viewId]);

  // The view is closed in the core when the frame goes, whatever state it was in.
  useEffect(() => () => closeView(), [closeView]);
  // After the bridge's cleanup (a layout effect) chained its own close onto the teardown.
  useEffect(() => {
    if (closed) closeView();
  }, [closed, closeView]);

  useEffect(() => watchTheme(setTheme), []);

  useEffect(() => {
    const el = container.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(() => {
      const r = el.getBoundingClientRect();
      setBox({ width: Math.round(r.width), height: Math.round(r.height) });
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  const context = hostContext({ tool, theme, displayMode: mode, width: box?.width ?? null, height: box?.height ?? null });
  const contextRef = useRef(context);
  contextRef.current = context;

  const mounted = granted !== null && !closed;
  // A layout effect: the bridge listens before the frame's document can run and say hello.
  useLayoutEffect(() => {
    if (!mounted) return;
    const el = frame.current;
    const win = el?.contentWindow;
    if (!el || !win) {
      setError("The view could not be shown: its frame has no window.");
      return;
    }
    const bridge = createBridge({
      backend,
      view,
      granted,
      context: contextRef.current,
      events: {
        initialized: () => {
          setReady(true);
          setError(null);
        },
        message: (message) => {
          const outlet = latest.current.onMessage;
          if (outlet) return outlet(view, message);
          setNotes((n) => [...n, { kind: "message", message }]);
          return false;
        },
        context: (ctx) => {
          const outlet = latest.current.onContext;
          if (outlet) return outlet(view, ctx);
          // A view's newer context replaces its older one.
          setNotes((n) => [...n.filter((x) => x.kind !== "context"), { kind: "context", context: ctx }]);
        },
        displayMode: (requested) => {
          const next = grantedMode(requested, modeRef.current, gesture);
          setMode(next);
          return next;
        },
        size: (_width, h) => {
          const next = clampHeight(h);
          if (next !== null) setHeight(next);
        },
        log: (level, data) =>
          setLog((l) => [...l, { level, text: typeof data === "string" ? data : JSON.stringify(data) }].slice(-MAX_LOG)),
        requestTeardown: () => void close(),
        limited: () => setLimited(true),
      },
    });
    const unwatch = watchFocus(el, gesture);
    bridgeRef.current = bridge;
    connectBridge(bridge, win).then(
      () => {
        connected.current = true;
      },
      (e: unknown) => setError(`The view could not be connected: ${errorMessage(e)}`),
    );
    return () => {
      unwatch();
      connected.current = false;
      bridgeRef.current = null;
      // Sent while the frame is still there; a view that does not answer in time is closed anyway.
      const done = tornDown.current ?? teardown(bridge, TEARDOWN_MS);
      tornDown.current = done.then(() => bridge.close().catch(() => undefined));
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the bridge lives as long as the frame: `granted` and `view` are fixed once mounted
  }, [mounted]);

  // The person (or the view itself) closes it: teardown first, while the view can still answer.
  const close = async () => {
    const bridge = bridgeRef.current;
    if (bridge && !tornDown.current) tornDown.current = teardown(bridge, TEARDOWN_MS);
    await tornDown.current;
    setMode("inline");
    setClosed(true);
  };

  useEffect(() => {
    if (!mounted || ready) return;
    const timer = setTimeout(
      () => setError("The view did not start: it never initialized (it may have failed to load)."),
      props.initTimeoutMs ?? INIT_TIMEOUT_MS,
    );
    return () => clearTimeout(timer);
  }, [mounted, ready, props.initTimeoutMs]);

  // The call's input, then its result or cancellation, each once, after the view initialized.
  const sent = useRef({ input: false, result: false, cancelled: false });
  useEffect(() => {
    const bridge = bridgeRef.current;
    if (!ready || !bridge) return;
    const s = sent.current;
    const quiet = () => undefined;
    if (props.args && !s.input) {
      s.input = true;
      bridge.sendToolInput({ arguments: props.args }).catch(quiet);
    }
    if (props.result && !s.result && !s.cancelled) {
      s.result = true;
      bridge.sendToolResult(sdkResult(props.result)).catch(quiet);
    } else if (props.cancelled !== null && !s.result && !s.cancelled) {
      s.cancelled = true;
      bridge.sendToolCancelled({ reason: props.cancelled }).catch(quiet);
    }
  }, [ready, props.args, props.result, props.cancelled]);

  // Theme, size and display mode changes (setHostContext sends only what changed).
  const contextKey = JSON.stringify(context);
  useEffect(() => {
    if (connected.current) bridgeRef.current?.setHostContext(contextRef.current);
  }, [contextKey]);

  useEffect(() => {
    if (mode !== "fullscreen") return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") setMode("inline");
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [mode]);

  const title = tool.title ?? tool.name;
  if (closed) {
    return (
      <div className="app-frame closed muted" data-testid="app-frame-closed">
        The view of {title} was closed.
      </div>
    );
  }
  const classes = ["app-frame", mode === "fullscreen" ? "fullscreen" : "inline", view.prefersBorder === false ? "borderless" : ""];
  return (
    <div ref={container} className={classes.filter(Boolean).join(" ")} data-testid="app-frame" data-mode={mode} data-ready={ready}>
      <div className="app-frame-bar">
        <span className="muted small">
          View of <strong>{title}</strong> from {view.server}
        </span>
        {mounted ? (
          <button
            className="small"
            data-testid={mode === "fullscreen" ? "app-exit-fullscreen" : "app-fullscreen"}
            onClick={() => setMode(mode === "fullscreen" ? "inline" : "fullscreen")}
          >
            {mode === "fullscreen" ? "Exit full screen" : "Full screen"}
          </button>
        ) : null}
        <button className="small" data-testid="app-close" aria-label="Close the view" onClick={() => void close()}>
          Close
        </button>
      </div>
      {limited ? (
        <div className="banner warn app-limited" data-testid="app-limited" role="status">
          This view sent too many requests (or too large ones); Switchboard refused the excess.{" "}
          <button className="small" onClick={() => setLimited(false)}>
            Dismiss
          </button>
        </div>
      ) : null}
      {granted === null ? (
        <div className="banner warn" data-testid="app-permissions">
          This view asks for: {wanted.map((k) => PERMISSION_NAMES[k]).join(", ")}.{" "}
          <button className="small" data-testid="app-permissions-allow" onClick={() => setGranted(pick(view.permissions, wanted))}>
            Allow
          </button>{" "}
          <button className="small primary" data-testid="app-permissions-deny" onClick={() => setGranted({})}>
            Don't allow
          </button>
        </div>
      ) : null}
      <ErrorBanner error={error} testId="app-frame-error" />
      {mounted ? (
        <iframe
          ref={frame}
          className={error && !ready ? "app-view failed" : "app-view"}
          data-testid="app-iframe"
          title={`View of ${title}`}
          src={view.src}
          sandbox="allow-scripts"
          allow={buildAllowAttribute(granted)}
          referrerPolicy="no-referrer"
          style={mode === "inline" ? { height } : undefined}
          onError={() => setError("The view failed to load.")}
        />
      ) : null}
      {notes.map((n, i) => (
        <ViewNote key={i} backend={backend} note={n} onDismiss={() => setNotes((list) => list.filter((_, j) => j !== i))} />
      ))}
      {log.length ? (
        <details className="app-log" data-testid="app-log">
          <summary className="muted small">The view's log ({log.length})</summary>
          <pre className="text-block">{log.map((l) => `[${l.level}] ${l.text}`).join("\n")}</pre>
        </details>
      ) : null}
    </div>
  );
}

function pick(p: AppPermissions, keys: (keyof AppPermissions)[]): McpUiResourcePermissions {
  const out: McpUiResourcePermissions = {};
  for (const k of keys) if (p[k]) out[k] = {};
  return out;
}

/** A message or context the view produced where there is no conversation: shown, not sent. */
function ViewNote(props: { backend: Backend; note: Note; onDismiss: () => void }) {
  const n = props.note;
  const blocks = n.kind === "message" ? n.message.content : (n.context.content ?? []);
  const structured = n.kind === "context" ? n.context.structuredContent : undefined;
  return (
    <div className="banner warn app-note" data-testid={n.kind === "message" ? "app-message-note" : "app-context-note"}>
      <div>
        {n.kind === "message"
          ? "The view wants to send this message, but there is no conversation here: it was not sent."
          : "Context the view wants the model to have (there is no conversation here):"}
        <button className="small" onClick={props.onDismiss}>
          Dismiss
        </button>
      </div>
      {(Array.isArray(blocks) ? blocks : []).map((b, i) => (
        <ContentView key={i} backend={props.backend} block={b} />
      ))}
      {structured !== undefined ? <pre className="text-block">{JSON.stringify(structured, null, 2)}</pre> : null}
    </div>
  );
}

/** Opens the view of a tool's UI resource, then shows it; says why when it cannot be opened. */
export function ToolAppView(
  props: Omit<AppFrameProps, "view"> & { server: string; uri: string },
) {
  const { backend, server, tool, uri } = props;
  const [view, setView] = useState<AppView | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setView(null);
    setError(null);
    backend.openAppView(server, tool.name, uri).then(
      (v) => (live ? setView(v) : void backend.closeAppView(v.viewId).catch(() => undefined)),
      (e: unknown) => live && setError(errorMessage(e)),
    );
    return () => {
      live = false;
    };
  }, [backend, server, tool.name, uri]);
  if (error)
    return (
      <div className="banner error" data-testid="app-frame-error">
        The view of {tool.title ?? tool.name} could not be opened: {error}
      </div>
    );
  if (!view)
    return (
      <div className="muted" data-testid="app-frame-opening">
        <span className="spinner" aria-hidden="true" /> Opening the view…
      </div>
    );
  const { server: _s, uri: _u, ...rest } = props;
  return <AppFrame key={view.viewId} {...rest} view={view} />;
}
