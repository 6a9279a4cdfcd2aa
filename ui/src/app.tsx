// The window: a sidebar of screens with a live server summary, and the chosen screen.
import type { ReactNode } from "react";
import { lazy, Suspense, useCallback, useEffect, useState } from "react";
import type { Backend } from "./backend";
import { errorMessage } from "./backend";
import { OpenLink } from "./components/content";
import { ErrorDetails } from "./components/error-details";
import type { Error as BackendError } from "./bindings/Error";
import type { Opened } from "./bindings/Opened";
import type { SkillForChat } from "./bindings/SkillForChat";
import { ReviewDialog } from "./components/review-dialog";
import { SignInWaiting, useSignIn } from "./components/sign-in";
import { needsSignIn, useHost } from "./host";
import { ServersScreen } from "./screens/servers";
import type { ScreenId } from "./shell";
import { SCREENS } from "./shell";
import type { ToolSelection } from "./screens/tools";
import { withSkill } from "./screens/chat/blocks";

// Only the first screen is in the window's first script. The others load when first opened, and
// with them what only they use (the MCP Apps bridge brings the MCP SDK and zod): the window
// paints sooner and an idle window holds less (scripts/bench-app.sh measures both).
const GalleryScreen = lazy(() => import("./screens/gallery").then((m) => ({ default: m.GalleryScreen })));
const ChatScreen = lazy(() => import("./screens/chat").then((m) => ({ default: m.ChatScreen })));
const ToolsScreen = lazy(() => import("./screens/tools").then((m) => ({ default: m.ToolsScreen })));
const TasksScreen = lazy(() => import("./screens/tasks").then((m) => ({ default: m.TasksScreen })));
const ResourcesScreen = lazy(() => import("./screens/resources").then((m) => ({ default: m.ResourcesScreen })));
const PromptsScreen = lazy(() => import("./screens/prompts").then((m) => ({ default: m.PromptsScreen })));
const SkillsScreen = lazy(() => import("./screens/skills").then((m) => ({ default: m.SkillsScreen })));
const RootsScreen = lazy(() => import("./screens/roots").then((m) => ({ default: m.RootsScreen })));
const ModelsScreen = lazy(() => import("./screens/models").then((m) => ({ default: m.ModelsScreen })));
const ApprovalsScreen = lazy(() => import("./screens/approvals").then((m) => ({ default: m.ApprovalsScreen })));
const TrafficScreen = lazy(() => import("./screens/traffic").then((m) => ({ default: m.TrafficScreen })));

/** Listens while mounted: `subscribe` resolves to its unlisten, which runs on unmount even when
 * it resolves after the unmount. */
function useSubscription(subscribe: () => Promise<() => void>) {
  useEffect(() => {
    let stop: (() => void) | null = null;
    let gone = false;
    void subscribe().then((unlisten) => {
      if (gone) unlisten();
      else stop = unlisten;
    });
    return () => {
      gone = true;
      stop?.();
    };
  }, [subscribe]);
}

