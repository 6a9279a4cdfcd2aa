// The Tools screen's say over what the chat's model is offered: beside each tool, whether it is
// offered to the model (off, the person can still call it here), and per server what its new
// tools start as.
import type { SyntheticEvent } from "react";
import { Choice } from "../../components/choice";

/** Inside a list item that is chosen by a click, Enter or Space: the switch keeps them. */
const keep = (e: SyntheticEvent) => e.stopPropagation();

export function ModelSwitch(props: { on: boolean; onChange: (on: boolean) => void }) {
  return (
    <div className="model-switch" onClick={keep} onKeyDown={keep}>
      <label className="toggle">
        <input
          type="checkbox"
          data-testid="tool-model-switch"
          checked={props.on}
          onChange={(e) => props.onChange(e.currentTarget.checked)}
        />
        Offered to the model
      </label>
      {props.on ? null : (
        <span className="muted" data-testid="tool-model-off">
          {" "}
          — the chat's model is not offered it; you can still call it here.
        </span>
      )}
    </div>
  );
}

export function NewToolsSwitch(props: { server: string; on: boolean; onChange: (on: boolean) => void }) {
  return (
    <label
      className="toggle new-tools"
      title={`Whether tools ${props.server} adds from now on are offered to the chat's model; its tools seen already keep their switch.`}
    >
      New tools start
      <Choice
        data-testid="new-tools-switch"
        value={props.on ? "on" : "off"}
        onChoose={(picked) => props.onChange(picked === "on")}
      >
        <option value="on">on</option>
        <option value="off">off</option>
      </Choice>
      for the model
    </label>
  );
}
