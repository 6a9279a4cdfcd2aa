// The open conversation's session: its messages, the turn that runs (busy, the answer streaming
// in, the calls the model is still writing, a tool's progress), the calls approved in this turn,
// the tasks of its calls, the tools held back, what the tools' views handed over, and the error
// shown. `chatReducer` is pure: the host's events and the answers of the backend are actions, and
// whatever belongs to another conversation (or came after the turn ended) is dropped there.
// `useChatSession` runs it: it listens to the host and asks the backend.
import type { Dispatch } from "react";
import { useCallback, useEffect, useReducer, useRef } from "react";
import type { Backend } from "../../backend";
import { errorMessage } from "../../backend";
import type { ChatMessage } from "../../bindings/ChatMessage";
import type { Conversation } from "../../bindings/Conversation";
import type { CoreEvent } from "../../bindings/CoreEvent";
import type { NewMessage } from "../../bindings/NewMessage";
import type { TaskView } from "../../bindings/TaskView";
import type { AppMessageParams } from "../../mcp";
import { skillOf } from "./blocks";
import type { Json, ServerTool } from "./calls";
import { chatCallId } from "./calls";
import type { ViewContext, ViewMessage } from "./views";
import type { Held, WithheldState } from "./withheld";

/** A tool's progress in the turn that runs, as on the Tools screen. */
export interface ChatProgress {
  server: string;
  progress: number;
  total: number | null;
  message: string | null;
}

/** A tool call the model is still writing: the tool's name and the arguments so far. */
export interface WritingCall {
  name: string;
  args: Record<string, unknown>;
}

export interface ChatSession {
  /** The conversation open, if any. */
  current: string | null;
  messages: ChatMessage[];
  /** A turn runs: the model is answering. */
  busy: boolean;
  /** The answer streaming in, until its message arrives. */
  streaming: string | null;
  /** The tool calls the model is still writing in this turn, by their place in its answer. */
  writing: ReadonlyMap<number, WritingCall>;
  /** The arguments of this turn's approved calls (edits included), by tool_use id. */
  approved: ReadonlyMap<string, Record<string, unknown>>;
  /** The tasks of this conversation's tool calls, by call id (see `chatCallId`). */
  tasks: ReadonlyMap<string, TaskView>;
  progress: ChatProgress | null;
  /** The tools the model is not offered, and why. */
  withheld: WithheldState;
  /** The check of the tools held back whose answer is awaited; whatever sets the list first
   * (a turn's report, another conversation) makes its answer stale. */
  withheldAsked: number | null;
  /** The tools held back are being reviewed (the pins panel is open). */
  reviewing: boolean;
  /** What the tools' views asked to send: it waits for the person. */
  viewMessages: ViewMessage[];
  /** What the tools' views gave as context: it goes with the person's next message. */
  viewContexts: ViewContext[];
  /** The key of the next view message. */
  nextViewMessage: number;
  error: string | null;
  /** Counts the times the list of conversations should be read again (a turn ended, events
   * were dropped). */
  listRevision: number;
  /** Made anew when events were dropped: the conversation named is read again. */
  reread: { conversation: string } | null;
}

export type ChatAction =
  /** Another conversation is opened (or none). */
  | { type: "open"; conversation: string | null }
  /** The messages of a conversation opened, as the backend has them. */
  | { type: "loaded"; conversation: string; messages: ChatMessage[] }
  /** A conversation read again after dropped events: its messages, and whether its turn runs. */
  | { type: "reread"; conversation: string; messages: ChatMessage[]; answering: boolean }
  /** Every task the backend knows, when `conversation` was opened. */
  | { type: "tasksListed"; conversation: string; tasks: TaskView[] }
  | { type: "event"; event: CoreEvent }
  | { type: "withheldAsked"; request: number }
  | { type: "withheldAnswered"; request: number; tools: Held[] }
  /** The person sends messages; `turn` when the last is theirs, so that the model answers. */
  | { type: "sending"; turn: boolean }
  | { type: "sendFailed"; error: string }
  | { type: "error"; error: string | null }
  | { type: "toggleReview" }
  | { type: "closeReview" }
  | { type: "viewMessage"; label: string; message: AppMessageParams }
  | { type: "dropViewMessage"; key: number }
  | { type: "viewContext"; context: ViewContext }
  | { type: "dropViewContext"; viewId: string };

const NOTHING_WRITTEN: ReadonlyMap<number, WritingCall> = new Map();

