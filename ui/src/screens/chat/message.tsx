// A chat message: its text (markdown when it looks like it), images, the model's tool calls as
// they went out and their results (a tool search's with the tools it found), and the skills the
// person sent, by name; hidden characters in any of it shown revealed, with a warning.
import type { ReactNode } from "react";
import { Fragment } from "react";
import type { ChatMessage } from "../../bindings/ChatMessage";
import { looksLikeMarkdown, Markdown, ZoomableImage } from "../../components/content";
import { HiddenMark, Revealed } from "../../components/revealed";
import { hasHidden, reveal } from "../../components/visible";
import type { Part } from "./blocks";
import { partsOf } from "./blocks";
import type { Json } from "./calls";
import { inputOf, sameJson } from "./calls";
import { SentSkill } from "./skills";

/** Chat text: rendered (sanitized) markdown when it looks like markdown, else plain paragraphs. */
export function ChatText(props: { text: string }) {
  if (looksLikeMarkdown(props.text)) return <Markdown text={props.text} />;
  return (
    <div className="chat-text">
      <Revealed text={props.text} />
    </div>
  );
}

/** Where the core puts the tools a `search_tools` call found and added (chat/turn.rs
 * `FOUND_TOOLS`): written by the core alone, beside the result's content. */
const FOUND = "foundTools";

/** The tools a tool search found and added, as the model names them; null for any other result. */
function foundTools(result: Json): string[] | null {
  const found = result[FOUND];
  return Array.isArray(found) ? found.filter((n): n is string => typeof n === "string") : null;
}

function Found(props: { names: string[] }) {
  return (
    <div className="tool-found" data-testid="chat-found-tools">
      {props.names.length ? "Found and added: " : "The search found no tool."}
      {props.names.map((n, i) => (
        <Fragment key={i}>
          {i ? ", " : ""}
          <code>
            <Revealed text={n} />
          </code>
        </Fragment>
      ))}
    </div>
  );
}

function Block(props: { block: Json }) {
  const b = props.block;
  switch (b.type) {
    case "text":
      return <ChatText text={String(b.text ?? "")} />;
    case "image":
      return <ZoomableImage alt="" src={`data:${String(b.mimeType)};base64,${String(b.data)}`} />;
    case "tool_result": {
      const content = Array.isArray(b.content) ? (b.content as Json[]) : [];
      const found = foundTools(b);
      return (
        <>
          {found ? <Found names={found} /> : null}
          <details
            className={b.isError ? "tool-result error" : "tool-result"}
            data-testid="chat-tool-result"
            open={Boolean(b.isError)}
          >
            <summary>{b.isError ? "Tool call failed or refused" : "Tool result"}</summary>
            {content.map((c, i) => (
              <Block key={i} block={c} />
            ))}
          </details>
        </>
      );
    }
    default:
      return (
        <pre className="json">
          <Revealed text={JSON.stringify(b, null, 2)} />
        </pre>
      );
  }
}

/** A call's arguments, revealed; the warning goes beside them, not in them. */
function Args(props: { input: Json }) {
  const json = JSON.stringify(props.input);
  return (
    <>
      {hasHidden(json) ? <HiddenMark /> : null}
      <code data-testid="chat-tool-args">{reveal(json)}</code>
    </>
  );
}

/** A call the model asked for: once it went out, with the arguments it went out with (the
 * person may have edited them, and then the model's own are behind a toggle). */
function ToolUse(props: { block: Json; sent: Json | null }) {
  const name = (
    <code>
      <Revealed text={String(props.block.name)} />
    </code>
  );
  const input = inputOf(props.block);
  const { sent } = props;
  if (!sent)
    return (
      <div className="tool-use" data-testid="chat-tool-use" data-state="asked">
        The model asked to call {name} with <Args input={input} />
      </div>
    );
  const edited = !sameJson(sent, input);
  return (
    <div className="tool-use" data-testid="chat-tool-use" data-state="called" data-edited={edited}>
      Called {name} with <Args input={sent} />
      {edited ? (
        <>
          {" "}
          <span className="tool-use-edited">— edited by you</span>
          <details data-testid="chat-tool-proposed">
            <summary>What the model proposed</summary>
            <code>
              <Revealed text={JSON.stringify(input)} />
            </code>
          </details>
        </>
      ) : null}
    </div>
  );
}

export function Message(props: {
  message: ChatMessage;
  sentFor: (toolUse: Json) => Json | null;
  appFor?: (toolUse: Json) => ReactNode;
}) {
  const blocks = Array.isArray(props.message.content) ? (props.message.content as Json[]) : [];
  const onlyResults = blocks.length > 0 && blocks.every((b) => b.type === "tool_result");
  // Only the person's own messages carry skills.
  const parts: Part[] = props.message.role === "user" ? partsOf(blocks) : blocks.map((block) => ({ block }));
  return (
    <div className={`message ${onlyResults ? "tool" : props.message.role}`} data-testid="chat-message" data-role={props.message.role}>
      <div className="role">{onlyResults ? "tools" : props.message.role}</div>
      {parts.map((p, i) =>
        "skill" in p ? (
          <SentSkill key={i} skill={p.skill} blocks={p.blocks} />
        ) : p.block.type === "tool_use" ? (
          <Fragment key={i}>
            <ToolUse block={p.block} sent={props.sentFor(p.block)} />
            {props.appFor?.(p.block)}
          </Fragment>
        ) : (
          <Block key={i} block={p.block} />
        ),
      )}
    </div>
  );
}
