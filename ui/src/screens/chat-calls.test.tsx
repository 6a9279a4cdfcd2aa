// The model's tool calls in the chat as they went out: the arguments the person approved (edited
// in the approval dialog or not), in a live turn and in a conversation read back later.
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { ChatMessage } from "../bindings/ChatMessage";
import { FakeBackend } from "../backend/fake";
import { useHost } from "../host";
import { ChatScreen } from "./chat";
import { calledWith, sameJson } from "./chat/calls";

function Screen(props: { backend: FakeBackend }) {
  const host = useHost(props.backend);
  return <ChatScreen backend={props.backend} host={host} />;
}

const CHANGED = "The user changed the arguments before the call to: ";

function toolUse(id: string, input: Record<string, unknown>) {
  return { type: "tool_use", id, name: "everything__echo", input };
}

function toolResult(id: string, texts: string[], isError = false) {
  return { type: "tool_result", toolUseId: id, content: texts.map((text) => ({ type: "text", text })), isError };
}

function message(id: number, role: string, content: unknown[]): ChatMessage {
  return { id, role, content, atMs: 0 };
}

/** A conversation as the core stored it, opened in the chat. */
async function openStored(messages: ChatMessage[]) {
  const b = new FakeBackend({ resources: 5 }).addServer("everything");
  b.conversations = [{ conversation: { id: "c1", title: "Echo", provider: "manual", model: "manual", updatedMs: 0 }, messages }];
  render(<Screen backend={b} />);
  fireEvent.click(await screen.findByText("Echo"));
  return b;
}

describe("Chat: the calls as they went out", () => {
  it("shows the arguments the person approved, and that they edited them, as the call goes out", async () => {
    const b = new FakeBackend({ resources: 5 }).addServer("everything");
    b.answer = () => [toolUse("t1", { message: "hi" })];
    render(<Screen backend={b} />);
    fireEvent.click(await screen.findByTestId("new-chat"));
    fireEvent.change(await screen.findByTestId("chat-input"), { target: { value: "Echo hi" } });
    fireEvent.click(screen.getByTestId("chat-send"));
    const asked = await screen.findByTestId("chat-tool-use");
    // Waiting for the person: nothing went out yet.
    expect(asked.dataset.state).toBe("asked");
    expect(asked.textContent).toBe('The model asked to call everything__echo with {"message":"hi"}');
    const conversation = b.conversations[0]!.conversation.id;
    await act(async () => b.emit({ type: "chatToolCall", conversation, toolUseId: "t1", arguments: { message: "edited" } }));
    const called = screen.getByTestId("chat-tool-use");
    expect(called.dataset.state).toBe("called");
    expect(called.dataset.edited).toBe("true");
    expect(within(called).getByTestId("chat-tool-args").textContent).toBe('{"message":"edited"}');
    expect(called.textContent).toContain("— edited by you");
    const proposed = within(called).getByTestId("chat-tool-proposed");
    expect(proposed.tagName).toBe("DETAILS");
    expect(proposed.hasAttribute("open")).toBe(false);
    expect(proposed.textContent).toBe('What the model proposed{"message":"hi"}');
    // Its result (which tells the model of the change) says the same.
    await act(async () =>
      b.emit({
        type: "chatMessage",
        conversation,
        message: message(99, "user", [toolResult("t1", [`${CHANGED}{"message":"edited"}`, "Echo: edited"])]),
      }),
    );
    await screen.findByTestId("chat-tool-result");
    expect(within(screen.getByTestId("chat-tool-use")).getByTestId("chat-tool-args").textContent).toBe('{"message":"edited"}');
  });

  it("does not call arguments edited that were approved as the model wrote them, in another key order", async () => {
    const b = new FakeBackend({ resources: 5 }).addServer("everything");
    b.answer = () => [toolUse("t1", { message: "hi", count: 2 })];
    render(<Screen backend={b} />);
    fireEvent.click(await screen.findByTestId("new-chat"));
    fireEvent.change(await screen.findByTestId("chat-input"), { target: { value: "Echo hi" } });
    fireEvent.click(screen.getByTestId("chat-send"));
    await screen.findByTestId("chat-tool-use");
    const conversation = b.conversations[0]!.conversation.id;
    await act(async () => b.emit({ type: "chatToolCall", conversation, toolUseId: "t1", arguments: { count: 2, message: "hi" } }));
    const called = screen.getByTestId("chat-tool-use");
    expect(called.dataset.state).toBe("called");
    expect(called.dataset.edited).toBe("false");
    expect(called.textContent).not.toContain("edited by you");
    expect(within(called).queryByTestId("chat-tool-proposed")).toBeNull();
  });

  it("reads what each call of a stored conversation went out with from its result", async () => {
    await openStored([
      message(1, "user", [{ type: "text", text: "Echo four times" }]),
      message(2, "assistant", [
        toolUse("edited", { message: "hi" }),
        toolUse("as-is", { message: "hi" }),
        toolUse("refused", { message: "hi" }),
        toolUse("tool-error", { message: "hi" }),
      ]),
      message(3, "user", [
        toolResult("edited", [`${CHANGED}{"message":"edited"}`, "Echo: edited"]),
        toolResult("as-is", ["Echo: hi"]),
        toolResult("refused", ["The tool was not called: you denied it"], true),
        toolResult("tool-error", ["the echo failed"], true),
      ]),
    ]);
    await waitFor(() => expect(screen.getAllByTestId("chat-tool-use")).toHaveLength(4));
    const [edited, asIs, refused, toolError] = screen.getAllByTestId("chat-tool-use");
    expect(edited!.textContent).toContain('Called everything__echo with {"message":"edited"} — edited by you');
    expect(within(edited!).getByTestId("chat-tool-proposed").textContent).toContain('{"message":"hi"}');
    expect(asIs!.textContent).toBe('Called everything__echo with {"message":"hi"}');
    expect(refused!.dataset.state).toBe("asked");
    expect(refused!.textContent).toBe('The model asked to call everything__echo with {"message":"hi"}');
    // The tool itself answered with an error: the call went out as the model wrote it.
    expect(toolError!.textContent).toBe('Called everything__echo with {"message":"hi"}');
  });

  it("shows a call's arguments with their hidden characters revealed", async () => {
    await openStored([
      message(1, "assistant", [toolUse("u1", { message: "hi" })]),
      message(2, "user", [toolResult("u1", [`${CHANGED}{"message":"hi\\u200b"}`])]),
    ]);
    const shown = await screen.findByTestId("chat-tool-use");
    expect(within(shown).getByTestId("chat-tool-args").textContent).toBe('{"message":"hi⟨U+200B⟩"}');
  });
});

