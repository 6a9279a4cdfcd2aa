// The host side of MCP Apps against a real `App` (the view's SDK) talking over the iframe's window,
// as a view in the frame would: sandboxing, permissions, the source check, routing to the backend,
// messages that are never sent by themselves, size, and teardown before close.
import { App } from "@modelcontextprotocol/ext-apps";
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { APP_TOOLS, DASHBOARD_URI, FakeBackend } from "../backend/fake";
import type { AppView } from "../bindings/AppView";
import type { Tool } from "../mcp";
import { AppFrame, ToolAppView } from "./app-frame";
import { MAX_WAITING } from "./app-frame/limits";
import { FrameTransport } from "./app-frame/test-view";
import { withAppStyles } from "../test-styles";

const dashboard = APP_TOOLS[0] as Tool;

async function setup(options: { permissions?: Partial<AppView["permissions"]>; outlets?: boolean } = {}) {
  const b = new FakeBackend().addServer("demo");
  b.extraTools = APP_TOOLS;
  b.viewPermissions = { ...b.viewPermissions, ...options.permissions };
  const view = await b.openAppView("demo", "dashboard", DASHBOARD_URI);
  b.calls = [];
  return { b, view };
}

function frameWindow(): Window {
  const iframe = screen.getByTestId("app-iframe") as HTMLIFrameElement;
  if (!iframe.contentWindow) throw new Error("no frame window");
  return iframe.contentWindow;
}

type JsonRpcAnswer = { id?: unknown; result?: unknown; error?: { message: string; data?: unknown } };

/** A message from the view, as it would arrive: posted by the frame's window. */
function forge(message: unknown, source: Window = frameWindow()) {
  window.dispatchEvent(new MessageEvent("message", { data: message, source }));
}

/** The person clicks into the view: its iframe becomes the active element, the window loses focus. */
function focusInto(iframe: HTMLIFrameElement) {
  act(() => {
    iframe.focus();
    window.dispatchEvent(new Event("blur"));
  });
}

/** Starts the view's App in the frame and waits for the handshake. */
async function connectView(win: Window = frameWindow()): Promise<App> {
  const app = new App({ name: "test-view", version: "1.0.0" }, {}, { autoResize: false });
  await act(async () => {
    await app.connect(new FrameTransport(win));
  });
  return app;
}

beforeEach(() => {
  // The bridge and transport narrate every message at debug level.
  vi.spyOn(console, "debug").mockImplementation(() => undefined);
});
afterEach(() => vi.restoreAllMocks());

describe("AppFrame: the sandbox", () => {
  it("frames the view with scripts only, no referrer and no device permissions", async () => {
    const { b, view } = await setup();
    render(<AppFrame backend={b} view={view} tool={dashboard} args={null} result={null} cancelled={null} />);
    const iframe = screen.getByTestId("app-iframe");
    expect(iframe.getAttribute("sandbox")).toBe("allow-scripts");
    expect(iframe.getAttribute("sandbox")).not.toMatch(/same-origin|top-navigation|popups/);
    expect(iframe.getAttribute("referrerpolicy")).toBe("no-referrer");
    expect(iframe.getAttribute("allow")).toBe("");
    expect(iframe.getAttribute("src")).toBe(view.src);
  });

  it("grants declared permissions only once the person allows them", async () => {
    const { b, view } = await setup({ permissions: { camera: true, microphone: true } });
    const { unmount } = render(<AppFrame backend={b} view={view} tool={dashboard} args={null} result={null} cancelled={null} />);
    expect(screen.getByTestId("app-permissions").textContent).toContain("camera, microphone");
    expect(screen.queryByTestId("app-iframe")).toBeNull();
    fireEvent.click(screen.getByTestId("app-permissions-allow"));
    expect(screen.getByTestId("app-iframe").getAttribute("allow")).toBe("camera; microphone");
    unmount();

    render(<AppFrame backend={b} view={view} tool={dashboard} args={null} result={null} cancelled={null} />);
    fireEvent.click(screen.getByTestId("app-permissions-deny"));
    expect(screen.getByTestId("app-iframe").getAttribute("allow")).toBe("");
  });
});

