// The first chat: the model is offered only the tools the person approved, so the chat says which
// it will not be offered before the first message (a turn with the manual provider opens the
// answer dialog over the chat at once) and they are reviewed in place; the note follows what is
// approved.
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { Backend } from "../backend";
import type { PinItem } from "../bindings/PinItem";
import { APP_TOOLS, FakeBackend } from "../backend/fake";
import { useHost } from "../host";
import { ChatScreen } from "./chat";
import { turnWithheld } from "./chat-test-helpers";

function Screen(props: { backend: FakeBackend }) {
  const host = useHost(props.backend);
  return <ChatScreen backend={props.backend} host={host} />;
}

function pin(item: string, state: PinItem["state"] = "new"): PinItem {
  return { item, state, current: { name: item }, pinned: null, changes: [], hiddenCharacters: false, digest: `d-${item}` };
}

/** A server none of whose tools is approved yet, nor its instructions (the manual provider). */
function firstRun() {
  const b = new FakeBackend({ resources: 5 }).addServer("everything");
  b.pins.everything = [pin("tool:echo"), pin("tool:weather"), pin("instructions")];
  return b;
}

async function newChat(b: FakeBackend) {
  render(<Screen backend={b} />);
  fireEvent.click(await screen.findByTestId("new-chat"));
  return screen.findByTestId("chat-input");
}

const listed = () => screen.getAllByTestId("chat-withheld-tool").map((t) => `${t.dataset.tool}: ${t.dataset.reason}`);

