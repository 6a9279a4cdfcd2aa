// A virtualized list with fixed row height: only the visible rows (plus a margin) are in the DOM,
// so 100,000 items scroll as smoothly as ten. Asks for more when the user nears the end.
import { type ReactNode, useEffect, useRef, useState } from "react";

export function VirtualList<T>(props: {
  items: T[];
  rowHeight: number;
  /** Viewport height when layout cannot tell (tests); the element's real height wins otherwise. */
  height?: number;
  overscan?: number;
  render: (item: T, index: number) => ReactNode;
  onNearEnd?: (() => void) | undefined;
  testId?: string;
  label: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(props.height ?? 400);
  const overscan = props.overscan ?? 10;

  useEffect(() => {
    const el = ref.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    const ro = new ResizeObserver(() => {
      if (el.clientHeight > 0) setViewport(el.clientHeight);
    });
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  const total = props.items.length * props.rowHeight;
  // A shorter list (a search narrowed it) clamps the offset before the browser reports it.
  const top = Math.min(scrollTop, Math.max(0, total - viewport));
  const first = Math.max(0, Math.floor(top / props.rowHeight) - overscan);
  const last = Math.min(props.items.length, Math.ceil((top + viewport) / props.rowHeight) + overscan);
  const { onNearEnd } = props;
  useEffect(() => {
    if (onNearEnd && last >= props.items.length - overscan) onNearEnd();
  }, [last, props.items.length, overscan, onNearEnd]);

  const rows: ReactNode[] = [];
  for (let i = first; i < last; i++) {
    rows.push(
      <div key={i} className="vrow" style={{ top: i * props.rowHeight, height: props.rowHeight }}>
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
      onScroll={(e) => setScrollTop(e.currentTarget.scrollTop)}
    >
      <div style={{ height: total, position: "relative" }}>{rows}</div>
    </div>
  );
}
