// Hidden characters in what servers and models say, outside the approval dialog: the Tools screen
// and the chat show them revealed (⟨U+XXXX⟩) with a warning, as the dialog does, and what is sent
// stays as it was written.
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { App } from "../app";
import type { ChatMessage } from "../bindings/ChatMessage";
import { FakeBackend } from "../backend/fake";
import { useHost } from "../host";
import { ChatScreen } from "./chat";

/** Any character `reveal` would have replaced. */
const RAW = /[\u200b\u202e\u{E0041}\u{E0042}]/u;

function ChatOf(props: { backend: FakeBackend }) {
  const host = useHost(props.backend);
  return <ChatScreen backend={props.backend} host={host} />;
}

function message(id: number, role: string, content: unknown[]): ChatMessage {
  return { id, role, content, atMs: 0 };
}

describe("Tools screen: hidden characters", () => {
  it("shows a tool's name, description and argument description revealed, with a warning", async () => {
    const b = new FakeBackend().addServer("everything");
    b.extraTools = [
      {
        name: "sneaky\u200b",
        description: "Adds numbers.\u200b\u{E0041}",
        inputSchema: { type: "object", properties: { a: { type: "string", description: "First\u202e number" } } },
      },
    ];
    const { container } = render(<App backend={b} />);
    fireEvent.click(screen.getByTestId("nav-tools"));
    const item = await waitFor(() => {
      const found = screen.getAllByTestId("tool-item").find((i) => i.dataset.name === "sneaky\u200b");
      expect(found).toBeTruthy();
      return found!;
    });
    expect(item.textContent).toContain("sneaky⟨U+200B⟩");
    const listed = within(item).getByTestId("tool-item-description");
    expect(listed.textContent).toContain("Adds numbers.⟨U+200B⟩⟨U+E0041⟩");
    expect(within(listed).getByTestId("hidden-mark")).toBeTruthy();

    fireEvent.click(item);
    const description = await screen.findByTestId("tool-description");
    expect(description.textContent).toContain("Adds numbers.⟨U+200B⟩⟨U+E0041⟩");
    expect(within(description).getByTestId("hidden-mark")).toBeTruthy();
    expect(screen.getByRole("heading", { level: 2, name: /sneaky⟨U\+200B⟩/ })).toBeTruthy();
    const field = screen.getByTestId("arg-a").closest("label")!;
    expect(field.textContent).toContain("First⟨U+202E⟩ number");
    expect(within(field).getByTestId("hidden-mark")).toBeTruthy();
    // Nothing hidden is left anywhere on the screen.
    expect(container.textContent).not.toMatch(RAW);
  });
});

describe("Chat: hidden characters", () => {
  it("shows the model's text and a tool's result revealed, with a warning", async () => {
    const b = new FakeBackend({ resources: 5 }).addServer("everything");
    const toolUse = { type: "tool_use", id: "u1", name: "everything__echo", input: { message: "hi" } };
    const result = { type: "tool_result", toolUseId: "u1", content: [{ type: "text", text: "Echo: hi\u{E0041}\u{E0042}" }], isError: false };
    b.conversations = [
      {
        conversation: { id: "c1", title: "Echo", provider: "manual", model: "manual", updatedMs: 0 },
        messages: [message(1, "assistant", [{ type: "text", text: "Sure\u202e, calling it." }, toolUse]), message(2, "user", [result])],
      },
    ];
    render(<ChatOf backend={b} />);
    fireEvent.click(await screen.findByText("Echo"));
    const [said] = await screen.findAllByTestId("chat-message");
    expect(said!.textContent).toContain("Sure⟨U+202E⟩, calling it.");
    expect(within(said!).getByTestId("hidden-mark")).toBeTruthy();
    const shown = screen.getByTestId("chat-tool-result");
    expect(shown.textContent).toContain("Echo: hi⟨U+E0041⟩⟨U+E0042⟩");
    expect(within(shown).getByTestId("hidden-mark")).toBeTruthy();
    expect(screen.getByTestId("chat-messages").textContent).not.toMatch(RAW);
  });

  it("shows hidden characters in the composer revealed, and sends the message as written", async () => {
    const b = new FakeBackend({ resources: 5 }).addServer("everything");
    render(<ChatOf backend={b} />);
    fireEvent.click(await screen.findByTestId("new-chat"));
    const input = await screen.findByTestId("chat-input");
    fireEvent.change(input, { target: { value: "Hello\u200b there" } });
    const hidden = screen.getByTestId("chat-input-hidden");
    expect(within(hidden).getByTestId("chat-input-revealed").textContent).toBe("Hello⟨U+200B⟩ there");
    expect(within(hidden).getByTestId("hidden-mark")).toBeTruthy();
    fireEvent.click(screen.getByTestId("chat-send"));
    await waitFor(() => expect(b.calls.some((c) => c.method === "sendMessage")).toBe(true));
    const sent = b.calls.find((c) => c.method === "sendMessage")!.args[1];
    expect(sent).toEqual([{ role: "user", content: [{ type: "text", text: "Hello\u200b there" }] }]);
  });
});
