// The Traffic screen: every JSON-RPC message to and from each server as it crosses the wire, live
// (traffic/feed.ts), filtered by the core (server, method, direction, errors, text), in a
// virtualized list (traffic/list.tsx) beside the chosen message whole (traffic/detail.tsx); with
// pause, clear, export of what the list shows as JSON Lines, how much each server's ring keeps
// (traffic/limits.tsx), and sessions kept in the database to read back the same way
// (traffic/kept.tsx). It holds at most ROW_CAP rows, the newest.
import { useCallback, useMemo, useState } from "react";
import type { Backend } from "../backend";
import { errorMessage } from "../backend";
import type { KeptSession } from "../bindings/KeptSession";
import type { TrafficEntry } from "../bindings/TrafficEntry";
import { ErrorBanner } from "../components/error-banner";
import type { Reveal } from "../components/virtual-list";
import type { HostState } from "../host";
import { TrafficDetail } from "./traffic/detail";
import { useTrafficFeed } from "./traffic/feed";
import { TrafficFilterBar } from "./traffic/filters";
import type { Keeping } from "./traffic/kept";
import { KeptSessionsPanel, keptWhen, useKeeping } from "./traffic/kept";
import { TrafficLimitsForm } from "./traffic/limits";
import { TrafficList } from "./traffic/list";
import type { TrafficFilters, TrafficView } from "./traffic/model";
import { count, indexOfSeq, isFiltered, NO_FILTERS, ROW_CAP } from "./traffic/model";

export function TrafficScreen(props: { backend: Backend; host: HostState }) {
  const { backend } = props;
  const [filters, setFilters] = useState<TrafficFilters>(NO_FILTERS);
  const [paused, setPaused] = useState(false);
  const [limitsOpen, setLimitsOpen] = useState(false);
  const [sessionsOpen, setSessionsOpen] = useState(false);
  const keeping = useKeeping(backend);
  const [viewing, setViewing] = useState<KeptSession | null>(null);
  const shown = viewing && keeping.list?.sessions.some((s) => s.id === viewing.id) === false ? null : viewing;
  const session = shown?.id ?? null;
  const feed = useTrafficFeed(backend, filters, paused, session);
  const { rows } = feed.view;
  const { selected, select, reveal, jump } = useSelection(rows);
  const servers = useMemo(
    () => [...new Set([...props.host.servers.map((s) => s.name), ...feed.view.servers])].sort(),
    [props.host.servers, feed.view.servers],
  );
  const exporting = useExport(backend, rows, session);
  return (
    <section className="traffic" data-testid="traffic-screen" aria-label="Traffic">
      <header className="pane-header">
        <h2>Traffic</h2>
        <div className="actions">
          <button data-testid="traffic-pause" aria-pressed={paused} onClick={() => setPaused(!paused)}>
            {paused ? "Resume" : "Pause"}
          </button>
          <button data-testid="traffic-clear" onClick={feed.clear} title="Hide every message so far">
            Clear view
          </button>
          <button data-testid="traffic-export" disabled={!rows.length} onClick={() => void exporting.run()}>
            Export…
          </button>
          <KeepButton keeping={keeping} />
          <button
            data-testid="traffic-sessions-open"
            aria-expanded={sessionsOpen}
            aria-controls="traffic-sessions"
            onClick={() => setSessionsOpen(!sessionsOpen)}
          >
            Kept sessions…
          </button>
          <button
            data-testid="traffic-limits-open"
            aria-expanded={limitsOpen}
            aria-controls="traffic-limits"
            onClick={() => setLimitsOpen(!limitsOpen)}
          >
            Limits…
          </button>
        </div>
      </header>
      {limitsOpen ? <TrafficLimitsForm backend={backend} /> : null}
      {sessionsOpen ? <KeptSessionsPanel keeping={keeping} viewing={session} onView={setViewing} /> : null}
      <ErrorBanner error={sessionsOpen ? null : keeping.error} testId="traffic-keep-error" role="alert" />
      <Source keeping={keeping.current} viewing={shown} onLive={() => setViewing(null)} />
      <TrafficFilterBar filters={filters} onChange={setFilters} servers={servers} methods={feed.view.methods} />
      <ErrorBanner error={feed.error} testId="traffic-error" />
      <ErrorBanner error={exporting.error} testId="traffic-export-error" role="alert" />
      {exporting.done ? (
        <p className="muted" role="status" data-testid="traffic-exported">
          {exporting.done}
        </p>
      ) : null}
      <div className="traffic-main">
        {rows.length ? (
          <TrafficList rows={rows} selected={selected?.seq ?? null} onSelect={select} follow={!paused} reveal={reveal} />
        ) : (
          <Empty filtered={isFiltered(filters)} cleared={feed.floor > 0} />
        )}
        {selected ? (
          <TrafficDetail
            key={selected.seq}
            backend={backend}
            entry={selected}
            pairShown={selected.pairedSeq !== null && indexOfSeq(rows, selected.pairedSeq) >= 0}
            onJump={jump}
            session={session}
          />
        ) : (
          <p className="traffic-detail muted">Choose a message to see it whole.</p>
        )}
      </div>
      <Status view={feed.view} paused={paused} kept={shown !== null} />
    </section>
  );
}