export function App(props: { backend: Backend }) {
  const host = useHost(props.backend);
  const [screen, setScreen] = useState<ScreenId>("servers");
  const [tools, setTools] = useState<ToolSelection>({ server: null, tools: {} });
  // What the app was asked to open from outside, until the Gallery has taken it: whichever screen
  // was showing, the Gallery comes forward with it.
  const [opened, setOpened] = useState<Opened | null>(null);
  const openedTaken = useCallback(() => setOpened(null), []);
  // Skills loaded for the chat's next message (on the Skills screen, or in the chat): kept here,
  // so that they wait while another screen shows.
  const [chatSkills, setChatSkills] = useState<SkillForChat[]>([]);
  const skillToChat = useCallback((skill: SkillForChat) => {
    setChatSkills((list) => withSkill(list, skill));
    setScreen("chat");
  }, []);
  const { backend } = props;
  useSubscription(
    useCallback(
      () =>
        backend.onOpened((o) => {
          setOpened(o);
          setScreen("gallery");
        }),
      [backend],
    ),
  );
  // scripts/bench_app.py reports when the live window was first drawn, beside the first paint.
  useEffect(() => void performance.mark("app-rendered"), []);
  const up = host.servers.filter((s) => s.status.state === "running").length;
  const failing = host.servers.filter(
    (s) =>
      (s.status.state === "failed" || s.status.state === "restarting") && !needsSignIn(s.status) && !host.restartsAsked.has(s.name),
  ).length;
  return (
    <OpenLink.Provider value={(url) => void props.backend.openExternal(url).catch((e: unknown) => console.warn(errorMessage(e)))}>
      <div className="app">
        <nav className="sidebar" aria-label="Screens">
          <div className="brand">Switchboard</div>
          <ul
            role="tablist"
            aria-orientation="vertical"
            onKeyDown={(e) => {
              const i = SCREENS.findIndex((s) => s.id === screen);
              const move = e.key === "ArrowDown" ? 1 : e.key === "ArrowUp" ? -1 : 0;
              const next = SCREENS[i + move];
              if (move && next) {
                e.preventDefault();
                setScreen(next.id);
                document.querySelector<HTMLElement>(`[data-testid=nav-${next.id}]`)?.focus();
              }
            }}
          >
            {SCREENS.map((s) => (
              <li key={s.id}>
                <button
                  role="tab"
                  aria-selected={screen === s.id}
                  tabIndex={screen === s.id ? 0 : -1}
                  data-testid={`nav-${s.id}`}
                  className={screen === s.id ? "nav active" : "nav"}
                  onClick={() => setScreen(s.id)}
                >
                  {s.label}
                </button>
              </li>
            ))}
          </ul>
          <div className="summary muted" aria-live="polite">
            {host.servers.length ? `${up} of ${host.servers.length} running` : "No servers"}
            {failing ? <div className="warn-text">{failing} failing</div> : null}
          </div>
        </nav>
        <main className="main">
          {host.configProblem ? (
            <div className="banner error" role="alert" data-testid="config-problem">
              <strong>The configuration file was changed and cannot be read.</strong> {host.configProblem}. Your servers go on as
              they were; nothing you change here is saved until the file is fixed.
            </div>
          ) : null}
          {host.keychainProblem ? <KeychainMissing problem={host.keychainProblem} /> : null}
          <NavigationRefused backend={props.backend} />
          {host.servers
            .filter((s) => s.status.state === "failed" && s.status.error.code === "sign_in_expired")
            .map((s) => (
              <SignInEnded key={s.name} backend={props.backend} server={s.name} onDone={() => void host.reload()} />
            ))}
          {screen === "servers" ? <ServersScreen backend={props.backend} host={host} /> : null}
          {screen === "gallery" ? (
            <Loaded element={<GalleryScreen
                  backend={props.backend}
                  opened={opened}
                  onOpenedTaken={openedTaken}
                  onInstalled={() => void host.reload()}
                />} />
          ) : null}
          {screen === "chat" ? (
            <Loaded element={<ChatScreen backend={props.backend} host={host} skills={chatSkills} onSkills={setChatSkills} />} />
          ) : null}
          {screen === "tools" ? (
            <Loaded element={<ToolsScreen backend={props.backend} host={host} selection={tools} onSelect={setTools} />} />
          ) : null}
          {screen === "tasks" ? <Loaded element={<TasksScreen backend={props.backend} />} /> : null}
          {screen === "resources" ? <Loaded element={<ResourcesScreen backend={props.backend} host={host} />} /> : null}
          {screen === "prompts" ? <Loaded element={<PromptsScreen backend={props.backend} host={host} />} /> : null}
          {screen === "skills" ? (
            <Loaded element={<SkillsScreen backend={props.backend} host={host} onUseInChat={skillToChat} />} />
          ) : null}
          {screen === "roots" ? <Loaded element={<RootsScreen backend={props.backend} host={host} />} /> : null}
          {screen === "models" ? <Loaded element={<ModelsScreen backend={props.backend} />} /> : null}
          {screen === "approvals" ? <Loaded element={<ApprovalsScreen backend={props.backend} host={host} />} /> : null}
          {screen === "traffic" ? <Loaded element={<TrafficScreen backend={props.backend} host={host} />} /> : null}
        </main>
        <ReviewDialog backend={props.backend} />
      </div>
    </OpenLink.Provider>
  );
}

/** A screen whose script may still be loading. Each screen has a boundary of its own: one shared
 *  boundary would keep the screen before on the page, hidden, until the next had loaded. */
function Loaded(props: { element: ReactNode }) {
  return (
    <Suspense
      fallback={
        <div className="empty muted" data-testid="screen-loading">
          Loading…
        </div>
      }
    >
      {props.element}
    </Suspense>
  );
}

/** A sign-in that ended while the server was in use: said on every screen, with the way back. */
/** Says when the shell kept the window on the app: a page or script tried to send it elsewhere. */
function NavigationRefused(props: { backend: Backend }) {
  const [refused, setRefused] = useState<{ host: string; count: number } | null>(null);
  const { backend } = props;
  useSubscription(
    useCallback(
      () => backend.onNavigationRefused((host) => setRefused((r) => ({ host, count: (r?.count ?? 0) + 1 }))),
      [backend],
    ),
  );
  if (!refused) return null;
  return (
    <div className="banner warn" role="status" data-testid="navigation-refused" data-count={refused.count}>
      Something tried to take this window to <strong>{refused.host}</strong>; Switchboard kept it here. Links you follow
      open in your browser.{" "}
      <button className="link" data-testid="navigation-refused-dismiss" onClick={() => setRefused(null)}>
        Dismiss
      </button>
    </div>
  );
}

/** No OS keychain: what does not work without one, and how to get one. Nothing else is affected. */
function KeychainMissing(props: { problem: BackendError }) {
  return (
    <div className="banner warn" role="status" data-testid="keychain-problem">
      <strong>No OS keychain could be opened.</strong> Sign-ins last only until Switchboard quits, and provider keys and
      server secrets cannot be saved or read; servers that need no secret work as usual. To fix it, start a Secret
      Service such as gnome-keyring or KeePassXC, unlock it and restart Switchboard, or give a secret as{" "}
      <code>{"${env:NAME}"}</code> in the configuration.
      <ErrorDetails error={props.problem} />
    </div>
  );
}

function SignInEnded(props: { backend: Backend; server: string; onDone: () => void }) {
  const signIn = useSignIn(props.backend, props.server, props.onDone);
  if (signIn.waiting) return <SignInWaiting backend={props.backend} server={props.server} />;
  return (
    <div className="banner warn" role="alert" data-testid="sign-in-ended">
      Your sign-in to <strong>{props.server}</strong> has ended (it expired or was revoked); its tools are unavailable
      until you sign in again.{" "}
      <button className="primary" data-testid="sign-in-ended-again" onClick={signIn.start}>
        Sign in again
      </button>
      {signIn.error ? <div className="error">{signIn.error}</div> : null}
    </div>
  );
}
