// The Traffic screen's list: live (one request at a time, what came since the last answer, every
// half second while shown, none once gone), filtered by the core (each change starts over from
// the start), paused and cleared, keyboard-driven, and bounded to the newest 20,000 rows.
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { App } from "../app";
import { FakeBackend } from "../backend/fake";
import { pass, queries, row, shownSeqs, Traffic } from "./traffic-test-helpers";

describe("Traffic screen: live", () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it("lists what crossed the wire, then what came since on the next poll, one request at a time", async () => {
    const b = new FakeBackend().addServer("everything");
    b.addTraffic({ method: "initialize", id: "1" }, { kind: "response", id: "1" });
    render(<Traffic backend={b} />);
    await pass(0);
    expect(shownSeqs()).toEqual([1, 2]);
    expect(row(1).dataset).toMatchObject({ kind: "request", direction: "out" });
    expect(row(2).dataset).toMatchObject({ kind: "response", direction: "in" });
    expect(row(1).textContent).toContain("→");
    expect(row(2).textContent).toContain("←");

    b.addTraffic({ method: "tools/list", id: "2" });
    await pass(490);
    expect(shownSeqs()).toEqual([1, 2]);
    await pass(10);
    expect(shownSeqs()).toEqual([1, 2, 3]);
    // Each poll asks for what came after the last answer, with no filter.
    expect(queries(b)).toEqual([
      { servers: [], methods: [], direction: null, errorsOnly: false, text: "", after: 0, limit: 5000, session: null },
      { servers: [], methods: [], direction: null, errorsOnly: false, text: "", after: 2, limit: 5000, session: null },
    ]);
    expect(screen.getByTestId("traffic-status").textContent).toBe("3 messages shown; live.");
  });

  it("never asks again before the core has answered, and stops asking once the screen is gone", async () => {
    const b = new FakeBackend();
    // The core answers only when the test says so.
    const answers: (() => void)[] = [];
    const traffic = b.traffic.bind(b);
    b.traffic = (q) => new Promise((resolve) => answers.push(() => resolve(traffic(q))));
    const view = render(<Traffic backend={b} />);
    await pass(2000);
    expect(answers).toHaveLength(1);
    answers.shift()!();
    await pass(499);
    expect(answers).toHaveLength(0);
    await pass(1);
    expect(answers).toHaveLength(1);
    view.unmount();
    answers.shift()!();
    await pass(5000);
    expect(answers).toHaveLength(0);
  });

  it("says nothing has crossed the wire yet", async () => {
    render(<Traffic backend={new FakeBackend()} />);
    await pass(0);
    expect(screen.getByTestId("traffic-empty").textContent).toBe(
      "Nothing has crossed the wire yet. Messages to and from your servers appear here as they happen.",
    );
  });

  it("pauses: nothing more is fetched until it resumes from where it stopped", async () => {
    const b = new FakeBackend();
    b.addTraffic({ method: "ping", id: "1" });
    render(<Traffic backend={b} />);
    await pass(0);
    fireEvent.click(screen.getByTestId("traffic-pause"));
    expect(screen.getByTestId("traffic-pause").getAttribute("aria-pressed")).toBe("true");
    expect(screen.getByTestId("traffic-status").dataset.paused).toBe("true");
    await pass(500);
    const asked = queries(b).length;
    b.addTraffic({ method: "ping", id: "2" });
    await pass(3000);
    expect(queries(b)).toHaveLength(asked);
    expect(shownSeqs()).toEqual([1]);
    fireEvent.click(screen.getByTestId("traffic-pause"));
    await pass(0);
    expect(shownSeqs()).toEqual([1, 2]);
    expect(queries(b).at(-1)?.after).toBe(1);
  });

  it("clears the view: only what comes after is shown, whatever the filters", async () => {
    const b = new FakeBackend();
    b.addTraffic({ method: "ping", id: "1" }, { kind: "response", id: "1" });
    render(<Traffic backend={b} />);
    await pass(0);
    fireEvent.click(screen.getByTestId("traffic-clear"));
    expect(shownSeqs()).toEqual([]);
    expect(screen.getByTestId("traffic-empty").textContent).toBe("Nothing new since you cleared the view.");
    b.addTraffic({ method: "ping", id: "2" });
    await pass(500);
    expect(shownSeqs()).toEqual([3]);
    fireEvent.change(screen.getByTestId("traffic-direction"), { target: { value: "out" } });
    await pass(0);
    expect(shownSeqs()).toEqual([3]);
  });
});

