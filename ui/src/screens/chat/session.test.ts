// The chat session's reducer, without rendering: each host event, the turn's start and end, the
// calls approved and being written, tasks, progress, the tools held back, a failed or cut turn,
// and what belongs to another conversation (or comes after the turn) being dropped.
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../../bindings/ChatMessage";
import type { CoreEvent } from "../../bindings/CoreEvent";
import type { TaskView } from "../../bindings/TaskView";
import { chatCallId } from "./calls";
import type { ChatAction, ChatSession } from "./session";
import { chatReducer, heard, INITIAL_SESSION } from "./session";

const C = "c1";

function run(state: ChatSession, ...actions: ChatAction[]): ChatSession {
  return actions.reduce(chatReducer, state);
}

function ev(event: CoreEvent): ChatAction {
  return { type: "event", event };
}

let nextId = 1;
function message(role: string, content: unknown[]): ChatMessage {
  return { id: nextId++, role, content, atMs: 0 };
}

const text = (t: string, conversation = C) => ev({ type: "chatText", conversation, text: t });
const said = (m: ChatMessage, conversation = C) => ev({ type: "chatMessage", conversation, message: m });
const done = (conversation = C, error: { code: "provider" | "cancelled"; message: string } | null = null) =>
  ev({ type: "chatDone", conversation, error });
const progress = (n: number) =>
  ev({ type: "progress", server: "everything", callId: null, progressToken: 1, progress: n, total: 5, message: `step ${n}` });

function task(callId: string | null, status: TaskView["status"] = "working"): TaskView {
  return {
    server: "everything",
    taskId: `task-${callId}`,
    tool: "research",
    callId,
    status,
    statusMessage: null,
    createdAt: 0,
    updatedAt: 0,
    result: null,
    error: null,
  };
}

/** `C` open, a turn running. */
function answering(): ChatSession {
  return run(INITIAL_SESSION, { type: "open", conversation: C }, { type: "sending", turn: true });
}

