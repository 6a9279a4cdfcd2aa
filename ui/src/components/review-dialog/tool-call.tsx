// Review of a tool call the model wants to make: the tool, its description, editable arguments,
// a note when approving first pins the tool's definition, and a "from now on" rule.
import { useState } from "react";
import type { Rule } from "../../bindings/Rule";
import { reveal } from "../visible";
import { obj, str } from "./loose-json";
import type { EditorProps } from "./review-actions";
import { Actions, RememberPicker } from "./review-actions";
import { JsonEditor } from "./review-fields";

export function ToolCall(props: EditorProps) {
  const { review } = props;
  const content = obj(review.content);
  const context = obj(review.context);
  const definition = obj(context.definition);
  const pins = Array.isArray(context.pins) ? (context.pins as unknown[]).map(obj) : [];
  const [args, setArgs] = useState<unknown>(content.arguments ?? {});
  const [jsonError, setJsonError] = useState<string | null>(null);
  const [remember, setRemember] = useState<Rule | null>(null);
  return (
    <>
      <div className="review-body" data-testid="tool-call">
        <p>
          <strong>{reveal(str(content.tool))}</strong>: {reveal(str(definition.description))}
        </p>
        {pins.some((p) => p.state === "new") ? (
          <p className="muted" data-testid="tool-call-new">
            First use: approving also pins this tool's definition; a later change is blocked until you review it.
          </p>
        ) : null}
        <span className="muted">Arguments</span>
        <JsonEditor value={args} onChange={setArgs} onError={setJsonError} />
      </div>
      <Actions
        busy={props.busy}
        invalid={jsonError}
        approveLabel="Call it"
        extra={<RememberPicker value={remember} onChange={setRemember} />}
        onApprove={() => props.decide({ decision: "approve", content: { ...content, arguments: args }, remember })}
        onDeny={() => props.decide({ decision: "deny" })}
      />
    </>
  );
}
