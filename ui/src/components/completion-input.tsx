// A text field whose suggestions come from the server's completion/complete as the user types:
// debounced, shown as a listbox, navigable with the arrow keys, Enter or click to choose.
import { useEffect, useId, useRef, useState } from "react";
import { errorMessage } from "../backend";
import type { Completion } from "../mcp";

export function CompletionInput(props: {
  label: string;
  value: string;
  required?: boolean;
  description?: string | undefined;
  testId: string;
  complete: ((value: string) => Promise<Completion>) | null;
  onChange: (value: string) => void;
  delayMs?: number;
  autoFocus?: boolean;
}) {
  const [options, setOptions] = useState<string[]>([]);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(-1);
  const [error, setError] = useState<string | null>(null);
  const seq = useRef(0);
  const listId = useId();
  const { value } = props;
  const typed = useRef(false);
  // The latest completer, without re-running the effect when the parent re-renders.
  const completeRef = useRef(props.complete);
  completeRef.current = props.complete;

  useEffect(() => {
    const complete = completeRef.current;
    if (!complete || !typed.current) return;
    const n = ++seq.current;
    const t = setTimeout(() => {
      complete(value)
        .then((c) => {
          if (n !== seq.current) return;
          // Nothing to offer when the one suggestion is what is typed: an open list would only
          // cover what lies below (a Read or Get button) and take its click.
          const offered = c.values.length === 1 && c.values[0] === value ? [] : c.values.slice(0, 100);
          setOptions(offered);
          setOpen(offered.length > 0);
          setActive(-1);
          setError(null);
        })
        .catch((e: unknown) => {
          if (n === seq.current) setError(errorMessage(e));
        });
    }, props.delayMs ?? 150);
    return () => clearTimeout(t);
  }, [value, props.delayMs]);

  const choose = (v: string) => {
    typed.current = false;
    props.onChange(v);
    setOpen(false);
  };

  return (
    <label className="field completion">
      <span>
        {props.label}
        {props.required ? <abbr title="required"> *</abbr> : null}
      </span>
      <input
        data-testid={props.testId}
        role="combobox"
        aria-expanded={open}
        aria-controls={listId}
        aria-autocomplete="list"
        value={props.value}
        autoFocus={props.autoFocus}
        onChange={(e) => {
          typed.current = true;
          props.onChange(e.currentTarget.value);
        }}
        onBlur={() => {
          // Choosing an option keeps the focus (its mousedown is prevented), so this is leaving:
          // close now, and drop the answer to a request still on its way.
          seq.current++;
          setOpen(false);
        }}
        onKeyDown={(e) => {
          if (!open) return;
          if (e.key === "ArrowDown") {
            e.preventDefault();
            setActive((a) => Math.min(options.length - 1, a + 1));
          } else if (e.key === "ArrowUp") {
            e.preventDefault();
            setActive((a) => Math.max(0, a - 1));
          } else if (e.key === "Enter" && active >= 0) {
            e.preventDefault();
            choose(options[active]!);
          } else if (e.key === "Escape" || e.key === "Enter") {
            // Enter with no option chosen goes on to the form (Read, Get prompt).
            setOpen(false);
          }
        }}
      />
      {props.description ? <small className="muted">{props.description}</small> : null}
      {open ? (
        <ul className="listbox" id={listId} role="listbox" onMouseDown={(e) => e.preventDefault()}>
          {options.map((o, i) => (
            <li
              key={o}
              role="option"
              data-testid="completion-option"
              aria-selected={i === active}
              className={i === active ? "active" : undefined}
              onMouseDown={(e) => {
                e.preventDefault();
                choose(o);
              }}
            >
              {o}
            </li>
          ))}
        </ul>
      ) : null}
      {error ? <small className="form-error">{error}</small> : null}
    </label>
  );
}