describe("Traffic screen: filters", () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it("hands each filter to the core and starts over from the start", async () => {
    const b = new FakeBackend().addServer("alpha").addServer("beta");
    b.addTraffic(
      { server: "alpha", method: "tools/list", id: "1" },
      { server: "beta", method: "tools/call", id: "1", body: '{"id":1,"method":"tools/call","params":{"q":"Hello"}}' },
      { server: "beta", kind: "error", id: "1" },
      { server: "beta", kind: "notification", method: "notifications/progress", direction: "in" },
    );
    render(<Traffic backend={b} />);
    await pass(0);
    expect(shownSeqs()).toEqual([1, 2, 3, 4]);
    const last = () => queries(b).at(-1)!;

    fireEvent.change(screen.getByTestId("traffic-server"), { target: { value: "beta" } });
    await pass(0);
    expect(last()).toMatchObject({ servers: ["beta"], after: 0 });
    expect(shownSeqs()).toEqual([2, 3, 4]);

    const methods = [...screen.getByTestId<HTMLSelectElement>("traffic-method").options].map((o) => o.textContent);
    expect(methods).toEqual(["All methods", "notifications/progress", "tools/call"]);
    fireEvent.change(screen.getByTestId("traffic-method"), { target: { value: "tools/call" } });
    await pass(0);
    expect(last()).toMatchObject({ servers: ["beta"], methods: ["tools/call"], after: 0 });
    expect(shownSeqs()).toEqual([2, 3]);

    fireEvent.change(screen.getByTestId("traffic-direction"), { target: { value: "in" } });
    await pass(0);
    expect(last()).toMatchObject({ direction: "in", after: 0 });
    expect(shownSeqs()).toEqual([3]);

    fireEvent.change(screen.getByTestId("traffic-direction"), { target: { value: "" } });
    fireEvent.click(screen.getByTestId("traffic-errors"));
    await pass(0);
    expect(last()).toMatchObject({ direction: null, errorsOnly: true, after: 0 });
    expect(shownSeqs()).toEqual([3]);
    expect(row(3).dataset.failed).toBe("true");
    expect(row(3).className).toContain("failed");

    fireEvent.click(screen.getByTestId("traffic-errors"));
    fireEvent.change(screen.getByTestId("traffic-search"), { target: { value: "hel" } });
    fireEvent.change(screen.getByTestId("traffic-search"), { target: { value: "hello" } });
    await pass(150);
    // The search waits for the typing to settle.
    expect(queries(b).some((q) => q.text)).toBe(false);
    await pass(50);
    expect(last()).toEqual({
      servers: ["beta"],
      methods: ["tools/call"],
      direction: null,
      errorsOnly: false,
      text: "hello",
      after: 0,
      limit: 5000,
      session: null,
    });
    expect(shownSeqs()).toEqual([2]);
    expect(queries(b).filter((q) => q.text)).toHaveLength(1);

    fireEvent.change(screen.getByTestId("traffic-search"), { target: { value: "nowhere" } });
    await pass(200);
    expect(screen.getByTestId("traffic-empty").textContent).toBe("No message matches these filters.");
  });
});

describe("Traffic screen: the list", () => {
  it("moves the selection with the arrow keys", async () => {
    const b = new FakeBackend();
    b.addTraffic({ method: "a", id: "1" }, { method: "b", id: "2" }, { method: "c", id: "3" });
    render(<Traffic backend={b} />);
    await waitFor(() => expect(shownSeqs()).toEqual([1, 2, 3]));
    expect(screen.getByRole("list", { name: "Messages" })).toBeTruthy();
    fireEvent.click(row(1));
    expect((await screen.findByTestId("traffic-detail")).dataset.seq).toBe("1");
    fireEvent.keyDown(row(1), { key: "ArrowDown" });
    await waitFor(() => expect(document.activeElement).toBe(row(2)));
    expect(screen.getByTestId("traffic-detail").dataset.seq).toBe("2");
    expect(row(2).getAttribute("aria-current")).toBe("true");
    expect(row(1).getAttribute("aria-current")).toBeNull();
    fireEvent.keyDown(row(2), { key: "End" });
    await waitFor(() => expect(document.activeElement).toBe(row(3)));
    fireEvent.keyDown(row(3), { key: "ArrowUp" });
    await waitFor(() => expect(screen.getByTestId("traffic-detail").dataset.seq).toBe("2"));
  });

  it("keeps the newest 20,000 rows, and says how many it let go and how many the rings evicted", async () => {
    const b = new FakeBackend();
    b.wire.dropped = 1234;
    for (let i = 1; i <= 25_000; i++) b.addTraffic({ method: "notifications/message", kind: "notification", direction: "in" });
    render(<Traffic backend={b} />);
    const status = await screen.findByTestId("traffic-status");
    await waitFor(() => expect(status.dataset.letGo).toBe("5000"), { timeout: 5000 });
    expect(status.dataset.shown).toBe("20000");
    expect(status.textContent).toBe(
      "20,000 messages shown; the 5,000 older ones let go here (this view keeps the newest 20,000 messages); " +
        "1,234 messages evicted from the servers' rings; live.",
    );
    // Pages came back full: the screen asked again at once until it had caught up.
    expect(queries(b).map((q) => q.after).slice(0, 6)).toEqual([0, 5000, 10000, 15000, 20000, 25000]);
    // Live, the list follows its end; only the rows in view are drawn.
    expect(shownSeqs()).toContain(25_000);
    expect(shownSeqs().length).toBeLessThan(100);
    fireEvent.keyDown(row(25_000), { key: "Home" });
    await waitFor(() => expect(screen.getByTestId("traffic-detail").dataset.seq).toBe("5001"));
    expect(shownSeqs()).toContain(5001);
    expect(shownSeqs()).not.toContain(5000);
  });
});

describe("Traffic screen: in the window", () => {
  it("is in the sidebar as Traffic, and loads when opened", async () => {
    const b = new FakeBackend().addServer("everything");
    b.addTraffic({ server: "everything", method: "tools/list", id: "1" });
    render(<App backend={b} />);
    const tab = screen.getByTestId("nav-traffic");
    expect(tab.textContent).toBe("Traffic");
    fireEvent.click(tab);
    expect(await screen.findByRole("region", { name: "Traffic" })).toBeTruthy();
    await waitFor(() => expect(shownSeqs()).toEqual([1]));
  });
});
