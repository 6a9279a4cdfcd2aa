// The chat with MCP Apps: a model's call of a tool with a view shows the view inline with that
// call's arguments and result; what the view wants to say waits for the person (its message in a
// bar to send or discard, its context as a removable chip that goes with the next message).
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { App } from "@modelcontextprotocol/ext-apps";
import { APP_TOOLS, FakeBackend } from "../backend/fake";
import { startView } from "../components/app-frame/test-view";
import { useHost } from "../host";
import { ChatScreen, sentArguments } from "./chat";

function Screen(props: { backend: FakeBackend }) {
  const host = useHost(props.backend);
  return <ChatScreen backend={props.backend} host={host} />;
}

function backend() {
  const b = new FakeBackend({ resources: 5 }).addServer("demo");
  b.extraTools = APP_TOOLS;
  b.conversations = [
    {
      conversation: { id: "c1", title: "Weather", provider: "manual", model: "manual", updatedMs: 0 },
      messages: [
        { id: 1, role: "user", content: [{ type: "text", text: "Show Oslo" }], atMs: 0 },
        { id: 2, role: "assistant", content: [{ type: "tool_use", id: "u1", name: "demo__dashboard", input: { city: "Oslo" } }], atMs: 0 },
        {
          id: 3,
          role: "user",
          content: [{ type: "tool_result", toolUseId: "u1", content: [{ type: "text", text: "3 °C" }], isError: false }],
          atMs: 0,
        },
      ],
    },
  ];
  return b;
}

beforeEach(() => {
  vi.spyOn(console, "debug").mockImplementation(() => undefined);
});

async function openView(b: FakeBackend, seen: { inputs: unknown[]; results: unknown[] } = { inputs: [], results: [] }): Promise<App> {
  render(<Screen backend={b} />);
  fireEvent.click(await screen.findByText("Weather"));
  const iframe = (await screen.findByTestId("app-iframe")) as HTMLIFrameElement;
  return act(() =>
    startView(iframe.contentWindow!, (a) => {
      a.ontoolinput = (p) => seen.inputs.push(p.arguments);
      a.ontoolresult = (p) => seen.results.push(p.content);
    }),
  );
}

describe("Chat: a tool's view", () => {
  it("shows the view of the call inline with its arguments and result", async () => {
    const b = backend();
    const seen = { inputs: [] as unknown[], results: [] as unknown[] };
    await openView(b, seen);
    expect(b.calls.find((c) => c.method === "openAppView")?.args).toEqual(["demo", "dashboard", "ui://demo/dashboard.html"]);
    await waitFor(() => expect(seen.inputs).toEqual([{ city: "Oslo" }]));
    await waitFor(() => expect(seen.results).toEqual([[{ type: "text", text: "3 °C" }]]));
  });

  it("shows a view a call only once the person approved it, with the arguments as approved", async () => {
    const b = backend();
    const pending = b.conversations[0]!.messages.slice(0, 2);
    b.conversations[0]!.messages = pending;
    render(<Screen backend={b} />);
    fireEvent.click(await screen.findByText("Weather"));
    await screen.findByTestId("chat-tool-use");
    // The model asked for Oslo; nothing of it reaches the server's view before the approval.
    expect(screen.queryByTestId("app-iframe")).toBeNull();
    expect(b.calls.filter((c) => c.method === "openAppView")).toEqual([]);
    const inputs: unknown[] = [];
    await act(async () => b.emit({ type: "chatToolCall", conversation: "other", toolUseId: "u1", arguments: { city: "Rome" } }));
    expect(screen.queryByTestId("app-iframe")).toBeNull();
    await act(async () => b.emit({ type: "chatToolCall", conversation: "c1", toolUseId: "u1", arguments: { city: "Bergen" } }));
    const iframe = (await screen.findByTestId("app-iframe")) as HTMLIFrameElement;
    await act(() => startView(iframe.contentWindow!, (a) => (a.ontoolinput = (p) => inputs.push(p.arguments))));
    await waitFor(() => expect(inputs).toEqual([{ city: "Bergen" }]));
  });

  it("reads what a finished call went out with from its result", () => {
    const input = { city: "Oslo" };
    const result = (text: string, isError = false) => ({ content: [{ type: "text", text }], isError });
    expect(sentArguments(result("3 °C"), input)).toEqual(input);
    expect(sentArguments(result('The user changed the arguments before the call to: {"city":"Bergen"}'), input)).toEqual({ city: "Bergen" });
    expect(sentArguments(result("The user changed the arguments before the call to: {broken"), input)).toBeNull();
    expect(sentArguments(result("The tool was not called: you denied it", true), input)).toBeNull();
  });

  it("puts a view's message before the person, who sends or discards it", async () => {
    const b = backend();
    const app = await openView(b);
    await act(async () => {
      await app.sendMessage({ role: "user", content: [{ type: "text", text: "Book the flight" }] });
      await app.sendMessage({ role: "user", content: [{ type: "text", text: "And the hotel" }] });
    });
    const bars = await screen.findAllByTestId("view-message");
    expect(bars.map((x) => x.textContent)).toEqual([
      expect.stringContaining("Book the flight"),
      expect.stringContaining("And the hotel"),
    ]);
    expect(bars[0]!.textContent).toContain("Dashboard (demo) wants to send");
    expect(b.calls.filter((c) => c.method === "sendMessage")).toEqual([]);
    expect(b.calls.filter((c) => c.method === "appMessage")).toHaveLength(2);

    fireEvent.click(screen.getAllByTestId("view-message-discard")[1]!);
    await waitFor(() => expect(screen.getAllByTestId("view-message")).toHaveLength(1));
    fireEvent.click(screen.getByTestId("view-message-send"));
    await waitFor(() => expect(b.calls.filter((c) => c.method === "sendMessage")).toHaveLength(1));
    const [, sent] = b.calls.find((c) => c.method === "sendMessage")!.args as [string, { content: unknown[] }[]];
    expect(sent[0]!.content).toEqual([{ type: "text", text: "Book the flight" }]);
    expect(screen.queryByTestId("view-message")).toBeNull();
  });

  it("attaches a view's context to the next message, unless removed", async () => {
    const b = backend();
    const app = await openView(b);
    await act(async () => {
      await app.updateModelContext({ structuredContent: { selected: "Oslo" } });
    });
    expect((await screen.findByTestId("view-context")).textContent).toContain("context from Dashboard (demo)");
    fireEvent.change(screen.getByTestId("chat-input"), { target: { value: "What now?" } });
    fireEvent.click(screen.getByTestId("chat-send"));
    await waitFor(() => expect(b.calls.filter((c) => c.method === "sendMessage")).toHaveLength(1));
    const [, sent] = b.calls.find((c) => c.method === "sendMessage")!.args as [string, { content: { text?: string }[] }[]];
    const texts = sent[0]!.content.map((x) => x.text);
    expect(texts[0]).toBe("Context from the view Dashboard (demo):");
    expect(texts[1]).toContain('{"selected":"Oslo"}');
    expect(texts[texts.length - 1]).toBe("What now?");
    await waitFor(() => expect(screen.queryByTestId("view-context")).toBeNull());

    await act(async () => {
      await app.updateModelContext({ content: [{ type: "text", text: "draft" }] });
    });
    const chip = await screen.findByTestId("view-context");
    fireEvent.click(chip.querySelector("button")!);
    expect(screen.queryByTestId("view-context")).toBeNull();
  });
});
