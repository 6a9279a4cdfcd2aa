// Live host state for the screens: the server list kept current from host events, per-server MCP
// log messages (bounded), and revisions that tell screens to reload.
import { useCallback, useEffect, useRef, useState } from "react";
import type { Backend } from "./backend";
import { errorMessage } from "./backend";
import type { Error as BackendError } from "./bindings/Error";
import type { CoreEvent } from "./bindings/CoreEvent";
import type { ServerStatus } from "./bindings/ServerStatus";
import type { ServerView } from "./bindings/ServerView";

export const LOG_LIMIT = 500;

export interface LogEntry {
  at: number;
  level: string;
  logger: string | null;
  data: unknown;
}

export interface HostState {
  servers: ServerView[];
  loaded: boolean;
  error: string | null;
  /** Why the configuration file, changed outside Switchboard, cannot be used (servers go on). */
  configProblem: string | null;
  /** Why the OS keychain cannot be had, once known. */
  keychainProblem: BackendError | null;
  logs: Record<string, LogEntry[]>;
  /** Bumped per server when its tools/prompts/templates were re-fetched. */
  catalog: Record<string, number>;
  /** Bumped per server when it says its resource list changed. */
  resourceList: Record<string, number>;
  /** The last resource each server said was updated, with a counter. */
  resourceUpdated: { server: string; uri: string; n: number } | null;
  /** Servers restarting because the user asked, until the restart ends: not failures meanwhile. */
  restartsAsked: ReadonlySet<string>;
  reload: () => Promise<void>;
  /** Restarts a server for the user (see `restartsAsked`). */
  restartServer: (name: string) => Promise<void>;
  /** Says `from` is being saved as `to`, so that the renamed server keeps its place in the list. */
  renaming: (from: string, to: string) => void;
}

/** States that end a restart. */
const RESTART_ENDS = new Set(["running", "stopped", "disabled", "failed"]);

/**
 * `next` in the order of `old` — a server renamed (`renames`: old name → new) where it was — and
 * newcomers after, in their own order. The backend lists a renamed server last.
 */
export function keepOrder(old: ServerView[], next: ServerView[], renames: ReadonlyMap<string, string>): ServerView[] {
  const rank = new Map<string, number>();
  old.forEach((s, i) => rank.set(s.name, i));
  old.forEach((s, i) => {
    const to = renames.get(s.name);
    if (to && !rank.has(to)) rank.set(to, i);
  });
  return next
    .map((s, i) => ({ s, at: rank.get(s.name) ?? old.length + i }))
    .sort((a, b) => a.at - b.at)
    .map((x) => x.s);
}