describe("Chat: the tools the model is not offered", () => {
  it("says before the first message which tools the model will not be offered, to review them there", async () => {
    const b = firstRun();
    await newChat(b);
    const note = await screen.findByTestId("chat-withheld");
    expect(note.textContent).toContain("The model will not be offered 2 tools: it sees only tools you approved as they are.");
    expect(listed()).toEqual(["echo: not_approved", "weather: not_approved"]);
    expect(b.calls.some((c) => c.method === "sendMessage")).toBe(false);
    fireEvent.click(screen.getByTestId("chat-review-tools"));
    await waitFor(() => expect(screen.getAllByTestId("pin-item")).toHaveLength(3));
  });

  it("approves only one tool, with its server's instructions, and then lists only the others", async () => {
    const b = firstRun();
    await newChat(b);
    fireEvent.click(await screen.findByTestId("chat-review-tools"));
    await waitFor(() => expect(screen.getAllByTestId("pin-item")).toHaveLength(3));
    const echo = screen.getAllByTestId("pin-item").find((i) => i.dataset.item === "tool:echo")!;
    fireEvent.click(echo.querySelector("[data-testid=pin-only]")!);
    fireEvent.click(screen.getByTestId("pins-approve"));
    await waitFor(() => expect(listed()).toEqual(["weather: not_approved"]));
    expect(b.pins.everything!.map((p) => `${p.item}: ${p.state}`)).toEqual([
      "tool:echo: pinned",
      "tool:weather: new",
      "instructions: pinned",
    ]);
    expect(screen.getByTestId("chat-withheld").textContent).toContain("The model will not be offered 1 tool:");
  });

  it("drops the note once every tool is approved, and says so while the review is open", async () => {
    const b = firstRun();
    await newChat(b);
    fireEvent.click(await screen.findByTestId("chat-review-tools"));
    await screen.findAllByTestId("pin-item");
    fireEvent.click(screen.getByTestId("pins-approve"));
    await waitFor(() => expect(screen.queryByTestId("chat-withheld")).toBeNull());
    expect(screen.getByTestId("chat-all-offered").textContent).toContain(
      "Nothing is held back now: the model is offered the running servers' tools from your next message on.",
    );
    fireEvent.click(screen.getByTestId("chat-review-tools"));
    expect(screen.queryByTestId("chat-pins")).toBeNull();
    expect(screen.queryByTestId("chat-all-offered")).toBeNull();
  });

  it("updates a turn's report once tools are approved: the approved go, the reasons follow the pins", async () => {
    const b = new FakeBackend({ resources: 5 }).addServer("everything");
    b.extraTools = [{ name: "rm\u200b", inputSchema: { type: "object" } }];
    const input = await newChat(b);
    fireEvent.change(input, { target: { value: "Hi" } });
    fireEvent.click(screen.getByTestId("chat-send"));
    await waitFor(() => expect(screen.getAllByTestId("chat-message")).toHaveLength(2));
    b.pins.everything = [pin("tool:echo"), pin("tool:weather"), pin("instructions")];
    await turnWithheld(b, [
      ["echo", "not_approved"],
      ["weather", "not_approved"],
      ["rm\u200b", "hidden_characters"],
    ]);
    expect(screen.getByTestId("chat-withheld").textContent).toContain("The model was not offered 3 tools");
    fireEvent.click(screen.getByTestId("chat-review-tools"));
    await waitFor(() => expect(screen.getAllByTestId("pin-item")).toHaveLength(3));
    // The tools alone: their server's instructions still hold them back.
    const choose = screen.getAllByTestId("pin-choose");
    fireEvent.click(choose[2]!);
    fireEvent.click(screen.getByTestId("pins-approve"));
    await waitFor(() =>
      expect(listed()).toEqual(["echo: instructions_not_approved", "weather: instructions_not_approved", "rm\u200b: hidden_characters"]),
    );
    expect(screen.getByTestId("chat-withheld").textContent).toContain("The model will not be offered 3 tools");
    fireEvent.click(await screen.findByTestId("pins-approve"));
    await waitFor(() => expect(listed()).toEqual(["rm\u200b: hidden_characters"]));
  });

  it("leaves out tools only a view may call, and names those whose names hide characters", async () => {
    const b = new FakeBackend({ resources: 5 }).addServer("everything");
    b.extraTools = [
      ...APP_TOOLS,
      { name: "find", inputSchema: { type: "object", properties: { "path\u200b": { type: "string" } } } },
    ];
    b.pins.everything = ["echo", "weather", "dashboard", "refresh", "find"].map((t) => pin(`tool:${t}`, t === "weather" ? "changed" : "new"));
    await newChat(b);
    await screen.findByTestId("chat-withheld");
    expect(listed()).toEqual(["echo: not_approved", "weather: changed", "dashboard: not_approved", "find: hidden_characters"]);
  });

  it("says a tool a rule denies is held back for that, whatever its pins", async () => {
    const b = firstRun();
    b.policies = [
      { server: "everything", kind: "tool_call", tool: null, rule: "deny" },
      { server: "everything", kind: "tool_call", tool: "weather", rule: "ask" },
    ];
    await newChat(b);
    await waitFor(() => expect(listed()).toEqual(["echo: denied", "weather: not_approved"]));
    expect(screen.getAllByTestId("chat-withheld-tool")[0]!.textContent).toContain("a rule you set denies it");
  });

  it("keeps what a turn reported when a check started before it ends after it", async () => {
    const b = new FakeBackend({ resources: 5 }).addServer("everything");
    b.pins.everything = [pin("tool:echo")];
    const held: (() => void)[] = [];
    const asBackend: Backend = b;
    const withheldTools = b.withheldTools.bind(b);
    asBackend.withheldTools = () => new Promise((resolve) => held.push(() => resolve(withheldTools())));
    await newChat(b);
    // One check when the conversation opens, and one more if the servers' tools arrive after.
    await waitFor(() => expect(held.length).toBeGreaterThan(0));
    const before = held.length;
    await turnWithheld(b, [["weather", "changed"]]);
    await act(async () => held.slice(0, before).forEach((answer) => answer()));
    expect(listed()).toEqual(["weather: changed"]);
    expect(screen.getByTestId("chat-withheld").textContent).toContain("The model was not offered 1 tool");
  });
});
