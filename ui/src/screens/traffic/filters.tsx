// The Traffic screen's filter bar: server, method, direction, errors only and the text search (its
// typing settles for SEARCH_DELAY_MS before it becomes a filter, so each keystroke does not start
// the list over).
import { useEffect, useRef, useState } from "react";
import type { Direction } from "../../bindings/Direction";
import type { TrafficFilters } from "./model";
import { Choice } from "../../components/choice";

export const SEARCH_DELAY_MS = 200;

export function TrafficFilterBar(props: {
  filters: TrafficFilters;
  onChange: (filters: TrafficFilters) => void;
  servers: string[];
  methods: string[];
}) {
  const { filters, onChange } = props;
  const set = (change: Partial<TrafficFilters>) => onChange({ ...filters, ...change });
  return (
    <div className="traffic-filters" role="group" aria-label="Filters">
      <FilterChoice
        testId="traffic-server"
        label="Server"
        all="All servers"
        value={filters.server}
        options={props.servers}
        onChange={(server) => set({ server })}
      />
      <FilterChoice
        testId="traffic-method"
        label="Method"
        all="All methods"
        value={filters.method}
        options={props.methods}
        onChange={(method) => set({ method })}
      />
      <label className="toggle">
        Direction
        <Choice
          data-testid="traffic-direction"
          value={filters.direction}
          onChoose={(picked) => set({ direction: picked as Direction | "" })}
        >
          <option value="">Sent and received</option>
          <option value="out">Sent to servers</option>
          <option value="in">Received from servers</option>
        </Choice>
      </label>
      <label className="toggle">
        <input
          type="checkbox"
          data-testid="traffic-errors"
          checked={filters.errorsOnly}
          onChange={(e) => set({ errorsOnly: e.currentTarget.checked })}
        />
        Errors only
      </label>
      <Search text={filters.text} onSettle={(text) => set({ text })} />
    </div>
  );
}

/** A select of one of `options`, or all of them (""); a chosen value gone from `options` stays. */
function FilterChoice(props: {
  testId: string;
  label: string;
  all: string;
  value: string;
  options: string[];
  onChange: (value: string) => void;
}) {
  const options = props.value && !props.options.includes(props.value) ? [props.value, ...props.options] : props.options;
  return (
    <label className="toggle">
      {props.label}
      <Choice data-testid={props.testId} value={props.value} onChoose={props.onChange}>
        <option value="">{props.all}</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </Choice>
    </label>
  );
}

/** The text search: the box follows the typing; the filter follows once typing pauses. */
function Search(props: { text: string; onSettle: (text: string) => void }) {
  const [typed, setTyped] = useState(props.text);
  // The screen renders at every poll: only typing restarts the wait.
  const settle = useRef(props.onSettle);
  useEffect(() => {
    settle.current = props.onSettle;
  });
  const { text } = props;
  useEffect(() => {
    if (typed === text) return;
    const timer = setTimeout(() => settle.current(typed), SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [typed, text]);
  return (
    <input
      type="search"
      className="grow"
      data-testid="traffic-search"
      aria-label="Search the messages' text"
      placeholder="Search the messages' text…"
      value={typed}
      onChange={(e) => setTyped(e.currentTarget.value)}
    />
  );
}
