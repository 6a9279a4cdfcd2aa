// The chat's composer: the person's message, with a "/" palette that finds every prompt and skill
// of every server (fuzzy) — a prompt's arguments are filled with completion and its messages put
// into the composer, a skill is loaded to go with the message — and "@" that attaches a server's
// resource. What a tool's view asks to send waits here for the person. Servers' text (and what it
// put in the composer) is shown with hidden characters revealed.
import { useMemo, useRef, useState } from "react";
import type { Backend } from "../../backend";
import { errorMessage } from "../../backend";
import type { NewMessage } from "../../bindings/NewMessage";
import { decodeTextBlob } from "../../components/content";
import { ErrorBanner } from "../../components/error-banner";
import { HiddenMark, Revealed, RevealedCopy } from "../../components/revealed";
import { hasHidden } from "../../components/visible";
import type { HostState } from "../../host";
import type { ContentBlock, GetPromptResult, Prompt, Resource } from "../../mcp";
import { PromptPanel } from "../prompts";
import { chatBlock, skillBlocks, withSkill } from "./blocks";
import type { Json } from "./calls";
import { useEverything } from "./everything";
import type { ChatSkills, SkillEntry } from "./skills";
import { SkillChips, SkillOption } from "./skills";
import type { ViewContext, ViewMessage } from "./views";
import { contextBlocks, viewBlocks } from "./views";

/** How many pages of each server's resources "@" searches. */
const RESOURCE_PAGES = 10;

/** Subsequence match with a score: consecutive and early matches rank higher; null when no match. */
export function fuzzyScore(query: string, text: string): number | null {
  const q = query.toLowerCase();
  const t = text.toLowerCase();
  if (q === "") return 0;
  let score = 0;
  let at = -1;
  let run = 0;
  for (const ch of q) {
    const next = t.indexOf(ch, at + 1);
    if (next < 0) return null;
    run = next === at + 1 ? run + 1 : 0;
    score += 10 + run * 5 - Math.min(next - at - 1, 10);
    at = next;
  }
  return score - t.length / 100;
}

interface PromptEntry {
  server: string;
  prompt: Prompt;
}

interface ResourceEntry {
  server: string;
  resource: Resource;
}

/** What goes with the next message: a resource (read when sent) or a block a prompt brought. */
type Attachment = { label: string; resource: ResourceEntry } | { label: string; block: Json };

/** A prompt's messages for the composer: their text to edit, anything else as attachments. */
function promptDraft(result: GetPromptResult): { text: string; attachments: Attachment[] } {
  const texts: string[] = [];
  const attachments: Attachment[] = [];
  for (const m of result.messages) {
    if (m.content.type === "text") texts.push(m.role === "assistant" ? `Assistant: ${m.content.text}` : m.content.text);
    else attachments.push({ label: blockLabel(m.content), block: chatBlock(m.content as unknown as Json) });
  }
  return { text: texts.join("\n\n"), attachments };
}

function blockLabel(b: ContentBlock): string {
  switch (b.type) {
    case "image":
    case "audio":
      return `${b.type} (${b.mimeType})`;
    case "resource":
      return b.resource.uri;
    case "resource_link":
      return b.uri;
    default:
      return b.type;
  }
}

/** An option of the palette: a prompt or a skill ("/"), or a resource ("@"). */
type PaletteMatch =
  | { kind: "prompt"; entry: PromptEntry }
  | { kind: "skill"; entry: SkillEntry }
  | { kind: "resource"; entry: ResourceEntry };

/** What an option of the palette says after its server: a prompt's or a skill's description, a
 * resource's URI. */
function optionDetail(m: PaletteMatch): string {
  if (m.kind === "prompt") return m.entry.prompt.description ?? "";
  return m.kind === "skill" ? m.entry.skill.description : m.entry.resource.uri;
}

/** What an option is found by. */
function searchedText(m: PaletteMatch): string {
  if (m.kind === "prompt") return `${m.entry.prompt.name} ${m.entry.prompt.title ?? ""} ${m.entry.server}`;
  return m.kind === "skill" ? `${m.entry.skill.name} ${m.entry.server}` : `${m.entry.resource.name} ${m.entry.resource.uri}`;
}

