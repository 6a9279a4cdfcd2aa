import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { Backend } from "../backend";
import { FakeBackend } from "../backend/fake";
import { useHost } from "../host";
import { ChatScreen, chatCallId, fuzzyScore } from "./chat";
import { turnWithheld } from "./chat-test-helpers";

function Screen(props: { backend: FakeBackend }) {
  const host = useHost(props.backend);
  return <ChatScreen backend={props.backend} host={host} />;
}

function backend() {
  const b = new FakeBackend({ resources: 5 }).addServer("everything");
  b.providers = [
    {
      id: "openai",
      kind: "openai",
      baseUrl: null,
      models: [{ provider: "openai", model: "gpt-4o-mini", cost: 0.5, speed: 0.5, intelligence: 0.5 }],
      hasKey: true,
    },
  ];
  return b;
}

async function startChat(b: FakeBackend) {
  render(<Screen backend={b} />);
  fireEvent.click(await screen.findByTestId("new-chat"));
  return screen.findByTestId("chat-input");
}

describe("fuzzyScore", () => {
  it("matches subsequences and ranks tight, early matches first", () => {
    expect(fuzzyScore("tm", "team management")).not.toBeNull();
    expect(fuzzyScore("xyz", "team")).toBeNull();
    expect(fuzzyScore("team", "team")! > fuzzyScore("team", "the earnest ambush")!).toBe(true);
  });
});

