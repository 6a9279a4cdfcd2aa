// The Traffic screen's kept sessions: "Keep session" keeps what crosses the wire from then on
// until stopped, the panel lists the sessions, one opens in the list (its messages only, their
// bodies and export from the session), and one no longer kept can be deleted.
import { fireEvent, render, screen, within } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FakeBackend } from "../backend/fake";
import { pass, queries, row, shownSeqs, Traffic } from "./traffic-test-helpers";

describe("Traffic screen: kept sessions", () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it("keeps what crosses the wire until stopped, and reads the session back in the list", async () => {
    const b = new FakeBackend().addServer("everything");
    b.addTraffic({ method: "before/keeping", id: "1" });
    render(<Traffic backend={b} />);
    await pass(0);
    expect(screen.getByTestId("traffic-keep").textContent).toBe("Keep session");

    fireEvent.click(screen.getByTestId("traffic-keep"));
    await pass(0);
    expect(screen.getByTestId("traffic-keep").getAttribute("aria-pressed")).toBe("true");
    b.addTraffic({ method: "tools/call", id: "2" }, { kind: "response", id: "2" });
    await pass(2000);
    expect(screen.getByTestId("traffic-keeping").textContent).toContain("2 messages so far");

    fireEvent.click(screen.getByTestId("traffic-keep"));
    await pass(0);
    b.addTraffic({ method: "after/keeping", id: "4" });
    expect(screen.queryByTestId("traffic-keeping")).toBeNull();
    fireEvent.click(screen.getByTestId("traffic-sessions-open"));
    await pass(0);
    const listed = screen.getAllByTestId("traffic-session");
    expect(listed).toHaveLength(1);
    expect(listed[0]!.textContent).toContain("2 messages");

    fireEvent.click(within(listed[0]!).getByTestId("traffic-session-view"));
    await pass(0);
    expect(shownSeqs()).toEqual([2, 3]);
    expect(queries(b).at(-1)).toMatchObject({ after: 0, session: 1 });
    expect(screen.getByTestId("traffic-viewing").textContent).toContain("not live traffic");
    expect(screen.getByTestId("traffic-status").textContent).toContain("a kept session");

    fireEvent.click(row(3));
    await pass(0);
    expect(b.calls.filter((c) => c.method === "trafficMessages").at(-1)?.args).toEqual([[3], 1]);
    fireEvent.click(screen.getByTestId("traffic-export"));
    await pass(0);
    expect(b.calls.filter((c) => c.method === "exportTraffic").at(-1)?.args).toEqual([[2, 3], 1]);
    expect(screen.getByTestId("traffic-exported").textContent).toContain("2 messages");

    fireEvent.click(screen.getByTestId("traffic-live"));
    await pass(0);
    expect(shownSeqs()).toEqual([1, 2, 3, 4]);
    expect(screen.queryByTestId("traffic-viewing")).toBeNull();
  });

  it("deletes a session no longer kept, and never the one being kept", async () => {
    const b = new FakeBackend();
    render(<Traffic backend={b} />);
    await pass(0);
    fireEvent.click(screen.getByTestId("traffic-keep"));
    await pass(0);
    fireEvent.click(screen.getByTestId("traffic-sessions-open"));
    await pass(0);
    const kept = screen.getByTestId("traffic-session");
    expect(kept.textContent).toContain("being kept");
    expect(within(kept).getByTestId<HTMLButtonElement>("traffic-session-delete").disabled).toBe(true);

    fireEvent.click(within(kept).getByTestId("traffic-session-view"));
    fireEvent.click(screen.getByTestId("traffic-keep"));
    await pass(0);
    fireEvent.click(within(screen.getByTestId("traffic-session")).getByTestId("traffic-session-delete"));
    await pass(0);
    expect(b.calls.some((c) => c.method === "deleteKeptTraffic")).toBe(true);
    expect(screen.getByTestId("traffic-sessions-empty")).toBeTruthy();
    // The session shown is gone: the list is live again.
    expect(screen.queryByTestId("traffic-viewing")).toBeNull();
    expect(queries(b).at(-1)).toMatchObject({ session: null });
  });

  it("says why keeping could not start", async () => {
    const b = new FakeBackend();
    b.keepTraffic = () => Promise.reject({ code: "not_supported", message: "Traffic sessions are kept by the desktop app." });
    render(<Traffic backend={b} />);
    await pass(0);
    fireEvent.click(screen.getByTestId("traffic-keep"));
    await pass(0);
    expect(screen.getByTestId("traffic-keep-error").textContent).toContain("kept by the desktop app");
  });
});
