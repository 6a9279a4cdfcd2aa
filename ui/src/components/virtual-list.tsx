// A virtualized list with fixed row height: only the visible rows (plus a margin) are in the DOM,
// so 100,000 items scroll as smoothly as ten. Asks for more when the user nears the end. It can
// also follow its end as items arrive (while the person has not scrolled away from it), and bring
// a row into view on request, focusing it.
import { type ReactNode, useCallback, useEffect, useLayoutEffect, useRef, useState } from "react";

/** A row to bring into view (a new object each time it is asked for); `focus`: focus it too. */
export interface Reveal {
  index: number;
  focus?: boolean;
}

export function VirtualList<T>(props: {
  items: T[];
  rowHeight: number;
  /** Viewport height when layout cannot tell (tests); the element's real height wins otherwise. */
  height?: number;
  overscan?: number;
  render: (item: T, index: number) => ReactNode;
  onNearEnd?: (() => void) | undefined;
  /** Keep the last row in view as items arrive, unless the person scrolled away from the end. */
  followEnd?: boolean;
  reveal?: Reveal | null;
  testId?: string;
  label: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(props.height ?? 400);
  const overscan = props.overscan ?? 10;
  const { rowHeight, followEnd, reveal } = props;

  useEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    const ro = new ResizeObserver(() => {
      if (el.clientHeight > 0) setViewport(el.clientHeight);
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const total = props.items.length * rowHeight;
  // Whether the end is in view, as the person left it: a scroll of the list's own doing (its
  // event may come after more rows arrived) does not change it.
  const atEnd = useRef(true);
  const scrolledTo = useRef<number | null>(null);
  const scrollTo = useCallback((top: number) => {
    const el = ref.current;
    if (el) el.scrollTop = top;
    scrolledTo.current = el?.scrollTop ?? top;
    setScrollTop(top);
  }, []);
  const followed = useRef(followEnd);
  useLayoutEffect(() => {
    // Following again (resumed): back to the end.
    if (followEnd && !followed.current) atEnd.current = true;
    followed.current = followEnd;
    if (followEnd && atEnd.current) scrollTo(Math.max(0, total - viewport));
  }, [followEnd, total, viewport, scrollTo]);

  const focusRow = useRef<number | null>(null);
  useLayoutEffect(() => {
    if (!reveal) return;
    const el = ref.current;
    const current = el?.scrollTop ?? 0;
    const rowTop = reveal.index * rowHeight;
    const top = rowTop < current ? rowTop : rowTop + rowHeight > current + viewport ? rowTop + rowHeight - viewport : current;
    atEnd.current = top + viewport >= total - rowHeight / 2;
    scrollTo(top);
    if (reveal.focus) focusRow.current = reveal.index;
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only a new request moves the list, not the rows arriving meanwhile
  }, [reveal]);
  // After the render that shows it, the revealed row takes the focus.
  useEffect(() => {
    const index = focusRow.current;
    if (index === null) return;
    const row = ref.current?.querySelector<HTMLElement>(`[data-index="${index}"]`);
    if (!row) return;
    focusRow.current = null;
    (row.querySelector<HTMLElement>("button, [tabindex]") ?? row).focus();
  });

  // A shorter list (a search narrowed it) clamps the offset before the browser reports it.
  const top = Math.min(scrollTop, Math.max(0, total - viewport));
  const first = Math.max(0, Math.floor(top / rowHeight) - overscan);
  const last = Math.min(props.items.length, Math.ceil((top + viewport) / rowHeight) + overscan);
  const { onNearEnd } = props;
  useEffect(() => {
    if (onNearEnd && last >= props.items.length - overscan) onNearEnd();
  }, [last, props.items.length, overscan, onNearEnd]);

  const rows: ReactNode[] = [];
  for (let i = first; i < last; i++) {
    rows.push(
      <div key={i} className="vrow" data-index={i} style={{ top: i * rowHeight, height: rowHeight }}>
        {props.render(props.items[i]!, i)}
      </div>,
    );
  }
  return (
    <div
      ref={ref}
      className="vlist"
      data-testid={props.testId}
      role="list"
      aria-label={props.label}
      style={props.height ? { height: props.height } : undefined}
      onScroll={(e) => {
        const now = e.currentTarget.scrollTop;
        if (scrolledTo.current === null || Math.abs(now - scrolledTo.current) > 1) {
          atEnd.current = now + viewport >= total - rowHeight / 2;
          scrolledTo.current = null;
        }
        setScrollTop(now);
      }}
    >
      <div style={{ height: total, position: "relative" }}>{rows}</div>
    </div>
  );
}
