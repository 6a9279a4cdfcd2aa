// The Chat: conversations with one of your models, which may call the running servers' tools —
// only those you approved as they are, each call shown in the approval dialog with its arguments
// editable; a turn says which tools it held back and why, and they can be reviewed here. The
// composer's "/" palette
// finds every prompt of every server (fuzzy), fills its arguments with completion and puts its
// messages into the composer; "@" attaches a server's resource. Answers stream in.
import type { ReactNode } from "react";
import { Fragment, useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Backend } from "../backend";
import { errorMessage } from "../backend";
import type { ChatMessage } from "../bindings/ChatMessage";
import type { Conversation } from "../bindings/Conversation";
import type { NewMessage } from "../bindings/NewMessage";
import type { ProviderSettings } from "../bindings/ProviderSettings";
import type { TaskView } from "../bindings/TaskView";
import type { WithheldReason } from "../bindings/WithheldReason";
import type { WithheldTool } from "../bindings/WithheldTool";
import type { AppView } from "../bindings/AppView";
import { ToolAppView } from "../components/app-frame";
import { resolveExposed, toolUiUri } from "../components/app-frame/tool-ui";
import { decodeTextBlob, looksLikeMarkdown, Markdown, ZoomableImage } from "../components/content";
import { PinsPanel } from "../components/pins-panel";
import { reveal } from "../components/visible";
import type { HostState } from "../host";
import { running } from "../host";
import type { AppContextParams, AppMessageParams, CallToolResult, ContentBlock, GetPromptResult, Prompt, Resource, Tool } from "../mcp";
import { PromptPanel } from "./prompts";
import { taskStatusText } from "./tasks";

type Json = Record<string, unknown>;

/** The manual provider: no key, the person writes the model's answers in the approval dialog. */
const MANUAL = { provider: "manual", model: "manual" };

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

