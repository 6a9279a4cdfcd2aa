// Tool calls in an answer the person writes as the model (the manual provider): the tools the
// request offers, a picker that builds a `tool_use` block from one of them with the schema form,
// the card showing a call already in the answer, and the answer as it is sent (its `stopReason`
// says whether it calls a tool).
import { useEffect, useMemo, useState } from "react";
import type { JsonSchema } from "../../mcp";
import { SchemaForm } from "../schema-form";
import { reveal } from "../visible";
import type { Json } from "./loose-json";
import { blocksOf, obj, str } from "./loose-json";
import { Choice } from "../choice";

/** The tools a sampling request offers the model (none when its `toolChoice` forbids calling them). */
export function offeredTools(request: unknown): Json[] {
  const r = obj(request);
  if (str(obj(r.toolChoice).mode) === "none" || !Array.isArray(r.tools)) return [];
  return (r.tools as unknown[]).map(obj).filter((t) => str(t.name) !== "");
}

/** A call id not among `taken`: `call_` and 18 random hex digits. */
export function newCallId(taken: ReadonlySet<string>): string {
  for (;;) {
    const bytes = crypto.getRandomValues(new Uint8Array(9));
    const id = `call_${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
    if (!taken.has(id)) return id;
  }
}

/** The content blocks of a message, none when it has no content at all. */
export function contentList(content: unknown): Json[] {
  return content === undefined || content === null ? [] : blocksOf(content);
}

export function isToolUse(block: Json): boolean {
  return str(block.type) === "tool_use";
}

/**
 * The written answer as it goes back: with a tool call its `stopReason` is `toolUse` and empty
 * texts beside the call are left out; without one, a `toolUse` left over from a removed call goes
 * back to what the answer started with (or `endTurn`), and a list of one block is that block again
 * when the answer started as a single block.
 */
export function answerToSend(draft: Json, original: Json): Json {
  const blocks = contentList(draft.content);
  if (blocks.some(isToolUse)) {
    const kept = Array.isArray(draft.content)
      ? blocks.filter((b) => !(str(b.type) === "text" && str(b.text).trim() === ""))
      : draft.content;
    return { ...draft, content: kept, stopReason: "toolUse" };
  }
  let out = draft;
  if (draft.stopReason === "toolUse") {
    const before = str(original.stopReason);
    out = { ...out, stopReason: before && before !== "toolUse" ? before : "endTurn" };
  }
  if (Array.isArray(draft.content) && draft.content.length === 1 && !Array.isArray(original.content))
    out = { ...out, content: draft.content[0] };
  return out;
}

/** A tool call in the answer: the tool, its input, and a way to take it out again. */
export function ToolUseCard(props: { block: Json; index: number; onRemove: () => void }) {
  const { block, index } = props;
  return (
    <div className="card" data-testid={`completion-tool-use-${index}`}>
      <div className="row">
        <span>
          Calls <strong>{reveal(str(block.name))}</strong>
        </span>
        <button className="link" data-testid={`completion-tool-remove-${index}`} onClick={props.onRemove}>
          Remove this call
        </button>
      </div>
      <pre className="json">{reveal(JSON.stringify(block.input ?? {}, null, 2))}</pre>
    </div>
  );
}

/**
 * "Call a tool": choose one of the offered tools (its description shown), fill its arguments in
 * the schema form, and add the call to the answer. While a chosen call is not added yet, `onPending`
 * hears why the answer should not be sent (so a filled form is not lost by sending too soon).
 */
export function ToolPicker(props: {
  tools: Json[];
  taken: ReadonlySet<string>;
  onAdd: (block: Json) => void;
  onPending: (why: string | null) => void;
}) {
  const { tools, onPending } = props;
  const [open, setOpen] = useState(false);
  const [name, setName] = useState("");
  const [args, setArgs] = useState<Record<string, unknown> | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const tool = tools.find((t) => str(t.name) === name);
  // Stable per tool: the form starts over whenever its schema is a new object.
  const schema = useMemo(() => obj(tool?.inputSchema) as JsonSchema, [tool]);
  const pending = open && tool ? `Add the call to ${str(tool.name)} to the answer, or cancel it, before sending.` : null;
  useEffect(() => {
    onPending(pending);
    return () => onPending(null);
  }, [pending, onPending]);
  const close = () => {
    setOpen(false);
    setName("");
    setArgs(null);
    setFormError(null);
  };
  if (!open)
    return (
      <p>
        <button
          data-testid="completion-tool-open"
          onClick={() => {
            setOpen(true);
            if (tools.length === 1) setName(str(tools[0]?.name));
          }}
        >
          Call a tool
        </button>
      </p>
    );
  return (
    <div className="card" data-testid="completion-tool-picker">
      <label className="field">
        <span className="muted">Call a tool</span>
        <Choice
          data-testid="completion-tool-pick"
          value={name}
          onChoose={(picked) => {
            setName(picked);
            setArgs(null);
            setFormError(null);
          }}
        >
          <option value="">Choose a tool…</option>
          {tools.map((t) => (
            <option key={str(t.name)} value={str(t.name)} title={reveal(str(t.description))}>
              {reveal(str(t.name))}
            </option>
          ))}
        </Choice>
      </label>
      {tool ? (
        <>
          <p className="muted" data-testid="completion-tool-description">
            {reveal(str(tool.description)) || "No description."}
          </p>
          <SchemaForm
            key={name}
            schema={schema}
            onChange={(v, e) => {
              setArgs(v);
              setFormError(e);
            }}
          />
        </>
      ) : null}
      <div className="row">
        <button
          className="primary"
          data-testid="completion-tool-add"
          disabled={!tool || args === null || formError !== null}
          onClick={() => {
            if (!tool || args === null) return;
            props.onAdd({ type: "tool_use", id: newCallId(props.taken), name: str(tool.name), input: args });
            close();
          }}
        >
          Add the call
        </button>
        <button data-testid="completion-tool-cancel" onClick={close}>
          Cancel
        </button>
      </div>
    </div>
  );
}
