// Review of a form elicitation: the server's message and a form built from its requested schema,
// with the problem it reported last time (if any); the person sends, declines or cancels.
import { useState } from "react";
import type { JsonSchema } from "../../mcp";
import { ErrorBanner } from "../error-banner";
import { SchemaForm } from "../schema-form";
import { reveal } from "../visible";
import { obj, str } from "./loose-json";
import type { EditorProps } from "./review-actions";
import { Actions, CancelButton } from "./review-actions";

export function ElicitationForm(props: EditorProps) {
  const { review } = props;
  const content = obj(review.content);
  const [values, setValues] = useState<Record<string, unknown> | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const schema = obj(content.requestedSchema) as JsonSchema;
  const problem = typeof content.error === "string" ? content.error : null;
  return (
    <>
      <div className="review-body" data-testid="elicitation-form">
        <p>{reveal(str(content.message))}</p>
        <ErrorBanner error={problem} testId="elicitation-problem" />
        <SchemaForm
          schema={schema}
          initial={obj(content.values)}
          onChange={(v, e) => {
            setValues(v);
            setFormError(e);
          }}
        />
      </div>
      <Actions
        busy={props.busy}
        invalid={formError}
        approveLabel="Send"
        denyLabel="Decline"
        extra={<CancelButton busy={props.busy} decide={props.decide} />}
        onApprove={() => props.decide({ decision: "approve", content: { ...content, values: values ?? {} }, remember: null })}
        onDeny={() => props.decide({ decision: "deny" })}
      />
    </>
  );
}