/** The chosen message (as the list holds it now: an answer may have paired it since), and the
 *  row to bring into view. */
function useSelection(rows: TrafficEntry[]) {
  const [chosen, setChosen] = useState<TrafficEntry | null>(null);
  const [reveal, setReveal] = useState<Reveal | null>(null);
  const select = useCallback((entry: TrafficEntry, index?: number) => {
    setChosen(entry);
    if (index !== undefined) setReveal({ index, focus: true });
  }, []);
  const at = chosen ? indexOfSeq(rows, chosen.seq) : -1;
  const selected = at >= 0 ? rows[at]! : chosen;
  const jump = (seq: number) => {
    const i = indexOfSeq(rows, seq);
    if (i >= 0) select(rows[i]!, i);
  };
  return { selected, select, reveal, jump };
}

/** Exports the rows the list holds (what the filters and Clear view leave). */
function useExport(backend: Backend, rows: TrafficEntry[], session: number | null) {
  const [done, setDone] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const run = async () => {
    setDone(null);
    setError(null);
    try {
      const exported = await backend.exportTraffic(
        rows.map((r) => r.seq),
        session,
      );
      if (exported) setDone(`Exported ${count(exported.entries)} to ${exported.path}`);
    } catch (e) {
      setError(errorMessage(e));
    }
  };
  return { done, error, run };
}

function Empty(props: { filtered: boolean; cleared: boolean }) {
  const text = props.filtered
    ? "No message matches these filters."
    : props.cleared
      ? "Nothing new since you cleared the view."
      : "Nothing has crossed the wire yet. Messages to and from your servers appear here as they happen.";
  return (
    <div className="traffic-list empty muted" data-testid="traffic-empty">
      {text}
    </div>
  );
}

/** Starts or stops keeping a session. */
function KeepButton(props: { keeping: Keeping }) {
  const { keeping } = props;
  const on = keeping.list?.keeping != null;
  return (
    <button
      data-testid="traffic-keep"
      aria-pressed={on}
      title="Keep every message in the database from now on, until you stop"
      onClick={() => void (on ? keeping.stop() : keeping.keep())}
    >
      {on ? "Stop keeping" : "Keep session"}
    </button>
  );
}

/** What the list shows (a kept session, or the live rings) and whether a session is being kept. */
function Source(props: { keeping: KeptSession | null; viewing: KeptSession | null; onLive: () => void }) {
  const { keeping, viewing } = props;
  if (!keeping && !viewing) return null;
  return (
    <div className="traffic-source" role="status">
      {keeping ? (
        <p data-testid="traffic-keeping">
          Keeping every message since {keptWhen(keeping).replace(/ to now$/, "")}: {count(keeping.messages)} so far.
        </p>
      ) : null}
      {viewing ? (
        <p data-testid="traffic-viewing">
          Showing the session kept {keptWhen(viewing)}, not live traffic.{" "}
          <button className="small" data-testid="traffic-live" onClick={props.onLive}>
            Back to live
          </button>
        </p>
      ) : null}
    </div>
  );
}

function Status(props: { view: TrafficView; paused: boolean; kept: boolean }) {
  const { view, paused } = props;
  const parts = [`${count(view.rows.length)} shown`];
  if (view.letGo) parts.push(`the ${count(view.letGo, "older one")} let go here (this view keeps the newest ${count(ROW_CAP)})`);
  if (view.dropped) parts.push(`${count(view.dropped)} evicted from the servers' rings`);
  parts.push(paused ? "paused: new messages are not fetched until you resume" : props.kept ? "a kept session" : "live");
  return (
    <footer
      className="traffic-status muted"
      data-testid="traffic-status"
      data-shown={view.rows.length}
      data-let-go={view.letGo}
      data-dropped={view.dropped}
      data-paused={paused}
    >
      {parts.join("; ")}.
    </footer>
  );
}