/** The options that match `query` best, the best first. */
function bestMatches(options: PaletteMatch[], query: string): PaletteMatch[] {
  return options
    .map((m) => ({ m, s: fuzzyScore(query, searchedText(m)) }))
    .filter((x) => x.s !== null)
    .sort((a, b) => (b.s ?? 0) - (a.s ?? 0))
    .slice(0, 12)
    .map((x) => x.m);
}

/** An option's name: a prompt's title and name, a skill's name, or "@" and a resource's name. */
function OptionLabel(props: { match: PaletteMatch }) {
  const m = props.match;
  if (m.kind === "prompt") return <PromptLabel prompt={m.entry.prompt} />;
  if (m.kind === "skill") return <SkillOption skill={m.entry.skill} />;
  return (
    <span className="name">
      @<Revealed text={m.entry.resource.name} />
    </span>
  );
}

function optionName(m: PaletteMatch): string {
  if (m.kind === "prompt") return m.entry.prompt.name;
  return m.kind === "skill" ? m.entry.skill.name : m.entry.resource.uri;
}

/** A prompt named as the Prompts screen names it: its title, with its name beneath; or its name. */
function PromptLabel(props: { prompt: Prompt }) {
  const { name, title } = props.prompt;
  if (!title)
    return (
      <span className="name palette-title">
        <Revealed text={name} />
      </span>
    );
  return (
    <>
      <span className="name palette-title">
        <Revealed text={title} />
      </span>
      <span className="mono palette-name" data-testid="palette-prompt-name">
        <Revealed text={name} />
      </span>
    </>
  );
}

/** A resource's contents as chat content blocks. */
async function attach(backend: Backend, entry: ResourceEntry): Promise<Json[]> {
  const read = await backend.readResource(entry.server, entry.resource.uri);
  return read.contents.map((c) => {
    const mime = c.mimeType ?? "";
    const text = "text" in c ? c.text : decodeTextBlob(mime, c.blob);
    if (text !== null) return { type: "text", text: `Resource ${c.uri} from ${entry.server}:\n${text}` };
    if ("blob" in c && typeof c.blob === "string" && mime.startsWith("image/"))
      return { type: "image", data: c.blob, mimeType: mime };
    return { type: "text", text: `Resource ${c.uri} from ${entry.server} (${mime || "binary"}, not shown to the model)` };
  });
}

