// The editing pieces the review kinds share: a text that may hide characters (shown revealed
// beside it), an image or audio block, and the raw-JSON editor.
import { useState } from "react";
import { errorMessage } from "../../backend";
import { RevealedCopy } from "../revealed";
import { reveal } from "../visible";
import type { Json } from "./loose-json";
import { str } from "./loose-json";

/** A text that may hide characters: editable, with the revealed form beside it when needed. */
export function TextBlock(props: { value: string; onChange: (v: string) => void; testid: string; rows?: number; label: string }) {
  return (
    <label className="field">
      <span className="muted">{props.label}</span>
      <textarea
        data-testid={props.testid}
        rows={props.rows ?? Math.min(12, Math.max(2, props.value.split("\n").length + 1))}
        value={props.value}
        onChange={(e) => props.onChange(e.currentTarget.value)}
      />
      <RevealedCopy value={props.value} testid={props.testid} />
    </label>
  );
}

export function Media(props: { block: Json }) {
  const { block } = props;
  const type = str(block.type);
  const src = `data:${str(block.mimeType)};base64,${str(block.data)}`;
  if (type === "image") return <img className="media" alt="image from the server" src={src} />;
  if (type === "audio") return <audio controls src={src} />;
  return <pre className="json">{reveal(JSON.stringify(block, null, 2))}</pre>;
}

/** Edits as JSON: the escape hatch for anything the fields do not cover. */
export function JsonEditor(props: { value: unknown; onChange: (v: unknown) => void; onError: (e: string | null) => void }) {
  const [text, setText] = useState(() => JSON.stringify(props.value, null, 2));
  return (
    <textarea
      className="json"
      data-testid="review-json"
      rows={16}
      value={text}
      onChange={(e) => {
        const t = e.currentTarget.value;
        setText(t);
        try {
          props.onChange(JSON.parse(t));
          props.onError(null);
        } catch (err) {
          props.onError(`Not valid JSON: ${errorMessage(err)}`);
        }
      }}
    />
  );
}
