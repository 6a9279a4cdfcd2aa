// A JSON value as a tree: each object and array folds with a toggle of its own, open at first
// down to OPEN_DEPTH unless it holds more than BIG children, which then show a hundred at a time.
// Everything is React text: a string is shown quoted, as JSON writes it, its hidden characters
// revealed — never as markup.
import { useState } from "react";
import { reveal } from "../../components/visible";

/** Objects and arrays this deep start open: the message is at 0, its params or result at 1, so
 *  two levels below those (a tool call's arguments, a result's content items) show at first. */
const OPEN_DEPTH = 3;
/** Children beyond which a node starts closed, and are shown this many at a time. */
const BIG = 100;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function JsonTree(props: { value: unknown }) {
  return (
    <ul className="json-tree" data-testid="traffic-json">
      <JsonNode name={null} label="the message" value={props.value as Json} depth={0} />
    </ul>
  );
}

/** `name`: the key as shown (quoted) or the index; `label`: the node's name in words. */
interface NodeProps {
  name: string | null;
  label: string;
  depth: number;
}

function JsonNode(props: NodeProps & { value: Json }) {
  const { value } = props;
  const name = props.name === null ? null : <span className="json-key">{props.name}: </span>;
  if (value === null || typeof value !== "object") {
    return (
      <li className="json-leaf">
        {name}
        <Primitive value={value} />
      </li>
    );
  }
  return <Branch {...props} value={value} />;
}

function Primitive(props: { value: null | boolean | number | string }) {
  const { value } = props;
  if (typeof value === "string") return <span className="json-string">{reveal(JSON.stringify(value))}</span>;
  return <span className={`json-${value === null ? "null" : typeof value}`}>{String(value)}</span>;
}

function Branch(props: NodeProps & { value: Json[] | { [key: string]: Json } }) {
  const array = Array.isArray(props.value);
  const entries: [string, string, Json][] = array
    ? (props.value as Json[]).map((v, i) => [String(i), `item ${i} of ${props.label}`, v])
    : Object.entries(props.value).map(([k, v]) => [reveal(JSON.stringify(k)), reveal(k), v]);
  const [open, setOpen] = useState(props.depth <= OPEN_DEPTH && entries.length <= BIG);
  const [shown, setShown] = useState(BIG);
  const [start, end] = array ? ["[", "]"] : ["{", "}"];
  const size = `${entries.length} ${array ? "item" : "key"}${entries.length === 1 ? "" : "s"}`;
  return (
    <li className="json-branch" data-testid="json-node" data-label={props.label}>
      <button
        type="button"
        className="json-toggle"
        data-testid="json-toggle"
        aria-expanded={open}
        aria-label={`${open ? "Collapse" : "Expand"} ${props.label}`}
        onClick={() => setOpen(!open)}
        disabled={!entries.length}
      >
        {open ? "▾" : "▸"}
      </button>
      {props.name === null ? null : <span className="json-key">{props.name}: </span>}
      {open ? start : <span className="muted">{`${start}…${end} ${size}`}</span>}
      {open ? (
        <>
          <ul>
            {entries.slice(0, shown).map(([key, label, child]) => (
              <JsonNode key={key} name={key} label={label} value={child} depth={props.depth + 1} />
            ))}
          </ul>
          {entries.length > shown ? (
            <button type="button" className="link" data-testid="json-more" onClick={() => setShown(shown + BIG)}>
              Show {Math.min(BIG, entries.length - shown)} more of {entries.length}
            </button>
          ) : null}
          {end}
        </>
      ) : null}
    </li>
  );
}
