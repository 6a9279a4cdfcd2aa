// A <select> that keeps the user's choice, whatever the page draws while it is being made.
//
// A choice fires `input`, then `change`. Under load the page can draw between the listeners of
// one event (a real-window run saw a 15 ms React render run after the document's first listener
// for `input` and before the select's own): that render puts back the value the page held, so
// every listener after it, React's `onChange` and `onInput` included, reads the old value, and a
// bare controlled select loses the choice or takes the old value for a new one. So the value a
// select holds is noted by the first listener of every such event, one on the window in the
// capture phase installed before any other, and each Choice reads its choice from that note.
// An event whose value is the one the page shows is no choice (an old value put back, or the
// `change` of a choice the page has drawn already), nor is the `change` of a choice its `input`
// delivered; any other is delivered.
import type { SelectHTMLAttributes } from "react";
import { useCallback, useLayoutEffect, useRef } from "react";

type Props = Omit<SelectHTMLAttributes<HTMLSelectElement>, "onChange" | "onInput" | "value"> & {
  value: string;
  /** Called once a choice, with the chosen option's value. */
  onChoose: (value: string) => void;
};

/** The value each select held when an `input` or `change` on it began. */
const announced = new WeakMap<Event, string>();

function noteValue(event: Event) {
  if (event.target instanceof HTMLSelectElement) announced.set(event, event.target.value);
}

if (typeof window !== "undefined") {
  for (const type of ["input", "change"]) window.addEventListener(type, noteValue, { capture: true });
}

export function Choice({ onChoose, ...rest }: Props) {
  const choose = useRef(onChoose);
  // What the page shows: the value of the last render committed.
  const shown = useRef(rest.value);
  useLayoutEffect(() => {
    choose.current = onChoose;
    shown.current = rest.value;
  });
  // Listened to from the element itself, set up as it is committed: no gap after it appears.
  const attach = useCallback((select: HTMLSelectElement | null) => {
    if (!select) return;
    // The value the last `input` delivered: its `change` is the same choice.
    let taken: string | null = null;
    const take = (event: Event) => {
      const value = announced.get(event) ?? select.value;
      const delivered = event.type === "change" && value === taken;
      taken = event.type === "input" ? value : null;
      if (value !== shown.current && !delivered) choose.current(value);
    };
    select.addEventListener("input", take);
    select.addEventListener("change", take);
    return () => {
      select.removeEventListener("input", take);
      select.removeEventListener("change", take);
    };
  }, []);
  // React's onChange stays (a no-op) so that React treats the select as controlled on purpose and
  // puts its value right after each `change`, once the choice has been rendered.
  return <select ref={attach} {...rest} onChange={ignore} />;
}

function ignore() {}
