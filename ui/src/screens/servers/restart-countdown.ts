// The clock behind a restarting server's countdown: a once-a-second tick while one is counting,
// and when each server's current status arrived.
import { useEffect, useState } from "react";
import type { ServerView } from "../../bindings/ServerView";

/** Ticks once a second while something counts down. */
export function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [active]);
  return now;
}

/** When each server's current status arrived (for the restart countdown). */
export function useSince(servers: ServerView[]): Record<string, number> {
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
