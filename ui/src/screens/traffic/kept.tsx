// Kept sessions: "Keep session" writes every message to and from every server to the database
// until stopped, past what the rings hold; the panel lists the sessions kept (when, how many
// messages, how much, whether one filled up or left messages out) to open in the list or delete.
import { useCallback, useEffect, useState } from "react";
import type { Backend } from "../../backend";
import { errorMessage } from "../../backend";
import type { KeptSession } from "../../bindings/KeptSession";
import type { KeptSessions } from "../../bindings/KeptSessions";
import { ErrorBanner } from "../../components/error-banner";
import { clockTime, count, humanSize } from "./model";

/** How often the list is read again while a session grows. */
const REFRESH_MS = 2000;

export interface Keeping {
  list: KeptSessions | null;
  /** The session being kept, as last read. */
  current: KeptSession | null;
  error: string | null;
  keep: () => Promise<void>;
  stop: () => Promise<void>;
  remove: (id: number) => Promise<void>;
}

export function useKeeping(backend: Backend): Keeping {
  const [list, setList] = useState<KeptSessions | null>(null);
  const [error, setError] = useState<string | null>(null);
  const refresh = useCallback(async () => {
    try {
      setList(await backend.keptTrafficSessions());
    } catch (e) {
      setError(errorMessage(e));
    }
  }, [backend]);
  const keeping = list?.keeping ?? null;
  useEffect(() => {
    void refresh();
    if (keeping === null) return;
    const timer = setInterval(() => void refresh(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [refresh, keeping]);
  const act = async (change: () => Promise<unknown>) => {
    try {
      await change();
      setError(null);
    } catch (e) {
      setError(errorMessage(e));
    }
    await refresh();
  };
  return {
    list,
    current: list?.sessions.find((s) => s.id === keeping) ?? null,
    error,
    keep: () => act(() => backend.keepTraffic()),
    stop: () => act(() => backend.stopKeepingTraffic()),
    remove: (id) => act(() => backend.deleteKeptTraffic(id)),
  };
}

/** When a session was kept, in words. */
export function keptWhen(s: KeptSession): string {
  const day = new Date(s.startedMs).toLocaleDateString();
  const end = s.endedMs === null ? "now" : clockTime(s.endedMs);
  return `${day} ${clockTime(s.startedMs)} to ${end}`;
}

function keptSize(s: KeptSession): string {
  const parts = [count(s.messages), humanSize(s.bytes)];
  if (s.full) parts.push("full: it stopped keeping at its bounds");
  if (s.dropped) parts.push(`${count(s.dropped)} left out`);
  return parts.join(", ");
}

/** Opened by the screen's "Kept sessions" button (`aria-controls="traffic-sessions"`). */
export function KeptSessionsPanel(props: { keeping: Keeping; viewing: number | null; onView: (s: KeptSession) => void }) {
  const { list, error } = props.keeping;
  const sessions = list?.sessions ?? [];
  return (
    <section id="traffic-sessions" className="context-form traffic-sessions" data-testid="traffic-sessions" aria-label="Kept sessions">
      <p className="muted hint">
        Sessions you kept stay in Switchboard's database (secrets replaced, as here) until you delete them.
      </p>
      <ErrorBanner error={error} testId="traffic-sessions-error" role="alert" />
      {sessions.length ? (
        <ul className="traffic-session-list">
          {sessions.map((s) => (
            <li key={s.id} data-testid="traffic-session" data-session={s.id} aria-current={s.id === props.viewing}>
              <span>{keptWhen(s)}</span>
              <span className="muted">{keptSize(s)}</span>
              {s.id === list?.keeping ? <span className="badge">being kept</span> : null}
              <button className="small" data-testid="traffic-session-view" onClick={() => props.onView(s)}>
                View
              </button>
              <button
                className="small"
                data-testid="traffic-session-delete"
                disabled={s.id === list?.keeping}
                onClick={() => void props.keeping.remove(s.id)}
              >
                Delete
              </button>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted" data-testid="traffic-sessions-empty">
          No session kept yet. "Keep session" keeps every message from then on, until you stop it.
        </p>
      )}
    </section>
  );
}