export const INITIAL_SESSION: ChatSession = {
  current: null,
  messages: [],
  busy: false,
  streaming: null,
  writing: NOTHING_WRITTEN,
  approved: new Map(),
  tasks: new Map(),
  progress: null,
  withheld: { tools: [], turn: false },
  withheldAsked: null,
  reviewing: false,
  viewMessages: [],
  viewContexts: [],
  nextViewMessage: 1,
  error: null,
  listRevision: 0,
  reread: null,
};

/** Whether the reducer does anything with `e` (the listener passes on only these). */
export function heard(e: CoreEvent): boolean {
  switch (e.type) {
    case "chatText":
    case "chatToolsWithheld":
    case "chatToolCall":
    case "chatToolInput":
    case "chatMessage":
    case "chatDone":
    case "task":
    case "progress":
    case "resync":
      return true;
    default:
      return false;
  }
}

function hasToolResult(message: ChatMessage): boolean {
  return Array.isArray(message.content) && (message.content as Json[]).some((b) => b.type === "tool_result");
}

/** What a host event changes. */
function onEvent(s: ChatSession, e: CoreEvent): ChatSession {
  const mine = "conversation" in e && e.conversation === s.current;
  switch (e.type) {
    // Text can arrive after the turn's end (streams and state changes travel apart): a turn that
    // is over shows no more of it.
    case "chatText":
      return mine && s.busy ? { ...s, streaming: (s.streaming ?? "") + e.text } : s;
    case "chatToolsWithheld":
      return mine ? { ...s, withheld: { tools: e.tools, turn: true }, withheldAsked: null } : s;
    // A call the model made that the server runs as a task: its status shows under the call.
    case "task":
      return s.current && e.task.callId?.startsWith(chatCallId(s.current, ""))
        ? { ...s, tasks: new Map(s.tasks).set(e.task.callId, e.task) }
        : s;
    case "chatToolCall":
      return mine ? { ...s, approved: new Map(s.approved).set(e.toolUseId, e.arguments) } : s;
    case "chatToolInput":
      return mine && s.busy ? { ...s, writing: new Map(s.writing).set(e.index, { name: e.name, args: e.arguments }) } : s;
    case "chatMessage": {
      if (!mine) return s;
      const message = e.message;
      const messages = s.messages.some((x) => x.id === message.id) ? s.messages : [...s.messages, message];
      // The model's next message ends what it was writing; it, or a call's result, ends the
      // call's progress.
      if (message.role === "assistant") return { ...s, messages, streaming: null, writing: NOTHING_WRITTEN, progress: null };
      return { ...s, messages, progress: hasToolResult(message) ? null : s.progress };
    }
    // A tool the model called reports progress, as on the Tools screen.
    case "progress":
      return s.busy ? { ...s, progress: { server: e.server, progress: e.progress, total: e.total, message: e.message } } : s;
    // Events were dropped (a chatDone among them, perhaps): read the list and the conversation
    // again, and whether its turn still runs.
    case "resync":
      return { ...s, listRevision: s.listRevision + 1, reread: s.current ? { conversation: s.current } : s.reread };
    case "chatDone":
      if (!mine) return s;
      return {
        ...s,
        busy: false,
        streaming: null,
        writing: NOTHING_WRITTEN,
        progress: null,
        error: e.error ? e.error.message : s.error,
        listRevision: s.listRevision + 1,
      };
    default:
      return s;
  }
}

export function chatReducer(s: ChatSession, a: ChatAction): ChatSession {
  switch (a.type) {
    case "open":
      if (a.conversation === s.current) return s;
      // What belonged to the conversation before goes; its messages stay until the new one's
      // are read.
      return {
        ...s,
        current: a.conversation,
        messages: a.conversation ? s.messages : [],
        writing: NOTHING_WRITTEN,
        approved: new Map(),
        tasks: new Map(),
        withheld: INITIAL_SESSION.withheld,
        withheldAsked: null,
        reviewing: false,
        viewMessages: [],
        viewContexts: [],
      };
    case "loaded":
      return a.conversation === s.current ? { ...s, messages: a.messages } : s;
    case "reread":
      if (a.conversation !== s.current) return s;
      return a.answering
        ? { ...s, messages: a.messages, busy: true }
        : { ...s, messages: a.messages, busy: false, streaming: null, progress: null };
    case "tasksListed": {
      if (a.conversation !== s.current) return s;
      const prefix = chatCallId(a.conversation, "");
      const mine = a.tasks.filter((t) => t.callId?.startsWith(prefix));
      // What an event told meanwhile is newer than the list.
      return { ...s, tasks: new Map([...mine.map((t): [string, TaskView] => [t.callId ?? "", t]), ...s.tasks]) };
    }
    case "event":
      return onEvent(s, a.event);
    case "withheldAsked":
      return { ...s, withheldAsked: a.request };
    case "withheldAnswered":
      return a.request === s.withheldAsked ? { ...s, withheld: { tools: a.tools, turn: false }, withheldAsked: null } : s;
    case "sending":
      // A view's context goes with one message: the next the person sends.
      return { ...s, error: null, busy: a.turn, viewContexts: [] };
    case "sendFailed":
      return { ...s, busy: false, error: a.error };
    case "error":
      return { ...s, error: a.error };
    case "toggleReview":
      return { ...s, reviewing: !s.reviewing };
    case "closeReview":
      return { ...s, reviewing: false };
    case "viewMessage": {
      const key = s.nextViewMessage;
      return { ...s, nextViewMessage: key + 1, viewMessages: [...s.viewMessages, { key, label: a.label, message: a.message }] };
    }
    case "dropViewMessage":
      return { ...s, viewMessages: s.viewMessages.filter((m) => m.key !== a.key) };
    case "viewContext":
      return { ...s, viewContexts: [...s.viewContexts.filter((c) => c.viewId !== a.context.viewId), a.context] };
    case "dropViewContext":
      return { ...s, viewContexts: s.viewContexts.filter((c) => c.viewId !== a.viewId) };
  }
}