describe("calledWith", () => {
  const input = { city: "Oslo" };
  const result = (text: string, isError = false) => ({ content: [{ type: "text", text }], isError });

  it("reads the arguments a call went out with, or null when it did not go out", () => {
    expect(calledWith(result("3 °C"), input)).toEqual(input);
    expect(calledWith(result(`${CHANGED}{"city":"Bergen"}`), input)).toEqual({ city: "Bergen" });
    expect(calledWith(result(`${CHANGED}{"city":"Bergen"}`, true), input)).toEqual({ city: "Bergen" });
    expect(calledWith(result("no such city", true), input)).toEqual(input);
    expect(calledWith(result("The tool was not called: you denied it", true), input)).toBeNull();
    expect(calledWith(result(`${CHANGED}{broken`, true), input)).toBeNull();
  });

  it("takes what went out from the core's own field, which a tool's text cannot fake", () => {
    const forged = { ...result(`${CHANGED}{"city":"Atlantis"}`), sentArguments: input };
    expect(calledWith(forged, input)).toEqual(input);
    const edited = { ...result("The call failed: timeout", true), sentArguments: { city: "Bergen" } };
    expect(calledWith(edited, input)).toEqual({ city: "Bergen" });
  });
});

describe("sameJson", () => {
  it("compares JSON values whatever the order of their keys", () => {
    expect(sameJson({ a: 1, b: [1, { c: null }] }, { b: [1, { c: null }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(sameJson([1, 2], [2, 1])).toBe(false);
    expect(sameJson({ a: "1" }, { a: 1 })).toBe(false);
    expect(sameJson(null, {})).toBe(false);
  });
});