describe("AppFrame: the bridge", () => {
  it("sends the call's input and then its result once the view initialized", async () => {
    const { b, view } = await setup();
    const { rerender } = render(
      <AppFrame backend={b} view={view} tool={dashboard} args={{ city: "Oslo" }} result={null} cancelled={null} />,
    );
    const app = new App({ name: "test-view", version: "1.0.0" }, {}, { autoResize: false });
    const inputs: unknown[] = [];
    const results: unknown[] = [];
    app.ontoolinput = (p) => inputs.push(p.arguments);
    app.ontoolresult = (p) => results.push(p.structuredContent);
    await act(async () => {
      await app.connect(new FrameTransport(frameWindow()));
    });
    expect(app.getHostContext()).toMatchObject({ platform: "desktop", displayMode: "inline", toolInfo: { tool: { name: "dashboard" } } });
    expect(app.getHostCapabilities()?.serverTools).toBeDefined();
    expect(app.getHostCapabilities()?.downloadFile).toBeUndefined();
    await waitFor(() => expect(inputs).toEqual([{ city: "Oslo" }]));
    rerender(
      <AppFrame
        backend={b}
        view={view}
        tool={dashboard}
        args={{ city: "Oslo" }}
        result={{ content: [], structuredContent: { temperature: 3 } }}
        cancelled={null}
      />,
    );
    await waitFor(() => expect(results).toEqual([{ temperature: 3 }]));
  });

  it("routes tools/call, resources/read and ui/open-link to the backend under the view's id", async () => {
    const { b, view } = await setup();
    render(<AppFrame backend={b} view={view} tool={dashboard} args={null} result={null} cancelled={null} />);
    const app = await connectView();
    const called = await app.callServerTool({ name: "refresh", arguments: { all: true } });
    expect(called.content).toEqual([{ type: "text", text: "refresh done" }]);
    const read = await app.readServerResource({ uri: "demo://r/1" });
    expect(read.contents[0]).toMatchObject({ uri: "demo://r/1", text: "contents of demo://r/1" });
    expect((await app.openLink({ url: "https://example.com/x" })).isError).toBeFalsy();
    expect((await app.openLink({ url: "http://example.com/x" })).isError).toBe(true);
    expect(b.calls.filter((c) => c.method.startsWith("app")).map((c) => [c.method, ...c.args])).toEqual([
      ["appCallTool", view.viewId, "refresh", { all: true }],
      ["appReadResource", view.viewId, "demo://r/1"],
      ["appOpenLink", view.viewId, "https://example.com/x"],
      ["appOpenLink", view.viewId, "http://example.com/x"],
    ]);
    // A refused call comes back as a tool error the view can show.
    b.appConsent = false;
    const refused = await app.callServerTool({ name: "refresh", arguments: {} });
    expect(refused.isError).toBe(true);
  });

  it("ignores a message that does not come from the frame's own window", async () => {
    const { b, view } = await setup();
    render(
      <>
        <iframe data-testid="other-frame" title="other" />
        <AppFrame backend={b} view={view} tool={dashboard} args={null} result={null} cancelled={null} />
      </>,
    );
    await connectView();
    const other = (screen.getByTestId("other-frame") as HTMLIFrameElement).contentWindow!;
    const forged = { jsonrpc: "2.0", id: 99, method: "tools/call", params: { name: "refresh", arguments: {} } };
    for (const source of [other, window]) window.dispatchEvent(new MessageEvent("message", { data: forged, source }));
    window.dispatchEvent(new MessageEvent("message", { data: forged }));
    await new Promise((r) => setTimeout(r, 20));
    expect(b.calls.filter((c) => c.method === "appCallTool")).toEqual([]);
  });

  it("never sends a ui/message by itself: without a conversation it is shown and audited", async () => {
    const { b, view } = await setup();
    render(<AppFrame backend={b} view={view} tool={dashboard} args={null} result={null} cancelled={null} />);
    const app = await connectView();
    let answer: { isError?: boolean | undefined } = {};
    await act(async () => {
      answer = await app.sendMessage({ role: "user", content: [{ type: "text", text: "Book it" }] });
    });
    // Not delivered anywhere the model could read it.
    expect(answer.isError).toBe(true);
    expect((await screen.findByTestId("app-message-note")).textContent).toContain("Book it");
    expect(b.calls.map((c) => c.method)).toEqual(["appMessage"]);
    await act(async () => {
      await app.updateModelContext({ structuredContent: { chosen: 2 } });
    });
    expect((await screen.findByTestId("app-context-note")).textContent).toContain('"chosen": 2');
    expect(b.calls.map((c) => c.method)).toEqual(["appMessage", "appUpdateContext"]);
  });

  it("hands ui/message and context to the screen's outlets, which decide", async () => {
    const { b, view } = await setup();
    const messages: unknown[] = [];
    const contexts: unknown[] = [];
    render(
      <AppFrame
        backend={b}
        view={view}
        tool={dashboard}
        args={null}
        result={null}
        cancelled={null}
        onMessage={(v, m) => messages.push([v.viewId, m]) > 0}
        onContext={(v, c) => contexts.push([v.viewId, c])}
      />,
    );
    const app = await connectView();
    let answer: { isError?: boolean | undefined } = {};
    await act(async () => {
      answer = await app.sendMessage({ role: "user", content: [{ type: "text", text: "hi" }] });
      await app.updateModelContext({ content: [{ type: "text", text: "ctx" }] });
    });
    expect(answer.isError).toBeFalsy();
    expect(messages).toEqual([[view.viewId, { role: "user", content: [{ type: "text", text: "hi" }] }]]);
    expect(contexts).toEqual([[view.viewId, { content: [{ type: "text", text: "ctx" }] }]]);
    expect(screen.queryByTestId("app-message-note")).toBeNull();
  });

  it("resizes the frame to the view's height, within bounds, and goes full screen on request", async () => {
    const { b, view } = await setup();
    render(<AppFrame backend={b} view={view} tool={dashboard} args={null} result={null} cancelled={null} />);
    const app = await connectView();
    const iframe = screen.getByTestId("app-iframe") as HTMLIFrameElement;
    await act(async () => {
      await app.sendSizeChanged({ width: 300, height: 420 });
    });
    await waitFor(() => expect(iframe.style.height).toBe("420px"));
    await act(async () => {
      await app.sendSizeChanged({ height: 100000 });
    });
    await waitFor(() => expect(iframe.style.height).toBe("1600px"));
    focusInto(iframe);
    let mode = "";
    await act(async () => {
      mode = (await app.requestDisplayMode({ mode: "fullscreen" })).mode;
    });
    expect(mode).toBe("fullscreen");
    expect(screen.getByTestId("app-frame").dataset["mode"]).toBe("fullscreen");
    await waitFor(() => expect(app.getHostContext()?.displayMode).toBe("fullscreen"));
    fireEvent.click(screen.getByTestId("app-exit-fullscreen"));
    expect(screen.getByTestId("app-frame").dataset["mode"]).toBe("inline");
    await waitFor(() => expect(app.getHostContext()?.displayMode).toBe("inline"));
  });
});

