// Review of the model's answer to a sampling request before it goes back to the server (or the
// person's own answer when the provider is "manual"), editable as fields or as JSON. A manual
// answer may call one of the tools the request offers; the chat's manual answer (the person is
// the chat's model) is worded for the chat rather than for a server.
import { useMemo, useState } from "react";
import type { Review } from "../../bindings/Review";
import { reveal } from "../visible";
import type { Json } from "./loose-json";
import { blocksOf, obj, str } from "./loose-json";
import type { EditorProps } from "./review-actions";
import { Actions } from "./review-actions";
import { JsonEditor, Media, TextBlock } from "./review-fields";
import { answerToSend, contentList, isToolUse, offeredTools, ToolPicker, ToolUseCard } from "./tool-use";

/** Whether `review` asks the person to write the chat's answer (the chat's model is the manual provider). */
export function isChatAnswer(review: Review): boolean {
  return review.kind === "sampling_completion" && review.server === "chat" && str(obj(review.context).provider) === "manual";
}

export function SamplingCompletion(props: EditorProps) {
  const { review } = props;
  const [draft, setDraft] = useState<Json>(() => structuredClone(obj(review.content)));
  const [asJson, setAsJson] = useState(false);
  const [jsonError, setJsonError] = useState<string | null>(null);
  const [pendingCall, setPendingCall] = useState<string | null>(null);
  const context = obj(review.context);
  const blocks = blocksOf(draft.content);
  const setText = (j: number, text: string) => {
    const list = blocks.map((b, bj) => (bj === j ? { ...b, text } : b));
    setDraft((d) => ({ ...d, content: Array.isArray(d.content) ? list : list[0] }));
  };
  const manual = str(context.provider) === "manual";
  const chat = isChatAnswer(review);
  const tools = useMemo(() => (manual ? offeredTools(context.request) : []), [manual, context.request]);
  const taken = new Set(contentList(draft.content).map((b) => str(b.id)));
  const addCall = (call: Json) => setDraft((d) => ({ ...d, content: [...contentList(d.content), call] }));
  const removeCall = (j: number) =>
    setDraft((d) => ({ ...d, content: contentList(d.content).filter((_, bj) => bj !== j) }));
  const intro = chat
    ? tools.length > 0
      ? "You are the model in this chat: write its answer. It can say something, call one of the tools offered, or both."
      : "You are the model in this chat: write its answer."
    : manual
      ? "No model answers this one: write the answer the server gets."
      : `From ${str(context.provider)}, model ${str(draft.model) || str(context.model)}. Edit it before it goes back.`;
  return (
    <>
      <div className="review-body" data-testid="sampling-completion">
        {str(context.cut) ? (
          <div className="banner warn" role="status" data-testid="completion-cut">
            <strong>The answer was cut off before {str(context.provider)} finished it</strong> ({str(context.cut)}). What
            arrived is below: send it as it is, edit it, or deny it.
          </div>
        ) : null}
        <p className="muted" data-testid="completion-intro">
          {intro}{" "}
          <button className="link" data-testid="review-json-toggle" onClick={() => setAsJson(!asJson)}>
            {asJson ? "Edit as fields" : "Edit as JSON"}
          </button>
        </p>
        {asJson ? (
          <JsonEditor value={draft} onChange={(v) => setDraft(obj(v))} onError={setJsonError} />
        ) : (
          <>
            {blocks.map((b, j) =>
              str(b.type) === "text" ? (
                <TextBlock
                  key={j}
                  label={chat ? "What the model says" : "Answer"}
                  rows={8}
                  testid={`completion-text-${j}`}
                  value={str(b.text)}
                  onChange={(v) => setText(j, v)}
                />
              ) : manual && isToolUse(b) ? (
                <ToolUseCard key={j} index={j} block={b} onRemove={() => removeCall(j)} />
              ) : (
                <Media key={j} block={b} />
              ),
            )}
            {tools.length > 0 ? (
              <ToolPicker tools={tools} taken={taken} onAdd={addCall} onPending={setPendingCall} />
            ) : null}
          </>
        )}
        <details>
          <summary>{chat ? "What the chat sends the model" : "The request it answers"}</summary>
          <pre className="json">{reveal(JSON.stringify(context.request, null, 2))}</pre>
        </details>
      </div>
      <Actions
        busy={props.busy}
        invalid={jsonError ?? pendingCall}
        approveLabel={chat ? "Send to the chat" : "Return to the server"}
        onApprove={() =>
          props.decide({
            decision: "approve",
            content: manual ? answerToSend(draft, obj(review.content)) : draft,
            remember: null,
          })
        }
        onDeny={() => props.decide({ decision: "deny" })}
      />
    </>
  );
}