/** A new conversation's title: the first words of its first message, else the skill it brought. */
export function titleOf(messages: NewMessage[]): string {
  const blocks = messages.flatMap((m) => m.content as Json[]);
  const first = blocks.find((b) => b.type === "text" && !skillOf(b));
  const skill = blocks.map(skillOf).find((m) => m !== null);
  return String(first?.text ?? (skill ? `Skill ${skill.name}` : "Chat")).slice(0, 60);
}

/** The chat's session over the backend: `tools` are the running servers' (a change asks again
 * which of them are held back). */
export function useChatSession(
  backend: Backend,
  tools: ServerTool[],
): {
  state: ChatSession;
  dispatch: Dispatch<ChatAction>;
  /** Sends the person's messages in the open `conversation` (titled by the first, if new). */
  send: (conversation: Conversation, messages: NewMessage[]) => Promise<void>;
  /** Asks again which tools are held back (after an approval). */
  recheckWithheld: () => void;
} {
  const [state, dispatch] = useReducer(chatReducer, INITIAL_SESSION);
  const { current, reread } = state;

  useEffect(() => {
    let unlisten: (() => void) | null = null;
    let live = true;
    backend
      .onCoreEvent((event) => {
        if (heard(event)) dispatch({ type: "event", event });
      })
      .then((u) => (live ? (unlisten = u) : u()));
    return () => {
      live = false;
      unlisten?.();
    };
  }, [backend]);

  // A conversation opened: its messages, and the tasks of its calls.
  useEffect(() => {
    if (!current) return;
    backend.getConversation(current).then(
      (v) => dispatch({ type: "loaded", conversation: current, messages: v.messages }),
      (e: unknown) => dispatch({ type: "error", error: errorMessage(e) }),
    );
    backend.listTasks().then(
      (tasks) => dispatch({ type: "tasksListed", conversation: current, tasks }),
      () => undefined,
    );
  }, [backend, current]);

  useEffect(() => {
    if (!reread) return;
    const { conversation } = reread;
    backend.getConversation(conversation).then(
      (v) => dispatch({ type: "reread", conversation, messages: v.messages, answering: v.answering }),
      (e: unknown) => dispatch({ type: "error", error: errorMessage(e) }),
    );
  }, [backend, reread]);

  // The tools held back, as the core decides them for a turn: asked when the conversation
  // opens, when the servers' tools change, and after an approval.
  const withheldRequests = useRef(0);
  const recheckWithheld = useCallback(() => {
    const request = ++withheldRequests.current;
    dispatch({ type: "withheldAsked", request });
    backend.withheldTools().then(
      (list) => dispatch({ type: "withheldAnswered", request, tools: list }),
      () => undefined,
    );
  }, [backend]);
  useEffect(() => {
    if (current) recheckWithheld();
  }, [current, tools, recheckWithheld]);

  const send = useCallback(
    async (conversation: Conversation, messages: NewMessage[]) => {
      dispatch({ type: "sending", turn: messages[messages.length - 1]?.role === "user" });
      try {
        if (conversation.title === "New chat") {
          await backend.updateConversation({ ...conversation, title: titleOf(messages) });
        }
        await backend.sendMessage(conversation.id, messages);
      } catch (e) {
        dispatch({ type: "sendFailed", error: errorMessage(e) });
      }
    },
    [backend],
  );

  return { state, dispatch, send, recheckWithheld };
}
