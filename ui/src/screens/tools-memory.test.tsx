// The Tools screen is unmounted while another screen is shown (the app mounts only the chosen
// one): what was typed, the search and each tool's call must be there on return, a call that
// ended meanwhile included.
import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { App } from "../app";
import { FakeBackend } from "../backend/fake";

async function openTools() {
  fireEvent.click(screen.getByTestId("nav-tools"));
  return screen.findByTestId("tool-search");
}

async function leaveAndCome(back = true) {
  fireEvent.click(screen.getByTestId("nav-servers"));
  await waitFor(() => expect(screen.queryByTestId("tool-search")).toBeNull());
  if (back) await openTools();
}

function value(testId: string) {
  return (screen.getByTestId(testId) as HTMLInputElement).value;
}

describe("Tools screen: coming back to it", () => {
  it("keeps the search and each tool's arguments, invalid ones too", async () => {
    const b = new FakeBackend().addServer("everything");
    render(<App backend={b} />);
    await openTools();
    fireEvent.click(await screen.findByText("weather"));
    fireEvent.change(await screen.findByTestId("arg-days"), { target: { value: "2.5" } });
    fireEvent.change(screen.getByTestId("tool-search"), { target: { value: "e" } });
    fireEvent.click(screen.getByText("Echo"));
    fireEvent.change(await screen.findByTestId("arg-message"), { target: { value: "hello again" } });
    await leaveAndCome();
    expect(value("tool-search")).toBe("e");
    expect(await screen.findByTestId("arg-message")).toBeTruthy();
    expect(value("arg-message")).toBe("hello again");
    fireEvent.click(screen.getByText("weather"));
    await screen.findByTestId("arg-days");
    expect(value("arg-days")).toBe("2.5");
    expect(screen.getByTestId("call-needs").textContent).toBe("days must be a whole number");
  });

  it("shows a call still running, and on return the result of a call that ended meanwhile", async () => {
    const b = new FakeBackend().addServer("everything");
    b.holdCalls = true;
    render(<App backend={b} />);
    await openTools();
    fireEvent.click(await screen.findByText("Echo"));
    fireEvent.change(await screen.findByTestId("arg-message"), { target: { value: "later" } });
    fireEvent.click(screen.getByTestId("call-tool"));
    await screen.findByTestId("cancel-call");
    act(() => b.onProgress?.({ progress: 1, total: 2, message: "half way" }));

    await leaveAndCome();
    expect(await screen.findByTestId("cancel-call")).toBeTruthy();
    expect(screen.getByText(/half way/)).toBeTruthy();

    await leaveAndCome(false);
    const [id, pending] = [...b.pending][0]!;
    act(() => pending.resolve({ content: [{ type: "text", text: "Echo: later" }] }));
    b.pending.delete(id);
    await openTools();
    expect((await screen.findByTestId("tool-result")).textContent).toContain("Echo: later");
    expect(screen.queryByTestId("cancel-call")).toBeNull();
  });

  it("keeps a call's failure too", async () => {
    const b = new FakeBackend().addServer("everything");
    b.holdCalls = true;
    render(<App backend={b} />);
    await openTools();
    fireEvent.click(await screen.findByText("Echo"));
    fireEvent.change(await screen.findByTestId("arg-message"), { target: { value: "x" } });
    fireEvent.click(screen.getByTestId("call-tool"));
    await screen.findByTestId("cancel-call");
    await leaveAndCome(false);
    const [, pending] = [...b.pending][0]!;
    act(() => pending.reject({ code: "server_error", message: "the server broke" }));
    await openTools();
    expect((await screen.findByTestId("error-banner")).textContent).toBe("the server broke");
  });
});

describe("Tools screen: a new call", () => {
  it("hides the last result while it runs, showing only that it runs", async () => {
    const b = new FakeBackend().addServer("everything");
    render(<App backend={b} />);
    await openTools();
    fireEvent.click(await screen.findByText("Echo"));
    fireEvent.change(await screen.findByTestId("arg-message"), { target: { value: "one" } });
    fireEvent.click(screen.getByTestId("call-tool"));
    expect((await screen.findByTestId("tool-result")).textContent).toContain("Echo: one");
    b.holdCalls = true;
    fireEvent.change(screen.getByTestId("arg-message"), { target: { value: "two" } });
    fireEvent.click(screen.getByTestId("call-tool"));
    await screen.findByTestId("cancel-call");
    expect(screen.queryByTestId("tool-result")).toBeNull();
    const [, pending] = [...b.pending][0]!;
    act(() => pending.resolve({ content: [{ type: "text", text: "Echo: two" }] }));
    expect((await screen.findByTestId("tool-result")).textContent).toContain("Echo: two");
  });
});
