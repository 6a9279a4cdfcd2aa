// The Tools screen with MCP Apps: tools with a view are marked (and app-only ones), a call opens
// the view as it starts, the view hears the arguments and the result, and the result is still
// shown as text; a view's message is shown, never sent (there is no conversation here).
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { APP_TOOLS, FakeBackend } from "../backend/fake";
import { startView } from "../components/app-frame/test-view";
import { Tools } from "./tools-test-helpers";

beforeEach(() => {
  vi.spyOn(console, "debug").mockImplementation(() => undefined);
});

describe("Tools screen: MCP Apps", () => {
  it("marks tools with a view and app-only tools", async () => {
    const b = new FakeBackend().addServer("demo");
    b.extraTools = APP_TOOLS;
    render(<Tools backend={b} />);
    await screen.findByText("Dashboard");
    const item = (name: string) => screen.getAllByTestId("tool-item").find((t) => t.dataset["name"] === name)!;
    expect(item("dashboard").querySelector("[data-testid=tool-has-view]")).toBeTruthy();
    expect(item("dashboard").querySelector("[data-testid=tool-app-only]")).toBeNull();
    expect(item("refresh").querySelector("[data-testid=tool-app-only]")).toBeTruthy();
    expect(item("echo").querySelector("[data-testid=tool-has-view]")).toBeNull();
    fireEvent.click(item("refresh"));
    expect(await screen.findByTestId("tool-app-only-note")).toBeTruthy();
  });

  it("opens the view when the call starts and gives it the arguments, then the result", async () => {
    const b = new FakeBackend().addServer("demo");
    b.extraTools = APP_TOOLS;
    b.holdCalls = true;
    render(<Tools backend={b} />);
    fireEvent.click(await screen.findByText("Dashboard"));
    fireEvent.click(await screen.findByTestId("call-tool"));
    const iframe = (await screen.findByTestId("app-iframe")) as HTMLIFrameElement;
    expect(b.calls.find((c) => c.method === "openAppView")?.args).toEqual(["demo", "dashboard", "ui://demo/dashboard.html"]);
    const inputs: unknown[] = [];
    const results: unknown[] = [];
    const app = await act(() =>
      startView(iframe.contentWindow!, (a) => {
        a.ontoolinput = (p) => inputs.push(p.arguments);
        a.ontoolresult = (p) => results.push(p.content);
      }),
    );
    await waitFor(() => expect(inputs).toEqual([{}]));
    const callId = [...b.pending.keys()][0]!;
    act(() => b.pending.get(callId)!.resolve({ content: [{ type: "text", text: "dashboard ready" }] }));
    await waitFor(() => expect(results).toEqual([[{ type: "text", text: "dashboard ready" }]]));
    // The result is still shown as text beside the view.
    expect((await screen.findByTestId("tool-result")).textContent).toContain("dashboard ready");

    let answer: { isError?: boolean | undefined } = {};
    await act(async () => {
      answer = await app.sendMessage({ role: "user", content: [{ type: "text", text: "send me" }] });
    });
    expect(answer.isError).toBe(true);
    expect((await screen.findByTestId("app-message-note")).textContent).toContain("no conversation");
    expect(b.calls.some((c) => c.method === "sendMessage")).toBe(false);
  });

  it("tells the view the call was cancelled", async () => {
    const b = new FakeBackend().addServer("demo");
    b.extraTools = APP_TOOLS;
    b.holdCalls = true;
    render(<Tools backend={b} />);
    fireEvent.click(await screen.findByText("Dashboard"));
    fireEvent.click(await screen.findByTestId("call-tool"));
    const iframe = (await screen.findByTestId("app-iframe")) as HTMLIFrameElement;
    const cancelled: unknown[] = [];
    await act(() => startView(iframe.contentWindow!, (a) => (a.ontoolcancelled = (p) => cancelled.push(p.reason))));
    fireEvent.click(screen.getByTestId("cancel-call"));
    await waitFor(() => expect(cancelled).toEqual(["cancelled"]));
  });
});