function useEverything<T>(host: HostState, need: string, load: (server: string) => Promise<T[]>): T[] {
  const [items, setItems] = useState<T[]>([]);
  const servers = running(host.servers)
    .filter((s) => s.status.state === "running" && need in s.status.summary.capabilities)
    .map((s) => s.name);
  const key = servers.join("\u0000") + JSON.stringify(host.catalog);
  useEffect(() => {
    let live = true;
    Promise.all(servers.map((s) => load(s).catch(() => [] as T[]))).then((lists) => live && setItems(lists.flat()));
    return () => {
      live = false;
    };
    // The server list and catalog revisions are the real inputs.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key]);
  return items;
}

/** Chat text: rendered (sanitized) markdown when it looks like markdown, else plain paragraphs. */
function ChatText(props: { text: string }) {
  return looksLikeMarkdown(props.text) ? <Markdown text={props.text} /> : <div className="chat-text">{props.text}</div>;
}

function Block(props: { block: Json }) {
  const b = props.block;
  switch (b.type) {
    case "text":
      return <ChatText text={String(b.text ?? "")} />;
    case "image":
      return <ZoomableImage alt="" src={`data:${String(b.mimeType)};base64,${String(b.data)}`} />;
    case "tool_use":
      return (
        <div className="tool-use" data-testid="chat-tool-use">
          Called <code>{String(b.name)}</code> with <code>{reveal(JSON.stringify(b.input))}</code>
        </div>
      );
    case "tool_result": {
      const content = Array.isArray(b.content) ? (b.content as Json[]) : [];
      return (
        <details className={b.isError ? "tool-result error" : "tool-result"} data-testid="chat-tool-result" open={Boolean(b.isError)}>
          <summary>{b.isError ? "Tool call failed or refused" : "Tool result"}</summary>
          {content.map((c, i) => (
            <Block key={i} block={c} />
          ))}
        </details>
      );
    }
    default:
      return <pre className="json">{reveal(JSON.stringify(b, null, 2))}</pre>;
  }
}

const WITHHELD: Record<WithheldReason, string> = {
  not_approved: "not approved yet",
  changed: "changed since you approved it",
  instructions_not_approved: "its server's instructions are not approved yet",
  instructions_changed: "its server's instructions changed since you approved them",
  hidden_characters: "hidden characters in its name or its arguments' names (never offered)",
};

/** The tools the last turn did not offer the model, and why; "Review" opens the pins panel. */
function Withheld(props: { tools: WithheldTool[]; reviewing: boolean; onReview: () => void }) {
  const n = props.tools.length;
  return (
    <div className="banner warn withheld" data-testid="chat-withheld">
      <details>
        <summary>
          The model was not offered {n} {n === 1 ? "tool" : "tools"}: it sees only tools you approved as they are.
        </summary>
        <ul>
          {props.tools.map((t) => (
            <li key={`${t.server}\u0000${t.tool}`} data-testid="chat-withheld-tool" data-reason={t.reason}>
              <code>
                {reveal(t.server)} · {reveal(t.tool)}
              </code>
              : {WITHHELD[t.reason]}
            </li>
          ))}
        </ul>
      </details>
      <button className="small" data-testid="chat-review-tools" onClick={props.onReview}>
        {props.reviewing ? "Close the review" : "Review them"}
      </button>
    </div>
  );
}

/** The id of the call the chat makes for `toolUse` in `conversation` (as the core names it). */
export function chatCallId(conversation: string, toolUse: string): string {
  return `chat:${conversation}:${[...toolUse].slice(0, 128).join("")}`;
}

function Message(props: { message: ChatMessage; appFor?: (toolUse: Json) => ReactNode }) {
  const blocks = Array.isArray(props.message.content) ? (props.message.content as Json[]) : [];
  const onlyResults = blocks.length > 0 && blocks.every((b) => b.type === "tool_result");
  return (
    <div className={`message ${onlyResults ? "tool" : props.message.role}`} data-testid="chat-message" data-role={props.message.role}>
      <div className="role">{onlyResults ? "tools" : props.message.role}</div>
      {blocks.map((b, i) => (
        <Fragment key={i}>
          <Block block={b} />
          {b.type === "tool_use" ? props.appFor?.(b) : null}
        </Fragment>
      ))}
    </div>
  );
}

/** A tool the model may call, with the server it belongs to. */
interface ServerTool {
  server: string;
  tool: Tool;
}

/** A `ui/message` a view asked to send: it waits for the person. */
interface ViewMessage {
  key: number;
  label: string;
  message: AppMessageParams;
}

/** The latest `ui/update-model-context` of a view: it goes with the person's next message. */
interface ViewContext {
  viewId: string;
  label: string;
  context: AppContextParams;
}

function viewLabel(view: AppView, tool: Tool): string {
  return `${tool.title ?? tool.name} (${view.server})`;
}

/** A view's message or context as chat content blocks (the model reads what the person saw). */
function viewBlocks(label: string, content: ContentBlock[] | undefined, structured?: Record<string, unknown>): Json[] {
  const out: Json[] = [];
  for (const b of content ?? []) {
    if (b.type === "text" || b.type === "image") out.push(b as unknown as Json);
    else out.push({ type: "text", text: `From ${label}: ${JSON.stringify(b)}` });
  }
  if (structured !== undefined) out.push({ type: "text", text: `From ${label}: ${JSON.stringify(structured)}` });
  return out;
}

function contextBlocks(contexts: ViewContext[]): Json[] {
  return contexts.flatMap((c) => [
    { type: "text", text: `Context from the view ${c.label}:` },
    ...viewBlocks(c.label, c.context.content, c.context.structuredContent),
  ]);
}

/** A chat `tool_result` block as the tool's result (what the chat kept of it). */
function chatResult(block: Json): CallToolResult {
  const content = Array.isArray(block.content) ? (block.content as ContentBlock[]) : [];
  const structured = block.structuredContent;
  return {
    content,
    isError: Boolean(block.isError),
    ...(typeof structured === "object" && structured !== null ? { structuredContent: structured as Record<string, unknown> } : {}),
  };
}

/** How the core's chat words a result whose arguments the person changed (chat/turn.rs). */
const CHANGED = "The user changed the arguments before the call to: ";

/** The arguments a finished call went out with, read from its result; null when that result
 * does not show that it went out as the model wrote it or as edited (any error result). */
export function sentArguments(result: Json, input: Record<string, unknown>): Record<string, unknown> | null {
  const first = Array.isArray(result.content) ? (result.content as Json[])[0] : undefined;
  const text = typeof first?.text === "string" ? first.text : "";
  if (text.startsWith(CHANGED)) {
    try {
      const edited: unknown = JSON.parse(text.slice(CHANGED.length));
      return typeof edited === "object" && edited !== null && !Array.isArray(edited) ? (edited as Record<string, unknown>) : null;
    } catch {
      return null;
    }
  }
  return result.isError ? null : input;
}

/** A prompt's content block as the model takes it: embedded resources and links become text. */
function chatBlock(b: Json): Json {
  if (b.type === "resource") {
    const r = (b.resource ?? {}) as Json;
    return typeof r.text === "string"
      ? { type: "text", text: `Resource ${String(r.uri)}:\n${r.text}` }
      : { type: "text", text: `Resource ${String(r.uri)} (binary, not shown to the model)` };
  }
  if (b.type === "resource_link") return { type: "text", text: `Resource link: ${String(b.uri)}` };
  return b;
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

export function ChatScreen(props: { backend: Backend; host: HostState }) {
  const { backend, host } = props;
  const [conversations, setConversations] = useState<Conversation[]>([]);
  const [current, setCurrent] = useState<string | null>(null);
  const [messages, setMessages] = useState<ChatMessage[]>([]);
  const [streaming, setStreaming] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [providers, setProviders] = useState<ProviderSettings[]>([]);
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState<{ server: string; progress: number; total: number | null; message: string | null } | null>(null);
  const [withheld, setWithheld] = useState<WithheldTool[]>([]);
  const [reviewing, setReviewing] = useState(false);
  const [viewMessages, setViewMessages] = useState<ViewMessage[]>([]);
  const [viewContexts, setViewContexts] = useState<ViewContext[]>([]);
  // The tool calls the model is still writing in this turn, by their place in its answer.
  const [writing, setWriting] = useState<ReadonlyMap<number, { name: string; args: Record<string, unknown> }>>(new Map());
  // The arguments of this turn's approved calls, by tool_use id: all a view may be shown.
  const [approved, setApproved] = useState<ReadonlyMap<string, Record<string, unknown>>>(new Map());
  // The tasks of this conversation's tool calls, by call id (see `chatCallId`).
  const [tasks, setTasks] = useState<ReadonlyMap<string, TaskView>>(new Map());
  const nextViewMessage = useRef(1);
  const tools = useEverything<ServerTool>(host, "tools", async (server) =>
    (await backend.listTools(server)).map((tool) => ({ server, tool })),
  );
  const busyRef = useRef(false);
  busyRef.current = busy;
  const currentRef = useRef<string | null>(null);
  currentRef.current = current;

  const models = [...providers.flatMap((p) => p.models.map((m) => ({ provider: p.id, model: m.model }))), MANUAL];
  const conversation = conversations.find((c) => c.id === current) ?? null;

  const loadList = useCallback(() => {
    backend.listConversations().then(setConversations, (e: unknown) => setError(errorMessage(e)));
  }, [backend]);

  useEffect(() => {
    loadList();
    backend.listProviders().then(setProviders, () => setProviders([]));
  }, [backend, loadList]);

  useEffect(() => {
    setWithheld([]);
    setReviewing(false);
    setViewMessages([]);
    setViewContexts([]);
    setTasks(new Map());
    setWriting(new Map());
    setApproved(new Map());
    if (!current) return setMessages([]);
    backend.getConversation(current).then((v) => setMessages(v.messages), (e: unknown) => setError(errorMessage(e)));
    const prefix = chatCallId(current, "");
    backend.listTasks().then(
      (all) => {
        if (currentRef.current !== current) return;
        const mine = all.filter((t) => t.callId?.startsWith(prefix));
        setTasks((known) => new Map([...mine.map((t): [string, TaskView] => [t.callId ?? "", t]), ...known]));
      },
      () => undefined,
    );
  }, [backend, current]);

  useEffect(() => {
    let unlisten: (() => void) | null = null;
    let live = true;
    backend
      .onHostEvent((e) => {
        // Text can arrive after the turn's end (streams and state changes travel apart): a turn
        // that is over shows no more of it.
        if (e.type === "chatText" && e.conversation === currentRef.current && busyRef.current)
          setStreaming((s) => (s ?? "") + e.text);
        if (e.type === "chatToolsWithheld" && e.conversation === currentRef.current) setWithheld(e.tools);
        // A call the model made that the server runs as a task: its status shows under the call.
        if (e.type === "task" && currentRef.current && e.task.callId?.startsWith(chatCallId(currentRef.current, ""))) {
          const task = e.task;
          setTasks((known) => new Map(known).set(task.callId ?? "", task));
        }
        if (e.type === "chatToolCall" && e.conversation === currentRef.current) {
          const { toolUseId, arguments: args } = e;
          setApproved((a) => new Map(a).set(toolUseId, args));
        }
        if (e.type === "chatToolInput" && e.conversation === currentRef.current && busyRef.current) {
          const { index, name, arguments: args } = e;
          setWriting((w) => new Map(w).set(index, { name, args }));
        }
        if (e.type === "chatMessage" && e.conversation === currentRef.current) {
          setMessages((m) => (m.some((x) => x.id === e.message.id) ? m : [...m, e.message]));
          if (e.message.role === "assistant") {
            setStreaming(null);
            setWriting(new Map());
          }
        }
        // A tool the model called reports progress, as on the Tools screen.
        if (e.type === "progress" && busyRef.current)
          setProgress({ server: e.server, progress: e.progress, total: e.total, message: e.message });
        // The call's result (or the model's next message) ends that progress.
        if (e.type === "chatMessage" && e.conversation === currentRef.current && e.message.role === "assistant")
          setProgress(null);
        if (
          e.type === "chatMessage" &&
          e.conversation === currentRef.current &&
          (e.message.content as Json[]).some((b) => b.type === "tool_result")
        )
          setProgress(null);
        // Events were dropped (a chatDone among them, perhaps): read the conversation again,
        // and whether its turn still runs.
        if (e.type === "resync") {
          loadList();
          const id = currentRef.current;
          if (id)
            backend.getConversation(id).then((v) => {
              if (id !== currentRef.current) return;
              setMessages(v.messages);
              setBusy(v.answering);
              if (!v.answering) {
                setStreaming(null);
                setProgress(null);
              }
            }, (err: unknown) => setError(errorMessage(err)));
        }
        if (e.type === "chatDone" && e.conversation === currentRef.current) {
          setProgress(null);
          setStreaming(null);
          setWriting(new Map());
          setBusy(false);
          if (e.error) setError(e.error.message);
          loadList();
        }
      })
      .then((u) => (live ? (unlisten = u) : u()));
    return () => {
      live = false;
      unlisten?.();
    };
  }, [backend, loadList]);

  const start = async () => {
    // The list may still be loading (or changed on the Models screen): ask again when empty.
    const known = providers.length ? providers : await backend.listProviders().catch(() => [] as ProviderSettings[]);
    if (known !== providers) setProviders(known);
    // With no model configured, you write the answers yourself (the manual provider).
    const first = known.flatMap((p) => p.models.map((m) => ({ provider: p.id, model: m.model })))[0] ?? MANUAL;
    try {
      const c = await backend.newConversation("New chat", first.provider, first.model);
      setConversations((list) => [c, ...list]);
      setCurrent(c.id);
      setError(null);
    } catch (e) {
      setError(errorMessage(e));
    }
  };

  const send = async (messagesToAdd: NewMessage[]) => {
    if (!conversation) return;
    setError(null);
    setBusy(messagesToAdd[messagesToAdd.length - 1]?.role === "user");
    try {
      if (conversation.title === "New chat") {
        const first = messagesToAdd.flatMap((m) => m.content as Json[]).find((b) => b.type === "text");
        const title = String(first?.text ?? "Chat").slice(0, 60);
        await backend.updateConversation({ ...conversation, title });
      }
      await backend.sendMessage(conversation.id, messagesToAdd);
    } catch (e) {
      setBusy(false);
      setError(errorMessage(e));
    }
  };

  // The results of the model's calls, by call id, for the views of tools that have one.
  const results = useMemo(() => {
    const byId = new Map<string, Json>();
    for (const m of messages)
      for (const b of Array.isArray(m.content) ? (m.content as Json[]) : [])
        if (b.type === "tool_result" && typeof b.toolUseId === "string") byId.set(b.toolUseId, b);
    return byId;
  }, [messages]);

  const underToolUse = (toolUse: Json): ReactNode => {
    const task = current && typeof toolUse.id === "string" ? tasks.get(chatCallId(current, toolUse.id)) : undefined;
    return (
      <>
        {task ? (
          <div className="muted" data-testid="chat-task-status" data-status={task.status} aria-live="polite">
            Task {taskStatusText(task)}
          </div>
        ) : null}
        {appFor(toolUse)}
      </>
    );
  };

  // The calls the model is still writing, shown here only: no server (nor its view) sees a
  // call's arguments before the person approved them.
  const writingCalls = [...writing].map(([index, call]) => (
    <div className="message assistant streaming" key={`writing-${index}`} data-testid="chat-writing-call">
      <div className="role">assistant</div>
      <div className="muted">
        <span className="spinner" aria-hidden="true" /> Writing a call to <code>{reveal(call.name)}</code>
      </div>
      <pre className="json">{reveal(JSON.stringify(call.args, null, 2))}</pre>
    </div>
  ));

  const appFor = (toolUse: Json): ReactNode => {
    const found = resolveExposed(tools, String(toolUse.name ?? ""));
    const uri = found ? toolUiUri(found.tool) : null;
    if (!found || !uri || typeof toolUse.id !== "string") return null;
    const result = results.get(toolUse.id);
    const input = typeof toolUse.input === "object" && toolUse.input !== null ? (toolUse.input as Record<string, unknown>) : {};
    // The view is the server's: it sees a call only as the person approved it, once approved.
    const args = approved.get(toolUse.id) ?? (result ? sentArguments(result, input) : null);
    if (!args) return null;
    return (
      <ToolAppView
        key={toolUse.id}
        backend={backend}
        server={found.server}
        tool={found.tool}
        uri={uri}
        args={args}
        result={result ? chatResult(result) : null}
        cancelled={!result && !busy ? "the call did not finish" : null}
        onMessage={(view, message) => {
          const key = nextViewMessage.current++;
          setViewMessages((list) => [...list, { key, label: viewLabel(view, found.tool), message }]);
          return true;
        }}
        onContext={(view, context) =>
          setViewContexts((list) => [
            ...list.filter((c) => c.viewId !== view.viewId),
            { viewId: view.viewId, label: viewLabel(view, found.tool), context },
          ])
        }
      />
    );
  };

  return (
    <div className="split">
      <section className="list-pane" aria-label="Conversations">
        <header className="pane-header">
          <h2>Chat</h2>
          <button className="primary" data-testid="new-chat" onClick={start}>
            New chat
          </button>
        </header>
        <ul className="item-list" role="listbox" aria-label="Conversations">
          {conversations.map((c) => (
            <li
              key={c.id}
              role="option"
              tabIndex={0}
              aria-selected={c.id === current}
              className={c.id === current ? "selected" : undefined}
              data-testid="conversation"
              data-id={c.id}
              onClick={() => setCurrent(c.id)}
              onKeyDown={(e) => {
                if (e.key === "Enter" || e.key === " ") {
                  e.preventDefault();
                  setCurrent(c.id);
                }
              }}
            >
              <div className="item-title">
                <strong>{c.title}</strong>
              </div>
              <div className="muted small">
                {c.provider} · {c.model}
              </div>
            </li>
          ))}
        </ul>
        {conversations.length === 0 ? <p className="muted">No conversations yet.</p> : null}
      </section>
      <section className="detail-pane chat" aria-label="Conversation">
        {error ? (
          <div className="banner error" data-testid="chat-error">
            {error}
          </div>
        ) : null}
        {conversation ? (
          <>
            <header className="pane-header">
              <h2>{conversation.title}</h2>
              <select
                data-testid="chat-model"
                value={`${conversation.provider}/${conversation.model}`}
                onChange={async (e) => {
                  // Provider names never contain "/"; model names may (OpenRouter).
                  const v = e.currentTarget.value;
                  const cut = v.indexOf("/");
                  const provider = v.slice(0, cut);
                  const model = v.slice(cut + 1);
                  const next = { ...conversation, provider, model };
                  await backend.updateConversation(next).catch((err: unknown) => setError(errorMessage(err)));
                  loadList();
                }}
              >
                {models.map((m) => (
                  <option key={`${m.provider}/${m.model}`} value={`${m.provider}/${m.model}`}>
                    {m.provider === MANUAL.provider ? "manual · you write the answers" : `${m.provider} · ${m.model}`}
                  </option>
                ))}
              </select>
              <button
                className="small danger"
                data-testid="delete-chat"
                onClick={async () => {
                  await backend.deleteConversation(conversation.id).catch((err: unknown) => setError(errorMessage(err)));
                  setCurrent(null);
                  loadList();
                }}
              >
                Delete
              </button>
            </header>
            <div className="messages" data-testid="chat-messages">
              {messages.map((m) => (
                <Message key={m.id} message={m} appFor={underToolUse} />
              ))}
              {streaming !== null ? (
                <div className="message assistant streaming" data-testid="chat-streaming">
                  <div className="role">assistant</div>
                  <ChatText text={streaming} />
                </div>
              ) : null}
              {writingCalls}
              {progress ? (
                <div className="muted" data-testid="chat-progress">
                  {progress.server}: {progress.message ?? "working"}{" "}
                  {progress.total ? <progress value={progress.progress} max={progress.total} /> : `(${progress.progress})`}
                </div>
              ) : null}
              {busy && streaming === null && !progress ? <p className="muted">Waiting for the model…</p> : null}
            </div>
            {withheld.length ? (
              <Withheld tools={withheld} reviewing={reviewing} onReview={() => setReviewing((r) => !r)} />
            ) : null}
            {reviewing ? (
              <div className="chat-pins" data-testid="chat-pins">
                <PinsPanel
                  backend={backend}
                  host={host}
                  server={withheld.find((t) => t.reason !== "hidden_characters")?.server ?? null}
                />
                <p className="muted small">Tools you approve here are offered from your next message on.</p>
              </div>
            ) : null}
            <Composer
              backend={backend}
              host={host}
              busy={busy}
              viewMessages={viewMessages}
              onDropViewMessage={(key) => setViewMessages((list) => list.filter((m) => m.key !== key))}
              viewContexts={viewContexts}
              onDropViewContext={(viewId) => setViewContexts((list) => list.filter((c) => c.viewId !== viewId))}
              onSend={(added) => {
                // A view's context goes with one message: the next the person sends.
                setViewContexts([]);
                void send(added);
              }}
              onStop={() => backend.cancelTurn(conversation.id).catch(() => undefined)}
            />
          </>
        ) : (
          <p className="muted">
            Start a chat with one of your models. It can use the running servers' tools you approved (Approvals ›
            Tool definitions); you approve each call.
          </p>
        )}
      </section>
    </div>
  );
}

function Composer(props: {
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
  const prompts = useEverything<PromptEntry>(host, "prompts", async (server) =>
    (await backend.listPrompts(server)).map((prompt) => ({ server, prompt })),
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
      return prompts
        .map((p) => ({ p, s: fuzzyScore(slash, `${p.prompt.name} ${p.prompt.title ?? ""} ${p.server}`) }))
        .filter((x) => x.s !== null)
        .sort((a, b) => (b.s ?? 0) - (a.s ?? 0))
        .slice(0, 12)
        .map((x) => ({ kind: "prompt" as const, entry: x.p }));
    if (at !== null)
      return resources
        .map((r) => ({ r, s: fuzzyScore(at, `${r.resource.name} ${r.resource.uri}`) }))
        .filter((x) => x.s !== null)
        .sort((a, b) => (b.s ?? 0) - (a.s ?? 0))
        .slice(0, 12)
        .map((x) => ({ kind: "resource" as const, entry: x.r }));
    return [];
  }, [slash, at, prompts, resources]);

  const choose = (i: number) => {
    const m = matches[i];
    if (!m) return;
    if (m.kind === "prompt") {
      setPicked(m.entry);
      setText("");
    } else {
      setAttached((a) => [...a, { label: `@${m.entry.resource.name}`, resource: m.entry }]);
      setText(text.replace(/@\S*$/, ""));
    }
    setHighlight(0);
  };

  const submit = async () => {
    if (props.busy || (text.trim() === "" && attached.length === 0)) return;
    const blocks: Json[] = [];
    for (const a of attached) blocks.push(...("resource" in a ? await attach(backend, a.resource) : [a.block]));
    if (text.trim() !== "") blocks.push({ type: "text", text: text.trim() });
    props.onSend([{ role: "user", content: [...contextBlocks(props.viewContexts), ...blocks] }]);
    setText("");
    setAttached([]);
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
            The view <strong>{m.label}</strong> wants to send:
          </div>
          <div className="view-message-body">
            {m.message.content.map((b, i) =>
              b.type === "text" ? (
                <div key={i} className="chat-text">
                  {b.text}
                </div>
              ) : (
                <span key={i} className="chip">
                  {blockLabel(b)}
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
              context from {c.label}
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
                data-testid={m.kind === "prompt" ? "palette-prompt-option" : "palette-resource-option"}
                data-name={m.kind === "prompt" ? m.entry.prompt.name : m.entry.resource.uri}
                onMouseDown={(e) => {
                  e.preventDefault();
                  choose(i);
                }}
              >
                <span className="name">
                  {m.kind === "prompt" ? `/${m.entry.prompt.name}` : `@${m.entry.resource.name}`}
                </span>{" "}
                <span className="muted small">
                  {m.entry.server}
                  {m.kind === "prompt" && m.entry.prompt.description ? ` · ${m.entry.prompt.description}` : ""}
                  {m.kind === "resource" ? ` · ${m.entry.resource.uri}` : ""}
                </span>
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      {attached.length ? (
        <div className="chips" data-testid="attachments">
          {attached.map((a, i) => (
            <span key={i} className="chip" data-testid="attachment">
              {a.label}
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
          placeholder="Message the model. / for a server's prompt, @ to attach a resource. Ctrl+Enter sends."
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
    </div>
  );
}
