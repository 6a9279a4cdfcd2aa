// The server chooser shared by the Tools, Resources and Prompts screens (running servers only),
// and how their lists name an item (hidden characters revealed, with a warning).
import type { ReactNode } from "react";
import type { ServerView } from "../bindings/ServerView";
import type { Offer } from "../host";
import { offers, running } from "../host";
import { Revealed } from "./revealed";
import { Choice } from "./choice";

export function ServerPicker(props: {
  servers: ServerView[];
  value: string | null;
  onChange: (name: string) => void;
  need?: Offer;
}) {
  const { need } = props;
  const list = running(props.servers).filter((s) => !need || offers(s, need));
  return (
    <label className="picker">
      <span>Server</span>
      <Choice
        data-testid="server-picker"
        value={props.value ?? ""}
        onChoose={props.onChange}
      >
        <option value="" disabled>
          {list.length ? "Choose a server…" : "No running server offers this"}
        </option>
        {props.value && !list.some((s) => s.name === props.value) ? (
          // Kept picked while it restarts or waits for sign-in, and said so.
          <option value={props.value} disabled>
            {props.value} (not running)
          </option>
        ) : null}
        {list.map((s) => (
          <option key={s.name} value={s.name}>
            {s.name}
          </option>
        ))}
      </Choice>
    </label>
  );
}

/** Keeps the picked server valid: the first running one when none is picked yet. */
export function pickDefault(servers: ServerView[], current: string | null, need?: Offer): string | null {
  const list = running(servers).filter((s) => !need || offers(s, need));
  if (current && list.some((s) => s.name === current)) return current;
  return current && servers.some((s) => s.name === current) ? current : (list[0]?.name ?? null);
}

/** A tool's or a prompt's label in a list: its title, with its name beneath in monospace; just
 *  the name when it has no title (or the title is the name). `children` follow the label. */
export function ItemLabel(props: { name: string; title?: string | undefined; icon?: ReactNode; children?: ReactNode }) {
  const title = props.title && props.title !== props.name ? props.title : null;
  return (
    <>
      <div className="item-title">
        {props.icon}
        <strong>
          <Revealed text={title ?? props.name} />
        </strong>
        {props.children}
      </div>
      {title ? (
        <code className="item-name" data-testid="item-name">
          <Revealed text={props.name} />
        </code>
      ) : null}
    </>
  );
}
