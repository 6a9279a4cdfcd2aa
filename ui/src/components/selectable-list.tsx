// The left-hand lists to choose one item from (servers, tools, prompts, conversations): a
// listbox whose chosen item is marked and is chosen by a click, then by Enter or Space or, where
// asked, by the arrow keys; and the search over such a list, with what it says when nothing
// matches.
import type { ReactNode } from "react";

export function SelectableList<T>(props: {
  items: readonly T[];
  /** The list's accessible name. */
  label: string;
  /** "item-list" unless told (the servers' rows are laid out as "server-list"). */
  className?: string;
  keyOf: (item: T) => string;
  /** The key of the chosen item. */
  selected: string | null;
  onSelect: (key: string) => void;
  /** Each item's test id; `data` gives its other data attributes. */
  testId: string;
  data?: (item: T) => Record<`data-${string}`, string>;
  /** The arrow keys choose the next or previous item and take the focus there; otherwise Enter
   * or Space chooses the focused item. */
  arrowKeys?: boolean;
  children: (item: T) => ReactNode;
}) {
  const { items, keyOf, onSelect } = props;
  return (
    <ul className={props.className ?? "item-list"} role="listbox" aria-label={props.label}>
      {items.map((item, i) => {
        const key = keyOf(item);
        return (
          <li
            key={key}
            role="option"
            tabIndex={0}
            aria-selected={key === props.selected}
            className={key === props.selected ? "selected" : undefined}
            data-testid={props.testId}
            {...props.data?.(item)}
            onClick={() => onSelect(key)}
            onKeyDown={(e) => {
              if (props.arrowKeys) {
                const move = e.key === "ArrowDown" ? 1 : e.key === "ArrowUp" ? -1 : 0;
                if (!move) return;
                e.preventDefault();
                const next = items[i + move];
                if (next) {
                  onSelect(keyOf(next));
                  (e.currentTarget.parentElement?.children[i + move] as HTMLElement | undefined)?.focus();
                }
              } else if (e.key === "Enter" || e.key === " ") {
                e.preventDefault();
                onSelect(key);
              }
            }}
          >
            {props.children(item)}
          </li>
        );
      })}
    </ul>
  );
}

/** The search box above a list. */
export function ListSearch(props: { testId: string; label: string; value: string; onChange: (value: string) => void }) {
  return (
    <input
      data-testid={props.testId}
      type="search"
      placeholder={props.label}
      aria-label={props.label}
      value={props.value}
      onChange={(e) => props.onChange(e.currentTarget.value)}
    />
  );
}

/** The items any of whose `fields` contains the search (trimmed, whatever the case); all of
 * them when it is empty. */
export function matching<T>(items: T[], search: string, fields: (item: T) => (string | null | undefined)[]): T[] {
  const q = search.trim().toLowerCase();
  return q ? items.filter((item) => fields(item).some((x) => (x ?? "").toLowerCase().includes(q))) : items;
}

/** What a list says when its search hides every item (`what`: the kind of item, singular). */
export function NoMatch(props: { what: string; search: string; total: number; shown: number }) {
  const q = props.search.trim();
  return q && props.total && !props.shown ? (
    <div className="empty muted">
      No {props.what} matches “{q}”.
    </div>
  ) : null;
}