describe("chatReducer", () => {
  it("opens a conversation with nothing of the one before", () => {
    const before = run(
      answering(),
      ev({ type: "chatToolCall", conversation: C, toolUseId: "u1", arguments: { a: 1 } }),
      ev({ type: "chatToolInput", conversation: C, index: 0, name: "s__t", arguments: {} }),
      ev({ type: "task", server: "everything", task: task(chatCallId(C, "u1")) }),
      ev({ type: "chatToolsWithheld", conversation: C, tools: [{ server: "s", tool: "t", reason: "not_approved" }] }),
      { type: "toggleReview" },
      { type: "viewContext", context: { viewId: "v", label: "View", context: {} } },
      { type: "viewMessage", label: "View", message: { role: "user", content: [] } },
    );
    const after = chatReducer(before, { type: "open", conversation: "c2" });
    expect(after.current).toBe("c2");
    expect(after.approved.size).toBe(0);
    expect(after.writing.size).toBe(0);
    expect(after.tasks.size).toBe(0);
    expect(after.withheld).toEqual({ tools: [], turn: false });
    expect(after.reviewing).toBe(false);
    expect(after.viewContexts).toEqual([]);
    expect(after.viewMessages).toEqual([]);
    // Opening the one open changes nothing; closing it leaves no messages.
    expect(chatReducer(before, { type: "open", conversation: C })).toBe(before);
    const withMessages = run(before, { type: "loaded", conversation: C, messages: [message("user", [])] });
    expect(chatReducer(withMessages, { type: "open", conversation: null }).messages).toEqual([]);
  });

  it("takes the messages read for the conversation open only", () => {
    const m = [message("user", [{ type: "text", text: "hi" }])];
    const open = run(INITIAL_SESSION, { type: "open", conversation: C });
    expect(chatReducer(open, { type: "loaded", conversation: C, messages: m }).messages).toBe(m);
    // A slow read of the conversation before.
    expect(chatReducer(open, { type: "loaded", conversation: "c0", messages: m })).toBe(open);
  });

  it("is busy from a message of the person's until the turn's end, and clears the error", () => {
    const failed = run(INITIAL_SESSION, { type: "open", conversation: C }, { type: "error", error: "earlier" });
    const sending = chatReducer(failed, { type: "sending", turn: true });
    expect(sending.busy).toBe(true);
    expect(sending.error).toBeNull();
    // Messages that end with another role's start no turn.
    expect(chatReducer(failed, { type: "sending", turn: false }).busy).toBe(false);
    const ended = chatReducer(sending, done());
    expect(ended.busy).toBe(false);
    expect(ended.listRevision).toBe(sending.listRevision + 1);
    // Another conversation's end is not this turn's.
    expect(chatReducer(sending, done("c2"))).toBe(sending);
  });

  it("says why a message could not be sent, and ends the turn", () => {
    const s = chatReducer(answering(), { type: "sendFailed", error: "no key for openai" });
    expect(s.busy).toBe(false);
    expect(s.error).toBe("no key for openai");
  });

  it("streams the answer's text while the turn runs, until the answer's message", () => {
    let s = run(answering(), text("Hel"), text("lo"), text("elsewhere", "c2"));
    expect(s.streaming).toBe("Hello");
    const answer = message("assistant", [{ type: "text", text: "Hello" }]);
    s = chatReducer(s, said(answer));
    expect(s.streaming).toBeNull();
    expect(s.messages).toEqual([answer]);
    // The same message again (a resync's read raced the event) is not shown twice.
    expect(chatReducer(s, said(answer)).messages).toEqual([answer]);
  });

  it("shows no text after the turn ended, nor before one started", () => {
    const ended = run(answering(), text("Hi"), done());
    expect(ended.streaming).toBeNull();
    expect(chatReducer(ended, text("late"))).toBe(ended);
    const idle = run(INITIAL_SESSION, { type: "open", conversation: C });
    expect(chatReducer(idle, text("early"))).toBe(idle);
  });

  it("shows the calls the model is writing, by their place, until its message", () => {
    let s = run(
      answering(),
      ev({ type: "chatToolInput", conversation: C, index: 0, name: "s__echo", arguments: { message: "h" } }),
      ev({ type: "chatToolInput", conversation: C, index: 0, name: "s__echo", arguments: { message: "hi" } }),
      ev({ type: "chatToolInput", conversation: C, index: 1, name: "s__add", arguments: {} }),
      ev({ type: "chatToolInput", conversation: "c2", index: 2, name: "s__other", arguments: {} }),
    );
    expect([...s.writing]).toEqual([
      [0, { name: "s__echo", args: { message: "hi" } }],
      [1, { name: "s__add", args: {} }],
    ]);
    s = chatReducer(s, said(message("assistant", [{ type: "tool_use", id: "u1", name: "s__echo", input: { message: "hi" } }])));
    expect(s.writing.size).toBe(0);
    // Not once the turn is over.
    const ended = chatReducer(answering(), done());
    expect(chatReducer(ended, ev({ type: "chatToolInput", conversation: C, index: 0, name: "x", arguments: {} }))).toBe(ended);
  });

  it("keeps the arguments each call was approved with, by tool_use id, in the conversation open only", () => {
    const s = run(
      answering(),
      ev({ type: "chatToolCall", conversation: C, toolUseId: "u1", arguments: { city: "Bergen" } }),
      ev({ type: "chatToolCall", conversation: "c2", toolUseId: "u2", arguments: { city: "Rome" } }),
    );
    expect([...s.approved]).toEqual([["u1", { city: "Bergen" }]]);
  });

  it("shows a tool's progress while the turn runs, until the call's result or the model's next message", () => {
    let s = chatReducer(answering(), progress(2));
    expect(s.progress).toEqual({ server: "everything", progress: 2, total: 5, message: "step 2" });
    // The person's own message does not end it; the call's result does.
    s = chatReducer(s, said(message("user", [{ type: "text", text: "more" }])));
    expect(s.progress).not.toBeNull();
    s = chatReducer(s, said(message("user", [{ type: "tool_result", toolUseId: "u1", content: [] }])));
    expect(s.progress).toBeNull();
    s = run(s, progress(3), said(message("assistant", [{ type: "text", text: "done" }])));
    expect(s.progress).toBeNull();
    // None outside a turn.
    const idle = run(INITIAL_SESSION, { type: "open", conversation: C });
    expect(chatReducer(idle, progress(1))).toBe(idle);
  });

  it("follows the tasks of this conversation's calls, the events newer than the list", () => {
    const mine = chatCallId(C, "u1");
    const open = run(INITIAL_SESSION, { type: "open", conversation: C });
    let s = run(
      open,
      ev({ type: "task", server: "everything", task: task(chatCallId("c2", "u1")) }),
      ev({ type: "task", server: "everything", task: task("u1") }),
      ev({ type: "task", server: "everything", task: task(null) }),
    );
    expect(s.tasks.size).toBe(0);
    s = chatReducer(s, ev({ type: "task", server: "everything", task: task(mine, "input_required") }));
    s = chatReducer(s, {
      type: "tasksListed",
      conversation: C,
      tasks: [task(mine, "working"), task(chatCallId(C, "u2"), "completed"), task(chatCallId("c2", "u3"))],
    });
    expect(Object.fromEntries([...s.tasks].map(([id, t]) => [id, t.status]))).toEqual({
      [chatCallId(C, "u2")]: "completed",
      [mine]: "input_required",
    });
    // A list asked for the conversation before.
    expect(chatReducer(open, { type: "tasksListed", conversation: "c0", tasks: [task(chatCallId("c0", "u1"))] })).toBe(open);
    // No conversation open: no task is the chat's.
    expect(chatReducer(INITIAL_SESSION, ev({ type: "task", server: "everything", task: task(mine) }))).toBe(INITIAL_SESSION);
  });

  it("takes the tools held back from the check asked last, unless a turn reported them since", () => {
    const held = [{ server: "everything", tool: "echo", reason: "not_approved" as const }];
    const open = run(INITIAL_SESSION, { type: "open", conversation: C });
    let s = run(open, { type: "withheldAsked", request: 1 }, { type: "withheldAsked", request: 2 });
    // The first check was overtaken by the second.
    expect(chatReducer(s, { type: "withheldAnswered", request: 1, tools: held }).withheld.tools).toEqual([]);
    s = chatReducer(s, { type: "withheldAnswered", request: 2, tools: held });
    expect(s.withheld).toEqual({ tools: held, turn: false });
    // A turn's report wins over a check that was asked before it and answers after it.
    const reported = [{ server: "everything", tool: "weather", reason: "changed" as const }];
    s = run(
      s,
      { type: "withheldAsked", request: 3 },
      ev({ type: "chatToolsWithheld", conversation: C, tools: reported }),
      { type: "withheldAnswered", request: 3, tools: held },
    );
    expect(s.withheld).toEqual({ tools: reported, turn: true });
    // Another conversation's report is not this one's; nor is a check asked before it opened.
    expect(chatReducer(s, ev({ type: "chatToolsWithheld", conversation: "c2", tools: [] }))).toBe(s);
    const other = run(s, { type: "withheldAsked", request: 4 }, { type: "open", conversation: "c2" }, { type: "withheldAnswered", request: 4, tools: held });
    expect(other.withheld).toEqual({ tools: [], turn: false });
  });

  it("opens and closes the review of the tools held back", () => {
    const open = run(INITIAL_SESSION, { type: "open", conversation: C });
    expect(chatReducer(open, { type: "toggleReview" }).reviewing).toBe(true);
    expect(run(open, { type: "toggleReview" }, { type: "toggleReview" }).reviewing).toBe(false);
    expect(run(open, { type: "toggleReview" }, { type: "closeReview" }).reviewing).toBe(false);
  });

  it("ends a failed turn saying why, keeping what was said", () => {
    const s = run(answering(), text("Partial"), progress(1), done(C, { code: "provider", message: "openai: 500 Internal Server Error" }));
    expect(s.busy).toBe(false);
    expect(s.streaming).toBeNull();
    expect(s.progress).toBeNull();
    expect(s.error).toBe("openai: 500 Internal Server Error");
    // A turn that ends well keeps the error a step before it showed (none, after a send).
    expect(chatReducer(run(INITIAL_SESSION, { type: "open", conversation: C }, { type: "error", error: "x" }), done()).error).toBe("x");
  });

  it("keeps a cut answer as the model's message and ends the turn saying it was cut", () => {
    const cut = message("assistant", [{ type: "text", text: "The tides are" }]);
    const s = run(
      answering(),
      text("The tides are"),
      ev({ type: "chatToolInput", conversation: C, index: 0, name: "s__echo", arguments: { message: "h" } }),
      said(cut),
      done(C, { code: "provider", message: "The answer was cut off: the connection dropped." }),
    );
    expect(s.messages).toEqual([cut]);
    expect(s.streaming).toBeNull();
    expect(s.writing.size).toBe(0);
    expect(s.busy).toBe(false);
    expect(s.error).toBe("The answer was cut off: the connection dropped.");
  });

  it("reads the list and the conversation again after dropped events, and ends a turn whose end was lost", () => {
    const s = run(answering(), text("xxx"), progress(1), ev({ type: "resync" }));
    expect(s.listRevision).toBe(answering().listRevision + 1);
    expect(s.reread).toEqual({ conversation: C });
    // A new request each time, so that each is read.
    expect(chatReducer(s, ev({ type: "resync" })).reread).not.toBe(s.reread);
    const m = [message("user", []), message("assistant", [{ type: "text", text: "Hello" }])];
    const still = chatReducer(s, { type: "reread", conversation: C, messages: m, answering: true });
    expect(still.busy).toBe(true);
    expect(still.streaming).toBe("xxx");
    const over = chatReducer(s, { type: "reread", conversation: C, messages: m, answering: false });
    expect(over.busy).toBe(false);
    expect(over.streaming).toBeNull();
    expect(over.progress).toBeNull();
    expect(over.messages).toBe(m);
    // Read for a conversation no longer open.
    expect(chatReducer(s, { type: "reread", conversation: "c0", messages: m, answering: false })).toBe(s);
    // With none open, only the list is read again.
    expect(chatReducer(INITIAL_SESSION, ev({ type: "resync" })).reread).toBeNull();
  });

  it("keeps what the views hand over: messages by key, the latest context of each view until the next send", () => {
    const content = [{ type: "text" as const, text: "hi" }];
    let s = run(
      INITIAL_SESSION,
      { type: "viewMessage", label: "A", message: { role: "user", content } },
      { type: "viewMessage", label: "B", message: { role: "user", content } },
    );
    expect(s.viewMessages.map((m) => [m.key, m.label])).toEqual([
      [1, "A"],
      [2, "B"],
    ]);
    s = chatReducer(s, { type: "dropViewMessage", key: 1 });
    expect(s.viewMessages.map((m) => m.label)).toEqual(["B"]);
    s = run(
      s,
      { type: "viewContext", context: { viewId: "v1", label: "A", context: { content } } },
      { type: "viewContext", context: { viewId: "v2", label: "B", context: {} } },
      { type: "viewContext", context: { viewId: "v1", label: "A", context: {} } },
    );
    expect(s.viewContexts.map((c) => [c.viewId, c.context])).toEqual([
      ["v2", {}],
      ["v1", {}],
    ]);
    expect(chatReducer(s, { type: "dropViewContext", viewId: "v2" }).viewContexts.map((c) => c.viewId)).toEqual(["v1"]);
    expect(chatReducer(s, { type: "sending", turn: true }).viewContexts).toEqual([]);
  });

  it("leaves the session as it is for the events it does not follow", () => {
    const s = answering();
    const status: CoreEvent = { type: "status", server: "everything", status: { state: "stopped" } };
    expect(heard(status)).toBe(false);
    expect(chatReducer(s, ev(status))).toBe(s);
    expect(heard({ type: "resync" })).toBe(true);
  });
});
