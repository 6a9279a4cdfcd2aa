// The window: a sidebar of screens with a live server summary, and the chosen screen.
import { useState } from "react";
import type { Backend } from "./backend";
import { errorMessage } from "./backend";
import { OpenLink } from "./components/content";
import { ReviewDialog } from "./components/review-dialog";
import { SignInWaiting, useSignIn } from "./components/sign-in";
import { needsSignIn, useHost } from "./host";
import { ApprovalsScreen } from "./screens/approvals";
import { ChatScreen } from "./screens/chat";
import { ModelsScreen } from "./screens/models";
import { PromptsScreen } from "./screens/prompts";
import { ResourcesScreen } from "./screens/resources";
import { RootsScreen } from "./screens/roots";
import { ServersScreen } from "./screens/servers";
import { TasksScreen } from "./screens/tasks";
import type { ToolSelection } from "./screens/tools";
import { ToolsScreen } from "./screens/tools";

const SCREENS = [
  { id: "servers", label: "Servers" },
  { id: "chat", label: "Chat" },
  { id: "tools", label: "Tools" },
  { id: "tasks", label: "Tasks" },
  { id: "resources", label: "Resources" },
  { id: "prompts", label: "Prompts" },
  { id: "roots", label: "Roots" },
  { id: "models", label: "Models" },
  { id: "approvals", label: "Approvals" },
] as const;

type ScreenId = (typeof SCREENS)[number]["id"];

export function App(props: { backend: Backend }) {
  const host = useHost(props.backend);
  const [screen, setScreen] = useState<ScreenId>("servers");
  const [tools, setTools] = useState<ToolSelection>({ server: null, tools: {} });
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
          {host.servers
            .filter((s) => s.status.state === "failed" && s.status.error.code === "sign_in_expired")
            .map((s) => (
              <SignInEnded key={s.name} backend={props.backend} server={s.name} onDone={() => void host.reload()} />
            ))}
          {screen === "servers" ? <ServersScreen backend={props.backend} host={host} /> : null}
          {screen === "chat" ? <ChatScreen backend={props.backend} host={host} /> : null}
          {screen === "tools" ? <ToolsScreen backend={props.backend} host={host} selection={tools} onSelect={setTools} /> : null}
          {screen === "tasks" ? <TasksScreen backend={props.backend} /> : null}
          {screen === "resources" ? <ResourcesScreen backend={props.backend} host={host} /> : null}
          {screen === "prompts" ? <PromptsScreen backend={props.backend} host={host} /> : null}
          {screen === "roots" ? <RootsScreen backend={props.backend} host={host} /> : null}
          {screen === "models" ? <ModelsScreen backend={props.backend} /> : null}
          {screen === "approvals" ? <ApprovalsScreen backend={props.backend} host={host} /> : null}
        </main>
        <ReviewDialog backend={props.backend} />
      </div>
    </OpenLink.Provider>
  );
}

/** A sign-in that ended while the server was in use: said on every screen, with the way back. */
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