describe("AppFrame: closing", () => {
  it("tears the view down before closing it in the core", async () => {
    const { b, view } = await setup();
    render(<AppFrame backend={b} view={view} tool={dashboard} args={null} result={null} cancelled={null} />);
    const app = await connectView();
    const order: string[] = [];
    app.onteardown = async () => {
      order.push(`teardown (closed in core: ${b.calls.some((c) => c.method === "closeAppView")})`);
      return {};
    };
    fireEvent.click(screen.getByTestId("app-close"));
    await screen.findByTestId("app-frame-closed");
    await waitFor(() => expect(b.calls.map((c) => c.method)).toContain("closeAppView"));
    expect(order).toEqual(["teardown (closed in core: false)"]);
    expect(b.calls.filter((c) => c.method === "closeAppView").map((c) => c.args)).toEqual([[view.viewId]]);
  });

  it("sends teardown as it unmounts and closes the view in the core (at most a second later)", async () => {
    const { b, view } = await setup();
    const { unmount } = render(<AppFrame backend={b} view={view} tool={dashboard} args={null} result={null} cancelled={null} />);
    await connectView();
    const posted: unknown[] = [];
    vi.spyOn(frameWindow(), "postMessage").mockImplementation((m: unknown) => void posted.push(m));
    unmount();
    await waitFor(() => expect(posted).toContainEqual(expect.objectContaining({ method: "ui/resource-teardown" })));
    await waitFor(() => expect(b.calls.map((c) => c.method)).toContain("closeAppView"), { timeout: 2000 });
  });

  it("says so when the view never initializes", async () => {
    const { b, view } = await setup();
    render(<AppFrame backend={b} view={view} tool={dashboard} args={null} result={null} cancelled={null} initTimeoutMs={30} />);
    expect((await screen.findByTestId("app-frame-error")).textContent).toMatch(/did not start/);
  });
});

