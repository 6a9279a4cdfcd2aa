// Which tools the open conversation's model is offered: every tool switched on (on the Tools
// screen), or only those of one or more tool sets. Shown compactly in the conversation's header;
// the sets are read when it is shown and each time it is opened. A set the conversation names
// that no longer exists stays listed, said so, to be unticked (meanwhile the core refuses the
// conversation's turns rather than offer every tool in its place).
import { useCallback, useEffect, useState } from "react";
import type { Backend } from "../../backend";
import type { Conversation } from "../../bindings/Conversation";
import type { ToolSet } from "../../bindings/ToolSet";
import { Revealed } from "../../components/revealed";

/** What the summary says of the choice. */
function summaryOf(chosen: string[] | undefined): string {
  return chosen ? `Tools: ${chosen.join(", ")}` : "Tools: all that are on";
}

/** `chosen` with set `name` ticked or not; none left: back to every tool switched on (null). */
export function toggled(chosen: string[] | undefined, name: string, on: boolean): string[] | null {
  const rest = (chosen ?? []).filter((n) => n !== name);
  const next = on ? [...rest, name] : rest;
  return next.length ? next : null;
}

export function ToolChoice(props: {
  backend: Backend;
  conversation: Conversation;
  onChange: (toolSets: string[] | null) => void;
}) {
  const { backend } = props;
  const chosen = props.conversation.toolSets;
  const [sets, setSets] = useState<ToolSet[]>([]);
  const load = useCallback(() => {
    backend.toolSwitches().then(
      (v) => setSets(v.sets),
      () => setSets([]),
    );
  }, [backend]);
  useEffect(() => load(), [load]);
  const gone = (chosen ?? []).filter((n) => !sets.some((s) => s.name === n));

  return (
    <details className="tool-choice" data-testid="chat-tools" onToggle={(e) => e.currentTarget.open && load()}>
      <summary data-testid="chat-tools-summary" title="Which tools the model is offered in this chat">
        <Revealed text={summaryOf(chosen)} />
      </summary>
      <div className="tool-choice-menu">
        <label className="check">
          <input type="radio" data-testid="chat-tools-all" checked={!chosen} onChange={() => props.onChange(null)} />
          All tools that are on
        </label>
        {sets.map((s) => (
          <SetOption key={s.name} name={s.name} count={s.members.length} chosen={chosen} onChange={props.onChange} />
        ))}
        {gone.map((name) => (
          <SetOption key={name} name={name} count={null} chosen={chosen} onChange={props.onChange} />
        ))}
        {sets.length ? null : (
          <p className="muted small" data-testid="chat-tools-no-sets">
            No tool sets yet: make them on the Tools screen (Tool sets).
          </p>
        )}
      </div>
    </details>
  );
}

/** One set to tick; `count` null: no set has this name any more. */
function SetOption(props: {
  name: string;
  count: number | null;
  chosen: string[] | undefined;
  onChange: (toolSets: string[] | null) => void;
}) {
  const { name, count, chosen } = props;
  return (
    <label className="check">
      <input
        type="checkbox"
        data-testid="chat-tool-set"
        data-name={name}
        checked={!!chosen?.includes(name)}
        onChange={(e) => props.onChange(toggled(chosen, name, e.currentTarget.checked))}
      />
      <Revealed text={name} />
      <span className={count === null ? "warn-text small" : "muted small"}>
        {count === null ? "no longer exists: untick it to chat again" : `${count} ${count === 1 ? "tool" : "tools"}`}
      </span>
    </label>
  );
}
