// The Chat: conversations with one of your models, which may call the running servers' tools —
// only those you approved as they are, each call shown in the approval dialog with its arguments
// editable, and in the chat as it went out. The tools held back are listed (before the first
// message too) and can be reviewed here. The composer's "/" palette finds every prompt of every
// server, "@" attaches a server's resource. Answers stream in.
import type { ReactNode } from "react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Backend } from "../backend";
import { errorMessage } from "../backend";
import type { ChatMessage } from "../bindings/ChatMessage";
import type { Conversation } from "../bindings/Conversation";
import type { NewMessage } from "../bindings/NewMessage";
import type { ProviderSettings } from "../bindings/ProviderSettings";
import type { TaskView } from "../bindings/TaskView";
import { ToolAppView } from "../components/app-frame";
import { resolveExposed, toolUiUri } from "../components/app-frame/tool-ui";
import { PinsPanel } from "../components/pins-panel";
import { reveal } from "../components/visible";
import type { HostState } from "../host";
import type { Tool } from "../mcp";
import type { Json } from "./chat/calls";
import { calledWith, chatCallId, chatResult, inputOf, sentArguments } from "./chat/calls";
import { Composer } from "./chat/composer";
import type { ModelChoice } from "./chat/conversations";
import { ConversationHeader, ConversationList, MANUAL } from "./chat/conversations";
import { useEverything } from "./chat/everything";
import { ChatText, Message } from "./chat/message";
import type { ViewContext, ViewMessage } from "./chat/views";
import { viewLabel } from "./chat/views";
import { AllOffered, pinsCanOffer, useWithheld, Withheld } from "./chat/withheld";
import { taskStatusText } from "./tasks";

export { chatCallId, sentArguments } from "./chat/calls";
export { fuzzyScore } from "./chat/composer";

/** A tool the model may call, with the server it belongs to. */
interface ServerTool {
  server: string;
  tool: Tool;
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
  const [reviewing, setReviewing] = useState(false);
  const [viewMessages, setViewMessages] = useState<ViewMessage[]>([]);
  const [viewContexts, setViewContexts] = useState<ViewContext[]>([]);
  // The tool calls the model is still writing in this turn, by their place in its answer.
  const [writing, setWriting] = useState<ReadonlyMap<number, { name: string; args: Record<string, unknown> }>>(new Map());
  // The arguments of this turn's approved calls (edits included), by tool_use id.
  const [approved, setApproved] = useState<ReadonlyMap<string, Record<string, unknown>>>(new Map());
  // The tasks of this conversation's tool calls, by call id (see `chatCallId`).
  const [tasks, setTasks] = useState<ReadonlyMap<string, TaskView>>(new Map());
  const nextViewMessage = useRef(1);
  const tools = useEverything<ServerTool>(host, "tools", async (server) =>
    (await backend.listTools(server)).map((tool) => ({ server, tool })),
  );
  const withheld = useWithheld(backend, current, tools);
  const reportWithheld = withheld.reported;
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
        if (e.type === "chatToolsWithheld" && e.conversation === currentRef.current) reportWithheld(e.tools);
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
  }, [backend, loadList, reportWithheld]);

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

  const changeModel = async (choice: ModelChoice) => {
    if (!conversation) return;
    const changed = { ...conversation, ...choice };
    // Shown (and used by a message sent right away) at once, not when the list comes back: a
    // send in between would otherwise save the old model over the new one.
    setConversations((list) => list.map((c) => (c.id === changed.id ? changed : c)));
    await backend.updateConversation(changed).catch((err: unknown) => setError(errorMessage(err)));
    loadList();
  };

  const remove = async () => {
    if (!conversation) return;
    await backend.deleteConversation(conversation.id).catch((err: unknown) => setError(errorMessage(err)));
    setCurrent(null);
    loadList();
  };

  // The results of the model's calls, by call id, for the views of tools that have one.
  const results = useMemo(() => {
    const byId = new Map<string, Json>();
    for (const m of messages)
      for (const b of Array.isArray(m.content) ? (m.content as Json[]) : [])
        if (b.type === "tool_result" && typeof b.toolUseId === "string") byId.set(b.toolUseId, b);
    return byId;
  }, [messages]);

  // What a call went out with: as approved in this turn, else as its result tells.
  const sentFor = (toolUse: Json): Json | null => {
    if (typeof toolUse.id !== "string") return null;
    const result = results.get(toolUse.id);
    return approved.get(toolUse.id) ?? (result ? calledWith(result, inputOf(toolUse)) : null);
  };

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
    // The view is the server's: it sees a call only as the person approved it, once approved.
    const args = approved.get(toolUse.id) ?? (result ? sentArguments(result, inputOf(toolUse)) : null);
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

  const held = withheld.state.tools;
  const review = (
    <>
      {held.length ? (
        <Withheld state={withheld.state} reviewing={reviewing} onReview={() => setReviewing((r) => !r)} />
      ) : reviewing ? (
        <AllOffered onClose={() => setReviewing(false)} />
      ) : null}
      {reviewing ? (
        <div className="chat-pins" data-testid="chat-pins">
          <PinsPanel
            backend={backend}
            host={host}
            server={held.find(pinsCanOffer)?.server ?? null}
            onApproved={withheld.recheck}
          />
          <p className="muted small">Tools you approve here are offered from your next message on.</p>
        </div>
      ) : null}
    </>
  );

  return (
    <div className="split">
      <section className="list-pane" aria-label="Conversations">
        <header className="pane-header">
          <h2>Chat</h2>
          <button className="primary" data-testid="new-chat" onClick={start}>
            New chat
          </button>
        </header>
        <ConversationList conversations={conversations} current={current} onOpen={setCurrent} />
      </section>
      <section className="detail-pane chat" aria-label="Conversation">
        {error ? (
          <div className="banner error" data-testid="chat-error">
            {error}
          </div>
        ) : null}
        {conversation ? (
          <>
            <ConversationHeader conversation={conversation} models={models} onModel={changeModel} onDelete={remove} />
            <div className="messages" data-testid="chat-messages">
              {messages.map((m) => (
                <Message key={m.id} message={m} sentFor={sentFor} appFor={underToolUse} />
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
            {review}
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