export function Composer(props: ChatSkills & {
  backend: Backend;
  host: HostState;
  busy: boolean;
  viewMessages: ViewMessage[];
  onDropViewMessage: (key: number) => void;
  viewContexts: ViewContext[];
  onDropViewContext: (viewId: string) => void;
  onSend: (messages: NewMessage[]) => void;
  onStop: () => void;
}) {
  const { backend, host } = props;
  const [text, setText] = useState("");
  const [attached, setAttached] = useState<Attachment[]>([]);
  const input = useRef<HTMLTextAreaElement>(null);
  const [picked, setPicked] = useState<PromptEntry | null>(null);
  const [highlight, setHighlight] = useState(0);
  const [skillProblem, setSkillProblem] = useState<string | null>(null);
  const [loadingSkill, setLoadingSkill] = useState<string | null>(null);
  const prompts = useEverything<PromptEntry>(host, "prompts", async (server) =>
    (await backend.listPrompts(server)).map((prompt) => ({ server, prompt })),
  );
  // Listed only: nothing of a skill is read until it is picked.
  const skills = useEverything<SkillEntry>(host, "skills", async (server) =>
    (await backend.listSkills(server)).map((skill) => ({ server, skill })),
  );
  const resources = useEverything<ResourceEntry>(host, "resources", async (server) => {
    // Enough pages to find what people attach, without walking a huge server's whole list.
    const found: ResourceEntry[] = [];
    let cursor: string | null = null;
    for (let page = 0; page < RESOURCE_PAGES; page++) {
      const r = await backend.listResourcesPage(server, cursor);
      found.push(...r.resources.map((resource) => ({ server, resource })));
      if (!r.nextCursor) break;
      cursor = r.nextCursor;
    }
    return found;
  });

  const slash = text.startsWith("/") ? text.slice(1) : null;
  const at = /(?:^|\s)@(\S*)$/.exec(text)?.[1] ?? null;
  const matches = useMemo(() => {
    if (slash !== null)
      return bestMatches(
        [...prompts.map((entry) => ({ kind: "prompt" as const, entry })), ...skills.map((entry) => ({ kind: "skill" as const, entry }))],
        slash,
      );
    if (at !== null) return bestMatches(resources.map((entry) => ({ kind: "resource" as const, entry })), at);
    return [];
  }, [slash, at, prompts, skills, resources]);

  // A skill picked is loaded (its SKILL.md read and checked) to go with the next message.
  const { onSkills } = props;
  const takeSkill = (entry: SkillEntry) => {
    setSkillProblem(null);
    setLoadingSkill(entry.skill.name);
    backend
      .loadSkill(entry.server, entry.skill.uri)
      .then(
        (loaded) => onSkills((list) => withSkill(list, loaded)),
        (e: unknown) => setSkillProblem(errorMessage(e)),
      )
      .finally(() => setLoadingSkill(null));
  };

  const choose = (i: number) => {
    const m = matches[i];
    if (!m) return;
    if (m.kind === "prompt") {
      setPicked(m.entry);
      setText("");
    } else if (m.kind === "skill") {
      takeSkill(m.entry);
      setText("");
    } else {
      setAttached((a) => [...a, { label: `@${m.entry.resource.name}`, resource: m.entry }]);
      setText(text.replace(/@\S*$/, ""));
    }
    setHighlight(0);
  };

  const submit = async () => {
    if (props.busy || (text.trim() === "" && attached.length === 0 && props.skills.length === 0)) return;
    // A skill's instructions come before what the person attached and wrote.
    const blocks: Json[] = props.skills.flatMap(skillBlocks);
    for (const a of attached) blocks.push(...("resource" in a ? await attach(backend, a.resource) : [a.block]));
    if (text.trim() !== "") blocks.push({ type: "text", text: text.trim() });
    props.onSend([{ role: "user", content: [...contextBlocks(props.viewContexts), ...blocks] }]);
    setText("");
    setAttached([]);
    onSkills([]);
  };

  // Into the composer, not sent: the person adds to it and sends it.
  const insert = (result: GetPromptResult) => {
    const draft = promptDraft(result);
    setText((t) => [t.trim(), draft.text].filter(Boolean).join("\n\n"));
    setAttached((a) => [...a, ...draft.attachments]);
    setPicked(null);
    input.current?.focus();
  };

  // A view's message is sent only when the person says so, as their own.
  const sendViewMessage = (m: ViewMessage) => {
    if (props.busy) return;
    props.onSend([{ role: "user", content: [...contextBlocks(props.viewContexts), ...viewBlocks(m.label, m.message.content)] }]);
    props.onDropViewMessage(m.key);
  };
  const editViewMessage = (m: ViewMessage) => {
    const texts = m.message.content.flatMap((b) => (b.type === "text" ? [b.text] : []));
    const others = m.message.content.filter((b) => b.type !== "text");
    setText((t) => [t.trim(), ...texts].filter(Boolean).join("\n\n"));
    setAttached((a) => [...a, ...others.map((b) => ({ label: `${blockLabel(b)} from ${m.label}`, block: chatBlock(b as unknown as Json) }))]);
    props.onDropViewMessage(m.key);
    input.current?.focus();
  };

  return (
    <div className="composer">
      {props.viewMessages.map((m) => (
        <div key={m.key} className="banner warn view-message" data-testid="view-message">
          <div>
            The view{" "}
            <strong>
              <Revealed text={m.label} />
            </strong>{" "}
            wants to send:
          </div>
          <div className="view-message-body">
            {m.message.content.map((b, i) =>
              b.type === "text" ? (
                <div key={i} className="chat-text">
                  <Revealed text={b.text} />
                </div>
              ) : (
                <span key={i} className="chip">
                  <Revealed text={blockLabel(b)} />
                </span>
              ),
            )}
          </div>
          <div className="actions">
            <button className="small primary" data-testid="view-message-send" disabled={props.busy} onClick={() => sendViewMessage(m)}>
              Send
            </button>
            <button className="small" data-testid="view-message-edit" onClick={() => editViewMessage(m)}>
              Edit in the composer
            </button>
            <button className="small" data-testid="view-message-discard" onClick={() => props.onDropViewMessage(m.key)}>
              Discard
            </button>
          </div>
        </div>
      ))}
      {props.viewContexts.length ? (
        <div className="chips" data-testid="view-contexts">
          {props.viewContexts.map((c) => (
            <span key={c.viewId} className="chip" data-testid="view-context" title="Goes with your next message">
              context from <Revealed text={c.label} />
              <button className="link" aria-label="Remove" onClick={() => props.onDropViewContext(c.viewId)}>
                ×
              </button>
            </span>
          ))}
        </div>
      ) : null}
      {picked ? (
        <div className="palette-prompt" data-testid="palette-prompt">
          <PromptPanel backend={backend} server={picked.server} prompt={picked.prompt} onInsert={insert} autoFocus />
          <button className="small" onClick={() => setPicked(null)}>
            Close
          </button>
        </div>
      ) : null}
      {matches.length ? (
        <ul className="palette" role="listbox" data-testid="palette">
          {matches.map((m, i) => (
            <li key={i}>
              <button
                role="option"
                aria-selected={i === highlight}
                className={i === highlight ? "item selected" : "item"}
                data-testid={`palette-${m.kind}-option`}
                data-name={optionName(m)}
                onMouseDown={(e) => {
                  e.preventDefault();
                  choose(i);
                }}
              >
                <OptionLabel match={m} />{" "}
                <span className="muted small">
                  <Revealed text={[m.entry.server, optionDetail(m)].filter(Boolean).join(" · ")} />
                </span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <ErrorBanner error={skillProblem} testId="composer-error" role="alert" />
      {loadingSkill ? (
        <div className="muted" data-testid="skill-loading">
          <span className="spinner" aria-hidden="true" /> Loading the skill <Revealed text={loadingSkill} />…
        </div>
      ) : null}
      {attached.length || props.skills.length ? (
        <div className="chips" data-testid="attachments">
          <SkillChips skills={props.skills} onSkills={onSkills} />
          {attached.map((a, i) => (
            <span key={i} className="chip" data-testid="attachment">
              <Revealed text={a.label} />
              <button className="link" aria-label="Remove" onClick={() => setAttached((list) => list.filter((_, j) => j !== i))}>
                ×
              </button>
            </span>
          ))}
        </div>
      ) : null}
      <div className="row">
        <textarea
          ref={input}
          data-testid="chat-input"
          rows={3}
          placeholder="Message the model. / for a server's prompt or skill, @ to attach a resource. Ctrl+Enter sends."
          value={text}
          onChange={(e) => {
            setText(e.currentTarget.value);
            setHighlight(0);
          }}
          onKeyDown={(e) => {
            if (matches.length && (e.key === "ArrowDown" || e.key === "ArrowUp")) {
              e.preventDefault();
              setHighlight((h) => (h + (e.key === "ArrowDown" ? 1 : matches.length - 1)) % matches.length);
            } else if (matches.length && (e.key === "Enter" || e.key === "Tab")) {
              e.preventDefault();
              choose(highlight);
            } else if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
              e.preventDefault();
              void submit();
            }
          }}
        />
        {props.busy ? (
          <button data-testid="chat-stop" onClick={props.onStop}>
            Stop
          </button>
        ) : (
          <button className="primary" data-testid="chat-send" onClick={() => void submit()}>
            Send
          </button>
        )}
      </div>
      {/* A prompt or a view may have put hidden characters in the message: shown, sent as written. */}
      {hasHidden(text) ? (
        <div data-testid="chat-input-hidden">
          <HiddenMark />
          <RevealedCopy value={text} testid="chat-input" />
        </div>
      ) : null}
    </div>
  );
}
