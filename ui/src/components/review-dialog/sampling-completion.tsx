// Review of the model's answer to a sampling request before it goes back to the server (or the
// person's own answer when the provider is "manual"), editable as fields or as JSON.
import { useState } from "react";
import { reveal } from "../visible";
import type { Json } from "./loose-json";
import { blocksOf, obj, str } from "./loose-json";
import type { EditorProps } from "./review-actions";
import { Actions } from "./review-actions";
import { JsonEditor, Media, TextBlock } from "./review-fields";

export function SamplingCompletion(props: EditorProps) {
  const { review } = props;
  const [draft, setDraft] = useState<Json>(() => structuredClone(obj(review.content)));
  const [asJson, setAsJson] = useState(false);
  const [jsonError, setJsonError] = useState<string | null>(null);
  const context = obj(review.context);
  const blocks = blocksOf(draft.content);
  const setText = (j: number, text: string) => {
    const list = blocks.map((b, bj) => (bj === j ? { ...b, text } : b));
    setDraft((d) => ({ ...d, content: Array.isArray(d.content) ? list : list[0] }));
  };
  const manual = str(context.provider) === "manual";
  return (
    <>
      <div className="review-body" data-testid="sampling-completion">
        <p className="muted">
          {manual
            ? "No model answers this one: write the answer the server gets."
            : `From ${str(context.provider)}, model ${str(draft.model) || str(context.model)}. Edit it before it goes back.`}
          <button className="link" data-testid="review-json-toggle" onClick={() => setAsJson(!asJson)}>
            {asJson ? "Edit as fields" : "Edit as JSON"}
          </button>
        </p>
        {asJson ? (
          <JsonEditor value={draft} onChange={(v) => setDraft(obj(v))} onError={setJsonError} />
        ) : (
          blocks.map((b, j) =>
            str(b.type) === "text" ? (
              <TextBlock
                key={j}
                label="Answer"
                rows={8}
                testid={`completion-text-${j}`}
                value={str(b.text)}
                onChange={(v) => setText(j, v)}
              />
            ) : (
              <Media key={j} block={b} />
            ),
          )
        )}
        <details>
          <summary>The request it answers</summary>
          <pre className="json">{reveal(JSON.stringify(context.request, null, 2))}</pre>
        </details>
      </div>
      <Actions
        busy={props.busy}
        invalid={jsonError}
        approveLabel="Return to the server"
        onApprove={() => props.decide({ decision: "approve", content: draft, remember: null })}
        onDeny={() => props.decide({ decision: "deny" })}
      />
    </>
  );
}