export function useHost(backend: Backend): HostState {
  const [servers, setServers] = useState<ServerView[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [configProblem, setConfigProblem] = useState<string | null>(null);
  const [keychainProblem, setKeychainProblem] = useState<BackendError | null>(null);
  const [logs, setLogs] = useState<Record<string, LogEntry[]>>({});
  const [catalog, setCatalog] = useState<Record<string, number>>({});
  const [resourceList, setResourceList] = useState<Record<string, number>>({});
  const [resourceUpdated, setResourceUpdated] = useState<HostState["resourceUpdated"]>(null);
  const [restartsAsked, setRestartsAsked] = useState<ReadonlySet<string>>(new Set());
  const reloading = useRef<Promise<void> | null>(null);
  const shown = useRef(servers);
  shown.current = servers;
  const renames = useRef(new Map<string, string>());

  const restartEnded = useCallback(
    (name: string) =>
      setRestartsAsked((asked) => {
        if (!asked.has(name)) return asked;
        const next = new Set(asked);
        next.delete(name);
        return next;
      }),
    [],
  );

  const reload = useCallback(async () => {
    // Coalesce bursts of status events into one request.
    if (reloading.current) return reloading.current;
    const p = backend
      .listServers()
      .then((list) => {
        setServers(keepOrder(shown.current, list, renames.current));
        // A rename is done once its old name is gone.
        for (const from of renames.current.keys()) {
          if (!list.some((s) => s.name === from)) renames.current.delete(from);
        }
        setError(null);
      })
      .catch((e: unknown) => setError(errorMessage(e)))
      .finally(() => {
        setLoaded(true);
        reloading.current = null;
      });
    reloading.current = p;
    return p;
  }, [backend]);

  useEffect(() => {
    let stop: (() => void) | null = null;
    let gone = false;
    const onEvent = (event: CoreEvent) => {
      switch (event.type) {
        case "status":
          // A server this window has not listed yet (installed from the gallery, added by the
          // CLI): list them all again.
          if (!shown.current.some((s) => s.name === event.server)) void reload();
          setServers((list) => {
            const i = list.findIndex((s) => s.name === event.server);
            if (i < 0) return list;
            const next = list.slice();
            next[i] = { ...list[i]!, status: event.status };
            return next;
          });
          if (RESTART_ENDS.has(event.status.state)) restartEnded(event.server);
          if (event.status.state === "running" || event.status.state === "failed" || event.status.state === "restarting") {
            // Fresh stderr tail and config.
            void reload();
          }
          break;
        case "log":
          setLogs((all) => {
            const list = all[event.server] ?? [];
            const entry: LogEntry = { at: Date.now(), level: event.level, logger: event.logger, data: event.data };
            const next = list.length >= LOG_LIMIT ? [...list.slice(list.length - LOG_LIMIT + 1), entry] : [...list, entry];
            return { ...all, [event.server]: next };
          });
          break;
        case "progress":
          // Each call streams its own progress (Backend.callTool's onProgress).
          break;
        case "configChanged":
          // Edited outside Switchboard: the list (and each definition) may have changed.
          setConfigProblem(event.error ? event.error.message : null);
          void reload();
          break;
        case "keychainProblem":
          setKeychainProblem(event.error);
          break;
        case "catalogUpdated":
          setCatalog((c) => ({ ...c, [event.server]: (c[event.server] ?? 0) + 1 }));
          break;
        case "listChanged":
          if (event.list === "resources") {
            setResourceList((c) => ({ ...c, [event.server]: (c[event.server] ?? 0) + 1 }));
          }
          break;
        case "resourceUpdated":
          setResourceUpdated((u) => ({ server: event.server, uri: event.uri, n: (u?.n ?? 0) + 1 }));
          break;
        case "resync":
          // Events were dropped (a restart's end among them, perhaps): read the servers again and
          // have every screen reload its lists.
          setRestartsAsked(new Set());
          void reload().then(() =>
            setServers((list) => {
              setCatalog((c) => Object.fromEntries(list.map((s) => [s.name, (c[s.name] ?? 0) + 1])));
              setResourceList((c) => Object.fromEntries(list.map((s) => [s.name, (c[s.name] ?? 0) + 1])));
              return list;
            }),
          );
          break;
      }
    };
    void backend.onCoreEvent(onEvent).then((unlisten) => {
      if (gone) unlisten();
      else stop = unlisten;
    });
    void reload();
    void backend
      .keychainProblem()
      .then((problem) => {
        if (!gone && problem) setKeychainProblem(problem);
      })
      .catch(() => undefined);
    return () => {
      gone = true;
      stop?.();
    };
  }, [backend, reload, restartEnded]);

  const restartServer = async (name: string) => {
    setRestartsAsked((asked) => new Set(asked).add(name));
    try {
      await backend.restartServer(name);
    } catch (e) {
      restartEnded(name);
      throw e;
    }
  };
  const renaming = (from: string, to: string) => {
    if (from !== to) renames.current.set(from, to);
  };

  return { servers, loaded, error, configProblem, keychainProblem, logs, catalog, resourceList, resourceUpdated, restartsAsked, reload, restartServer, renaming };
}

/** Servers that can take requests. */
export function running(servers: ServerView[]): ServerView[] {
  return servers.filter((s) => s.status.state === "running");
}

/** The capability under which a server offers skills (the MCP Skills extension, SEP-2640). */
export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

/** What a screen lists of a server: one of its capabilities, or its skills (an extension). */
export type Offer = "tools" | "resources" | "prompts" | "skills";

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Whether `server` runs and offers `what`, as its handshake said. */
export function offers(server: ServerView, what: Offer): boolean {
  if (server.status.state !== "running") return false;
  const capabilities = server.status.summary.capabilities;
  if (what !== "skills") return what in capabilities;
  const extensions = capabilities["extensions"];
  return isObject(extensions) && isObject(extensions[SKILLS_EXTENSION]);
}

/** A short human status line. */
export function statusText(view: ServerView, now: number, since: number): string {
  const s = view.status;
  switch (s.state) {
    case "disabled":
      return "Disabled";
    case "stopped":
      return "Stopped";
    case "needsTrust":
      return "Not trusted yet: review what it runs before it starts";
    case "starting":
      return s.attempt > 0 ? `Starting (attempt ${s.attempt + 1})…` : "Starting…";
    case "running":
      return `Running · ${s.summary.protocolVersion}`;
    case "stopping":
      return "Stopping…";
    case "restarting": {
      const left = Math.max(0, Math.ceil((s.retryInMs - Math.max(0, now - since)) / 1000));
      return `Restarting in ${left} s (attempt ${s.attempt}) — ${s.error.message}`;
    }
    case "failed":
      return needsSignIn(s) ? "Sign in required" : `Failed — ${s.error.message}`;
    case "invalid":
      return "Not valid: its entry in the configuration file cannot be read";
  }
}

/** A server that is waiting for the person to sign in (first time or again): not failing, just asking. */
export function needsSignIn(s: ServerStatus): boolean {
  return s.state === "failed" && (s.error.code === "auth_required" || s.error.code === "sign_in_expired");
}
