// The Traffic screen's list: one line per message, virtualized (only the rows on screen are drawn
// and formatted), each row chosen by a click or by the Up and Down arrows (Home and End too).
import { memo } from "react";
import type { TrafficEntry } from "../../bindings/TrafficEntry";
import { reveal } from "../../components/visible";
import type { Reveal } from "../../components/virtual-list";
import { VirtualList } from "../../components/virtual-list";
import { clockTime, directionText, humanSize, indexOfSeq, methodText } from "./model";

export const ROW_HEIGHT = 24;

const KEYS: Record<string, (at: number, last: number) => number> = {
  ArrowDown: (at) => at + 1,
  ArrowUp: (at, last) => (at < 0 ? last : at - 1),
  Home: () => 0,
  End: (_, last) => last,
};

export function TrafficList(props: {
  rows: TrafficEntry[];
  selected: number | null;
  /** Chooses a row; `index` brings it into view and focuses it. */
  onSelect: (entry: TrafficEntry, index?: number) => void;
  follow: boolean;
  reveal: Reveal | null;
  /** The list's height when layout cannot tell (tests). */
  height?: number;
}) {
  const { rows, selected, onSelect } = props;
  return (
    <div
      className="traffic-list"
      onKeyDown={(e) => {
        const move = KEYS[e.key];
        if (!move || !rows.length) return;
        e.preventDefault();
        const at = selected === null ? -1 : indexOfSeq(rows, selected);
        const to = Math.min(rows.length - 1, Math.max(0, move(at, rows.length - 1)));
        onSelect(rows[to]!, to);
      }}
    >
      <div className="traffic-row traffic-head" aria-hidden="true">
        <span>Time</span>
        <span />
        <span>Server</span>
        <span>Kind</span>
        <span>Method</span>
        <span>Id</span>
        <span className="num">Size</span>
        <span className="num">Latency</span>
      </div>
      <VirtualList
        items={rows}
        rowHeight={ROW_HEIGHT}
        {...(props.height ? { height: props.height } : {})}
        testId="traffic-list"
        label="Messages"
        followEnd={props.follow}
        reveal={props.reveal}
        // The chosen row is the one Tab reaches (any drawn row before one is chosen).
        render={(entry) => (
          <TrafficRow
            entry={entry}
            selected={entry.seq === selected}
            focusable={selected === null || entry.seq === selected}
            onSelect={onSelect}
          />
        )}
      />
    </div>
  );
}

/** One message's line; drawn again only when it or its selection changes. */
const TrafficRow = memo(function TrafficRow(props: {
  entry: TrafficEntry;
  selected: boolean;
  focusable: boolean;
  onSelect: (entry: TrafficEntry) => void;
}) {
  const { entry: e } = props;
  const way = directionText(e.direction);
  const method = reveal(methodText(e));
  const id = e.id === null ? "" : reveal(e.id);
  const latency = e.latencyMs === null ? "" : `${e.latencyMs < 10 ? e.latencyMs.toFixed(2) : Math.round(e.latencyMs)} ms`;
  const size = `${humanSize(e.size)}${e.truncated ? " cut" : ""}`;
  const label = [
    `#${e.seq} at ${clockTime(e.atMs)}`,
    `${way.words} ${e.server}`,
    e.kind,
    method,
    id ? `id ${id}` : "",
    size,
    latency,
    e.failed ? "failed" : "",
  ]
    .filter(Boolean)
    .join(", ");
  return (
    <button
      type="button"
      className={`traffic-row${props.selected ? " selected" : ""}${e.failed ? " failed" : ""}`}
      data-testid="traffic-row"
      data-seq={e.seq}
      data-kind={e.kind}
      data-direction={e.direction}
      data-failed={e.failed || undefined}
      aria-label={label}
      aria-current={props.selected || undefined}
      tabIndex={props.focusable ? 0 : -1}
      onClick={() => props.onSelect(e)}
    >
      <span className="mono">{clockTime(e.atMs)}</span>
      <span className={`arrow ${e.direction}`}>{way.arrow}</span>
      <span>{e.server}</span>
      <span>
        {e.kind}
        {e.failed ? <span className="traffic-failed"> ✕</span> : null}
      </span>
      <span className="mono">{method}</span>
      <span className="mono">{id}</span>
      <span className="num">
        {humanSize(e.size)}
        {e.truncated ? <span className="chip warn traffic-cut">cut</span> : null}
      </span>
      <span className="num">{latency}</span>
    </button>
  );
});