describe("Chat screen", () => {
  it("sends a message and shows the model's answer", async () => {
    const b = backend();
    const input = await startChat(b);
    expect((screen.getByTestId("chat-model") as HTMLSelectElement).value).toBe("openai/gpt-4o-mini");
    fireEvent.change(input, { target: { value: "Hi there" } });
    fireEvent.click(screen.getByTestId("chat-send"));
    await waitFor(() => expect(screen.getAllByTestId("chat-message")).toHaveLength(2));
    const [user, assistant] = screen.getAllByTestId("chat-message");
    expect(user!.textContent).toContain("Hi there");
    expect(assistant!.textContent).toContain("Hello from the model.");
    // The conversation took its title from the first message.
    expect(b.conversations[0]!.conversation.title).toBe("Hi there");
  });

  it("keeps the model picked just before a message is sent (the list has not come back yet)", async () => {
    const b = backend();
    const input = await startChat(b);
    // The list reload after the change never lands before the send.
    b.listConversations = () => new Promise(() => {});
    fireEvent.change(screen.getByTestId("chat-model"), { target: { value: "manual/manual" } });
    fireEvent.change(input, { target: { value: "Hi there" } });
    fireEvent.click(screen.getByTestId("chat-send"));
    await waitFor(() => expect(b.calls.some((c) => c.method === "sendMessage")).toBe(true));
    expect(b.conversations[0]!.conversation.provider).toBe("manual");
    expect((screen.getByTestId("chat-model") as HTMLSelectElement).value).toBe("manual/manual");
  });

  it("keeps the model picked when a list asked for before the change comes back after it", async () => {
    const b = backend();
    await startChat(b);
    // A reading of the list that the server answers late, with the conversation as it was.
    const stale = b.conversations.map((c) => ({ ...c.conversation }));
    let answerLate!: () => void;
    const real = b.listConversations.bind(b);
    b.listConversations = () => {
      b.listConversations = real;
      return new Promise((resolve) => (answerLate = () => resolve(stale)));
    };
    act(() => b.emit({ type: "resync" }));
    await waitFor(() => expect(answerLate).toBeDefined());
    fireEvent.change(screen.getByTestId("chat-model"), { target: { value: "manual/manual" } });
    await waitFor(() => expect(b.conversations[0]!.conversation.provider).toBe("manual"));
    await act(async () => answerLate());
    expect((screen.getByTestId("chat-model") as HTMLSelectElement).value).toBe("manual/manual");
  });

  it("starts with the manual provider when no model is configured: you write the answers", async () => {
    const b = backend();
    b.providers = [];
    await startChat(b);
    const select = screen.getByTestId("chat-model") as HTMLSelectElement;
    expect(select.value).toBe("manual/manual");
    expect(select.selectedOptions[0]!.textContent).toBe("manual · you write the answers");
    expect(b.conversations[0]!.conversation.provider).toBe("manual");
    expect(screen.queryByTestId("chat-error")).toBeNull();
  });

  it("ends a turn whose end was lost in a flood of streamed text once told to resync", async () => {
    const b = backend();
    b.dropTurnEnd = true;
    const input = await startChat(b);
    fireEvent.change(input, { target: { value: "Hi there" } });
    fireEvent.click(screen.getByTestId("chat-send"));
    await waitFor(() => expect(b.answering.size).toBe(0));
    const id = b.conversations[0]!.conversation.id;
    await act(async () => {
      for (let i = 0; i < 5000; i++) b.emit({ type: "chatText", conversation: id, text: "x" });
    });
    // The answer's message and the end of the turn never arrived: still answering, as far as
    // the window knows.
    expect(screen.getByTestId("chat-stop")).toBeTruthy();
    await act(async () => b.emit({ type: "resync" }));
    await waitFor(() => expect(screen.queryByTestId("chat-stop")).toBeNull());
    expect(screen.getByTestId("chat-send")).toBeTruthy();
    expect(screen.queryByTestId("chat-streaming")).toBeNull();
    const messages = screen.getAllByTestId("chat-message");
    expect(messages).toHaveLength(2);
    expect(messages[1]!.textContent).toContain("Hello from the model.");
  });

  it("shows no text that arrives after the turn has ended", async () => {
    const b = backend();
    const input = await startChat(b);
    fireEvent.change(input, { target: { value: "Hi there" } });
    fireEvent.click(screen.getByTestId("chat-send"));
    await waitFor(() => expect(screen.getAllByTestId("chat-message")).toHaveLength(2));
    await waitFor(() => expect(screen.queryByTestId("chat-stop")).toBeNull());
    const id = b.conversations[0]!.conversation.id;
    await act(async () => b.emit({ type: "chatText", conversation: id, text: "late" }));
    expect(screen.queryByTestId("chat-streaming")).toBeNull();
  });

  it("shows a called tool's progress while the turn runs", async () => {
    const b = backend();
    b.turnMs = 300;
    const input = await startChat(b);
    // The turn is open for a while; progress arrives meanwhile.
    fireEvent.change(input, { target: { value: "Run the long operation" } });
    fireEvent.click(screen.getByTestId("chat-send"));
    await screen.findByTestId("chat-message");
    await act(async () =>
      b.emit({ type: "progress", server: "everything", callId: "c1", progressToken: 1, progress: 2, total: 5, message: "step 2" }),
    );
    expect(screen.getByTestId("chat-progress").textContent).toContain("everything: step 2");
    await waitFor(() => expect(screen.queryByTestId("chat-progress")).toBeNull());
  });

  it("shows tool calls and their results", async () => {
    const b = backend();
    b.answer = () => [{ type: "tool_use", id: "t1", name: "everything__echo", input: { message: "hi" } }];
    const input = await startChat(b);
    fireEvent.change(input, { target: { value: "Echo hi" } });
    fireEvent.click(screen.getByTestId("chat-send"));
    expect((await screen.findByTestId("chat-tool-use")).textContent).toContain("everything__echo");
    await act(async () =>
      b.emit({
        type: "chatMessage",
        conversation: b.conversations[0]!.conversation.id,
        message: {
          id: 99,
          role: "user",
          content: [{ type: "tool_result", toolUseId: "t1", content: [{ type: "text", text: "Echo: hi" }], isError: false }],
          atMs: 0,
        },
      }),
    );
    expect((await screen.findByTestId("chat-tool-result")).textContent).toContain("Echo: hi");
  });

  it("shows the live status of a task the server runs for the model's call, under that call only", async () => {
    const b = backend();
    b.answer = () => [{ type: "tool_use", id: "t1", name: "everything__simulate-research-query", input: { topic: "tides" } }];
    const input = await startChat(b);
    fireEvent.change(input, { target: { value: "Research tides" } });
    fireEvent.click(screen.getByTestId("chat-send"));
    await screen.findByTestId("chat-tool-use");
    const conversation = b.conversations[0]!.conversation.id;
    const task = {
      server: "everything",
      taskId: "task-1",
      tool: "simulate-research-query",
      callId: chatCallId(conversation, "t1"),
      status: "working" as const,
      statusMessage: "Gathering sources...",
      createdAt: 0,
      updatedAt: 0,
      result: null,
      error: null,
    };
    // Another conversation's task, and a Tools-screen call's, are not this call's.
    await act(async () => {
      b.emit({ type: "task", server: "everything", task: { ...task, taskId: "x", callId: chatCallId("other", "t1"), statusMessage: "elsewhere" } });
      b.emit({ type: "task", server: "everything", task: { ...task, taskId: "y", callId: "t1", statusMessage: "tools screen" } });
    });
    expect(screen.queryByTestId("chat-task-status")).toBeNull();
    await act(async () => b.emit({ type: "task", server: "everything", task }));
    expect(screen.getByTestId("chat-task-status").textContent).toBe("Task Working: Gathering sources...");
    await act(async () =>
      b.emit({ type: "task", server: "everything", task: { ...task, status: "input_required", statusMessage: "Which tides?" } }),
    );
    const status = screen.getByTestId("chat-task-status");
    expect(status.textContent).toBe("Task Waiting for input: Which tides?");
    expect(status.getAttribute("data-status")).toBe("input_required");
  });

  it("shows a call the model is still writing with its arguments so far, until its answer arrives", async () => {
    const b = backend();
    b.turnMs = 300;
    const input = await startChat(b);
    fireEvent.change(input, { target: { value: "Echo hi" } });
    fireEvent.click(screen.getByTestId("chat-send"));
    await screen.findByTestId("chat-message");
    const conversation = b.conversations[0]!.conversation.id;
    await act(async () => {
      b.emit({ type: "chatToolInput", conversation: "other", index: 0, name: "everything__echo", arguments: { message: "x" } });
      b.emit({ type: "chatToolInput", conversation, index: 0, name: "everything__echo", arguments: { message: "h" } });
      b.emit({ type: "chatToolInput", conversation, index: 0, name: "everything__echo", arguments: { message: "hi" } });
    });
    const writing = screen.getAllByTestId("chat-writing-call");
    expect(writing).toHaveLength(1);
    expect(writing[0]!.textContent).toContain("everything__echo");
    expect(writing[0]!.textContent).toContain('"message": "hi"');
    await waitFor(() => expect(screen.queryByTestId("chat-writing-call")).toBeNull());
  });

  it("says which tools the model was not offered and why, and reviews them in place", async () => {
    const b = backend();
    b.extraTools = [{ name: "rm\u200b", inputSchema: { type: "object" } }];
    const input = await startChat(b);
    fireEvent.change(input, { target: { value: "Echo hi" } });
    fireEvent.click(screen.getByTestId("chat-send"));
    await waitFor(() => expect(screen.getAllByTestId("chat-message")).toHaveLength(2));
    // Before the turn only the name hiding characters was held back; echo needs review from here on.
    await waitFor(() => expect(screen.getAllByTestId("chat-withheld-tool").map((t) => t.dataset.tool)).toEqual(["rm\u200b"]));
    b.pins.everything = [
      { item: "tool:echo", state: "new", current: { name: "echo" }, pinned: null, changes: [], hiddenCharacters: false, digest: "d1" },
    ];
    await turnWithheld(b, [
      ["echo", "not_approved"],
      ["add", "changed"],
      ["rm\u200b", "hidden_characters"],
    ]);
    expect(screen.getByTestId("chat-withheld").textContent).toContain("The model was not offered 3 tools");
    const tools = screen.getAllByTestId("chat-withheld-tool");
    expect(tools.map((t) => t.dataset.reason)).toEqual(["not_approved", "changed", "hidden_characters"]);
    expect(tools[1]!.textContent).toContain("changed since you approved it");
    // A name with hidden characters is shown with them revealed.
    expect(tools[2]!.textContent).toContain("rm⟨U+200B⟩");
    fireEvent.click(screen.getByTestId("chat-review-tools"));
    const item = await screen.findByTestId("pin-item");
    expect(item.dataset.item).toBe("tool:echo");
    fireEvent.click(screen.getByTestId("pins-approve"));
    await waitFor(() => expect(screen.queryByTestId("pin-item")).toBeNull());
    expect(b.pins.everything[0]!.state).toBe("pinned");
    // Approved, or gone from the server: only the one never offered is left (as the core says).
    await waitFor(() => expect(screen.getAllByTestId("chat-withheld-tool").map((t) => t.dataset.tool)).toEqual(["rm\u200b"]));
    expect(screen.getByTestId("chat-withheld").textContent).toContain("The model will not be offered 1 tool:");
    // The next turn offers every tool: the note goes.
    await turnWithheld(b, []);
    expect(screen.queryByTestId("chat-withheld")).toBeNull();
    // Another conversation's turn says nothing here.
    await act(async () =>
      b.emit({ type: "chatToolsWithheld", conversation: "other", tools: [{ server: "s", tool: "t", reason: "not_approved" }] }),
    );
    expect(screen.queryByTestId("chat-withheld")).toBeNull();
  });

  it("puts a prompt from the / palette into the composer, to add to and send", async () => {
    const b = backend();
    const input = await startChat(b);
    fireEvent.change(input, { target: { value: "/tm" } });
    const option = await screen.findByTestId("palette-prompt-option");
    expect(option.dataset.name).toBe("team");
    fireEvent.keyDown(input, { key: "Enter" });
    // The argument form opens with its first field focused.
    const department = await screen.findByTestId("prompt-arg-department");
    expect(document.activeElement).toBe(department);
    fireEvent.change(department, { target: { value: "Engineering" } });
    fireEvent.change(screen.getByTestId("prompt-arg-name"), { target: { value: "Alice" } });
    fireEvent.click(screen.getByTestId("get-prompt"));
    fireEvent.click(await screen.findByTestId("insert-prompt"));
    // Not sent: in the composer, focused, for the person to finish.
    expect((input as HTMLTextAreaElement).value).toBe("Promote Alice to head of Engineering.");
    expect(document.activeElement).toBe(input);
    expect(screen.queryByTestId("palette-prompt")).toBeNull();
    expect(b.calls.some((c) => c.method === "sendMessage")).toBe(false);
    fireEvent.change(input, { target: { value: `${(input as HTMLTextAreaElement).value} Draft the announcement.` } });
    fireEvent.click(screen.getByTestId("chat-send"));
    await waitFor(() => expect(b.calls.some((c) => c.method === "sendMessage")).toBe(true));
    const sent = b.calls.find((c) => c.method === "sendMessage")!.args[1];
    expect(sent).toEqual([
      { role: "user", content: [{ type: "text", text: "Promote Alice to head of Engineering. Draft the announcement." }] },
    ]);
  });

  it("names the palette's prompts by their title, with the name beneath, or by their name", async () => {
    const b = backend();
    const asBackend: Backend = b;
    asBackend.listPrompts = async () => [
      { name: "team", title: "Team Management", description: "Manage a team" },
      { name: "tidy" },
    ];
    const input = await startChat(b);
    fireEvent.change(input, { target: { value: "/t" } });
    await waitFor(() => expect(screen.getAllByTestId("palette-prompt-option")).toHaveLength(2));
    const option = (name: string) => screen.getAllByTestId("palette-prompt-option").find((o) => o.dataset.name === name)!;
    const [titled, untitled] = [option("team"), option("tidy")];
    expect(titled.querySelector(".palette-title")!.textContent).toBe("Team Management");
    expect(titled.querySelector("[data-testid=palette-prompt-name]")!.textContent).toBe("team");
    expect(titled.textContent).toContain("everything · Manage a team");
    expect(untitled.querySelector(".palette-title")!.textContent).toBe("tidy");
    expect(untitled.querySelector("[data-testid=palette-prompt-name]")).toBeNull();
  });

  it("keeps a prompt's images as attachments and joins its texts", async () => {
    const b = backend();
    const asBackend: Backend = b;
    asBackend.getPrompt = async () => ({
      messages: [
        { role: "user", content: { type: "text", text: "Describe this picture." } },
        { role: "user", content: { type: "image", data: "AAAA", mimeType: "image/png" } },
        { role: "assistant", content: { type: "text", text: "It shows a cat." } },
      ],
    });
    const input = await startChat(b);
    fireEvent.change(input, { target: { value: "/team" } });
    await screen.findByTestId("palette-prompt-option");
    fireEvent.keyDown(input, { key: "Enter" });
    fireEvent.change(await screen.findByTestId("prompt-arg-department"), { target: { value: "x" } });
    fireEvent.change(screen.getByTestId("prompt-arg-name"), { target: { value: "y" } });
    fireEvent.click(screen.getByTestId("get-prompt"));
    fireEvent.click(await screen.findByTestId("insert-prompt"));
    expect((input as HTMLTextAreaElement).value).toBe("Describe this picture.\n\nAssistant: It shows a cat.");
    expect(screen.getByTestId("attachment").textContent).toContain("image (image/png)");
    fireEvent.click(screen.getByTestId("chat-send"));
    await waitFor(() => expect(b.calls.some((c) => c.method === "sendMessage")).toBe(true));
    const sent = b.calls.find((c) => c.method === "sendMessage")!.args[1] as { content: unknown[] }[];
    expect(sent[0]!.content).toEqual([
      { type: "image", data: "AAAA", mimeType: "image/png" },
      { type: "text", text: "Describe this picture.\n\nAssistant: It shows a cat." },
    ]);
  });

  it("attaches a resource with @", async () => {
    const b = backend();
    const input = await startChat(b);
    fireEvent.change(input, { target: { value: "Summarize @resource 2" } });
    fireEvent.change(input, { target: { value: "Summarize @r/2" } });
    const option = await screen.findByTestId("palette-resource-option");
    expect(option.dataset.name).toBe("demo://r/2");
    fireEvent.mouseDown(option);
    expect((await screen.findByTestId("attachment")).textContent).toContain("resource 2");
    expect((input as HTMLTextAreaElement).value).toBe("Summarize ");
    fireEvent.click(screen.getByTestId("chat-send"));
    await waitFor(() => expect(b.calls.some((c) => c.method === "sendMessage")).toBe(true));
    const sent = b.calls.find((c) => c.method === "sendMessage")!.args[1] as { content: { text: string }[] }[];
    expect(sent[0]!.content[0]!.text).toBe("Resource demo://r/2 from everything:\ncontents of demo://r/2");
    expect(sent[0]!.content[1]!.text).toBe("Summarize");
  });
});