describe("ToolAppView", () => {
  it("opens the tool's view, and says why when it cannot", async () => {
    const { b } = await setup();
    const { unmount } = render(
      <ToolAppView backend={b} server="demo" tool={dashboard} uri={DASHBOARD_URI} args={{}} result={null} cancelled={null} />,
    );
    expect(await screen.findByTestId("app-iframe")).toBeTruthy();
    expect(b.calls[0]).toEqual({ method: "openAppView", args: ["demo", "dashboard", DASHBOARD_URI] });
    unmount();
    await waitFor(() => expect(b.calls.map((c) => c.method)).toContain("closeAppView"), { timeout: 2000 });

    render(<ToolAppView backend={b} server="demo" tool={dashboard} uri="ui://nope" args={{}} result={null} cancelled={null} />);
    expect((await screen.findByTestId("app-frame-error")).textContent).toMatch(/could not be opened/);
  });
});

describe("AppFrame: a view's limits", () => {
  it("lets 4 of a flood of 10,000 tool calls wait for the backend, refuses the rest at once, and says so once", async () => {
    const { b, view } = await setup();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // Ends the wait below: every excess request refused, or (the bug) one more reaching the backend.
    let settled!: () => void;
    const flooded = new Promise<void>((r) => (settled = r));
    const backendCall = vi.spyOn(b, "appCallTool").mockImplementation(async () => {
      if (backendCall.mock.calls.length > MAX_WAITING) settled();
      await gate;
      return { content: [{ type: "text", text: "done" }] };
    });
    const unstyle = withAppStyles();
    render(<AppFrame backend={b} view={view} tool={dashboard} args={null} result={null} cancelled={null} />);
    const app = await connectView();
    // The hostile view writes the requests itself, as fast as it can; its answers are read off the wire.
    const flood = 10_000;
    const win = frameWindow();
    const answers = new Map<unknown, JsonRpcAnswer>();
    let refused = 0;
    let allAnswered!: () => void;
    const everyAnswer = new Promise<void>((r) => (allAnswered = r));
    const wire = vi.spyOn(win, "postMessage").mockImplementation((m: unknown) => {
      const answer = m as JsonRpcAnswer;
      if (typeof answer.id !== "string") return;
      answers.set(answer.id, answer);
      if (answer.error && ++refused === flood - MAX_WAITING) settled();
      if (answers.size === flood) allAnswered();
    });
    await act(async () => {
      for (let i = 0; i < flood; i++)
        forge({ jsonrpc: "2.0", id: `f${i}`, method: "tools/call", params: { name: "refresh", arguments: { i } } }, win);
      await flooded;
    });
    // The rest were answered while the first 4 still wait for the person's review.
    expect(backendCall).toHaveBeenCalledTimes(MAX_WAITING);
    expect(answers.size).toBe(flood - MAX_WAITING);
    expect(answers.get(`f${flood - 1}`)?.error).toMatchObject({ message: expect.stringMatching(/too many requests waiting/), data: { code: "limit_exceeded" } });
    const notices = screen.getAllByTestId("app-limited");
    expect(notices).toHaveLength(1);
    expect(notices[0]!.textContent).toMatch(/too many requests/);
    // In the frame's own box, in its flow: nothing it could cover.
    expect(screen.getByTestId("app-frame").contains(notices[0]!)).toBe(true);
    expect(getComputedStyle(notices[0]!).position).not.toMatch(/fixed|absolute|sticky/);
    unstyle();

    // The person answers the 4 reviews: those calls are made and answered.
    await act(async () => {
      release();
      await everyAnswer;
    });
    expect([...answers.values()].filter((a) => a.result)).toHaveLength(MAX_WAITING);
    wire.mockRestore();
    // Once they are answered the view may call again.
    let again: { isError?: boolean | undefined } = { isError: true };
    await act(async () => {
      again = await app.callServerTool({ name: "refresh", arguments: {} });
    });
    expect(again.isError).toBeFalsy();
    expect(backendCall).toHaveBeenCalledTimes(MAX_WAITING + 1);
    expect(screen.getAllByTestId("app-limited")).toHaveLength(1);
  });

  it("refuses a 1 MB ui/message without reaching the backend", async () => {
    const { b, view } = await setup();
    render(<AppFrame backend={b} view={view} tool={dashboard} args={null} result={null} cancelled={null} />);
    const app = await connectView();
    const text = "x".repeat(1024 * 1024);
    let error: unknown = null;
    await act(async () => {
      await app.sendMessage({ role: "user", content: [{ type: "text", text }] }).catch((e: unknown) => (error = e));
    });
    expect(error).toMatchObject({ message: expect.stringMatching(/larger than 256 KiB/) });
    expect(b.calls).toEqual([]);
    expect(screen.queryByTestId("app-message-note")).toBeNull();
    expect(screen.getAllByTestId("app-limited")).toHaveLength(1);
    // A message of ordinary size still goes through.
    await act(async () => {
      await app.sendMessage({ role: "user", content: [{ type: "text", text: "small" }] });
    });
    expect(b.calls.map((c) => c.method)).toEqual(["appMessage"]);
  });

  it("passes the backend's own limit_exceeded refusal on to the view as an error, and says so", async () => {
    const { b, view } = await setup();
    const over = { code: "limit_exceeded", message: "The view of dashboard on demo makes too many requests; this one was refused." };
    vi.spyOn(b, "appCallTool").mockRejectedValue(over);
    vi.spyOn(b, "appOpenLink").mockRejectedValue(over);
    render(<AppFrame backend={b} view={view} tool={dashboard} args={null} result={null} cancelled={null} />);
    const app = await connectView();
    const errors: unknown[] = [];
    await act(async () => {
      await app.callServerTool({ name: "refresh", arguments: {} }).catch((e: unknown) => errors.push(e));
      await app.openLink({ url: "https://example.com/x" }).catch((e: unknown) => errors.push(e));
    });
    const seen = { message: expect.stringMatching(/makes too many requests/), data: { code: "limit_exceeded" } };
    expect(errors).toEqual([expect.objectContaining(seen), expect.objectContaining(seen)]);
    expect(screen.getAllByTestId("app-limited")).toHaveLength(1);
  });

  it("goes full screen at the view's request only just after the person moved focus into it", async () => {
    const { b, view } = await setup();
    render(<AppFrame backend={b} view={view} tool={dashboard} args={null} result={null} cancelled={null} />);
    const app = await connectView();
    const iframe = screen.getByTestId("app-iframe") as HTMLIFrameElement;
    const request = async () => {
      let mode = "";
      await act(async () => {
        mode = (await app.requestDisplayMode({ mode: "fullscreen" })).mode;
      });
      return mode;
    };
    expect(await request()).toBe("inline");
    expect(screen.getByTestId("app-frame").dataset["mode"]).toBe("inline");

    focusInto(iframe);
    expect(await request()).toBe("fullscreen");
    expect(screen.getByTestId("app-frame").dataset["mode"]).toBe("fullscreen");

    // The gesture is spent: back inline, the view cannot go full screen again by itself.
    fireEvent.click(screen.getByTestId("app-exit-fullscreen"));
    expect(await request()).toBe("inline");
    expect(screen.getByTestId("app-frame").dataset["mode"]).toBe("inline");
    // The frame's own button is the person's click, and always works.
    fireEvent.click(screen.getByTestId("app-fullscreen"));
    expect(screen.getByTestId("app-frame").dataset["mode"]).toBe("fullscreen");
  });
});
