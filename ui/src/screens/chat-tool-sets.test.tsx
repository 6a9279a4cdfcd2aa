// Which tools a conversation's model is offered: every tool switched on, or those of the tool sets
// chosen in its header; and what a tool search found, in the transcript.
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { FakeBackend } from "../backend/fake";
import type { ChatMessage } from "../bindings/ChatMessage";
import { useHost } from "../host";
import { ChatScreen } from "./chat";
import { toggled } from "./chat/tool-choice";

function Screen(props: { backend: FakeBackend }) {
  const host = useHost(props.backend);
  return <ChatScreen backend={props.backend} host={host} />;
}

function backend() {
  const b = new FakeBackend({ resources: 5 }).addServer("everything");
  b.switches.sets = [
    { name: "Research", members: [{ server: "everything", tool: "echo" }] },
    { name: "Weather", members: [{ server: "everything", tool: "weather" }] },
  ];
  return b;
}

function updates(b: FakeBackend) {
  return b.calls.filter((c) => c.method === "updateConversation").map((c) => c.args[0] as { toolSets?: string[] });
}

async function setOption(name: string) {
  const options = await screen.findAllByTestId("chat-tool-set");
  return options.find((o) => o.dataset["name"] === name) as HTMLInputElement;
}

function summary() {
  return screen.getByTestId("chat-tools-summary").textContent;
}

describe("Chat: the tools a conversation is offered", () => {
  it("limits the conversation to a set, then to two, then to every tool switched on", async () => {
    const b = backend();
    render(<Screen backend={b} />);
    fireEvent.click(await screen.findByTestId("new-chat"));
    await screen.findByTestId("chat-input");
    expect(summary()).toBe("Tools: all that are on");
    expect((screen.getByTestId("chat-tools-all") as HTMLInputElement).checked).toBe(true);

    fireEvent.click(await setOption("Research"));
    await waitFor(() => expect(updates(b)).toHaveLength(1));
    expect(updates(b)[0]).toMatchObject({ toolSets: ["Research"] });
    expect(b.conversations[0]!.conversation.toolSets).toEqual(["Research"]);
    await waitFor(() => expect(summary()).toBe("Tools: Research"));
    expect((screen.getByTestId("chat-tools-all") as HTMLInputElement).checked).toBe(false);

    fireEvent.click(await setOption("Weather"));
    await waitFor(() => expect(b.conversations[0]!.conversation.toolSets).toEqual(["Research", "Weather"]));

    fireEvent.click(screen.getByTestId("chat-tools-all"));
    await waitFor(() => expect(updates(b)).toHaveLength(3));
    expect(updates(b)[2]).not.toHaveProperty("toolSets");
    await waitFor(() => expect(summary()).toBe("Tools: all that are on"));
  });

  it("keeps the choice when the first message titles the conversation", async () => {
    const b = backend();
    render(<Screen backend={b} />);
    fireEvent.click(await screen.findByTestId("new-chat"));
    const input = await screen.findByTestId("chat-input");
    fireEvent.click(await setOption("Weather"));
    fireEvent.change(input, { target: { value: "Rain tomorrow?" } });
    fireEvent.click(screen.getByTestId("chat-send"));
    await waitFor(() => expect(b.conversations[0]!.conversation.title).toBe("Rain tomorrow?"));
    expect(b.conversations[0]!.conversation.toolSets).toEqual(["Weather"]);
  });

  it("says so of a chosen set that no longer exists, and lets it be unticked", async () => {
    const b = backend();
    b.conversations = [
      { conversation: { id: "c1", title: "Old", provider: "manual", model: "manual", updatedMs: 0, toolSets: ["Gone"] }, messages: [] },
    ];
    render(<Screen backend={b} />);
    fireEvent.click(await screen.findByText("Old"));
    const gone = await setOption("Gone");
    expect(gone.checked).toBe(true);
    expect(gone.closest("label")!.textContent).toContain("no longer exists");
    fireEvent.click(gone);
    await waitFor(() => expect(b.conversations[0]!.conversation.toolSets).toBeUndefined());
  });

  it("says where sets are made when there are none", async () => {
    const b = backend();
    b.switches.sets = [];
    render(<Screen backend={b} />);
    fireEvent.click(await screen.findByTestId("new-chat"));
    expect((await screen.findByTestId("chat-tools-no-sets")).textContent).toContain("Tools screen");
  });
});

describe("toggled", () => {
  it("ticks and unticks a set; none left is every tool switched on", () => {
    expect(toggled(undefined, "A", true)).toEqual(["A"]);
    expect(toggled(["A"], "B", true)).toEqual(["A", "B"]);
    expect(toggled(["A", "B"], "A", false)).toEqual(["B"]);
    expect(toggled(["A"], "A", false)).toBeNull();
  });
});

describe("Chat: a tool search in the transcript", () => {
  it("shows the tools the search found and added", async () => {
    const b = backend();
    const use = { type: "tool_use", id: "s1", name: "search_tools", input: { query: "weather" } };
    const result = {
      type: "tool_result",
      toolUseId: "s1",
      content: [{ type: "text", text: "Found, and callable from now on:\n- everything__weather: Structured weather" }],
      isError: false,
      foundTools: ["everything__weather", "everything__echo"],
    };
    const messages: ChatMessage[] = [
      { id: 1, role: "assistant", content: [use], atMs: 0 },
      { id: 2, role: "user", content: [result], atMs: 0 },
    ];
    b.conversations = [{ conversation: { id: "c1", title: "Search", provider: "manual", model: "manual", updatedMs: 0 }, messages }];
    render(<Screen backend={b} />);
    fireEvent.click(await screen.findByText("Search"));
    const found = await screen.findByTestId("chat-found-tools");
    expect(found.textContent).toBe("Found and added: everything__weather, everything__echo");
    const tools = screen.getAllByTestId("chat-message")[1]!;
    expect(within(tools).getByTestId("chat-tool-result")).toBeTruthy();
  });
});
