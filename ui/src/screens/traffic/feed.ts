// The Traffic screen's live feed: asks the core for what came since the last answer, one request
// at a time, every POLL_MS while the screen is shown (at once again while pages come back full:
// catching up); new filters start over from the view's floor. Paused, it stops asking once
// caught up, and goes on from where it stopped on resume (the rings may have let some go
// meanwhile: the footer's evicted count says so). "Clear view" sets the floor to the last
// message seen: nothing at or below it is shown again. Given a kept session, it reads that
// session instead (which grows while it is being kept), from its start.
import { useCallback, useEffect, useRef, useState } from "react";
import type { Backend } from "../../backend";
import { errorMessage } from "../../backend";
import type { TrafficFilters, TrafficView } from "./model";
import { appendPage, EMPTY_VIEW, PAGE_LIMIT, POLL_MS, queryOf, restart } from "./model";

/** How long to wait after a failed request before asking again. */
const RETRY_MS = 2000;

export interface TrafficFeed {
  view: TrafficView;
  error: string | null;
  /** The sequence number below which nothing is shown (0: nothing cleared). */
  floor: number;
  /** Hides every message seen so far. */
  clear: () => void;
}

export function useTrafficFeed(
  backend: Backend,
  filters: TrafficFilters,
  paused: boolean,
  session: number | null = null,
): TrafficFeed {
  const [view, setView] = useState<TrafficView>(EMPTY_VIEW);
  const [error, setError] = useState<string | null>(null);
  const [floor, setFloor] = useState(0);
  const floorRef = useRef(0);
  const cursor = useRef(0);
  const pausedRef = useRef(paused);
  const readFrom = useRef(session);
  const wake = useRef<() => void>(() => undefined);

  useEffect(() => {
    let stopped = false;
    let waiting = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    if (readFrom.current !== session) {
      // Another source: what was cleared in one says nothing of the other.
      readFrom.current = session;
      floorRef.current = 0;
      setFloor(0);
    }
    cursor.current = floorRef.current;
    setView(restart);
    const next = (ms: number) => {
      if (ms > 0 && pausedRef.current) waiting = true;
      else timer = setTimeout(() => void tick(), ms);
    };
    const tick = async () => {
      timer = undefined;
      try {
        const page = await backend.traffic(queryOf(filters, cursor.current, session));
        if (stopped) return;
        cursor.current = page.last;
        setView((v) => appendPage(v, page, floorRef.current));
        setError(null);
        next(page.entries.length >= PAGE_LIMIT ? 0 : POLL_MS);
      } catch (e) {
        if (stopped) return;
        setError(errorMessage(e));
        next(RETRY_MS);
      }
    };
    wake.current = () => {
      if (!waiting || stopped) return;
      waiting = false;
      void tick();
    };
    void tick();
    return () => {
      stopped = true;
      clearTimeout(timer);
      wake.current = () => undefined;
    };
  }, [backend, filters, session]);

  useEffect(() => {
    pausedRef.current = paused;
    if (!paused) wake.current();
  }, [paused]);

  const clear = useCallback(() => {
    floorRef.current = cursor.current;
    setFloor(cursor.current);
    setView((v) => ({ ...v, rows: [], letGo: 0 }));
  }, []);

  return { view, error, floor, clear };
}
