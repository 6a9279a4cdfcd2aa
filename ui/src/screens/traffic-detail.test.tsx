// The Traffic screen's chosen message and its actions: the body as a JSON tree (folding, never
// markup), a request paired with its answer (the latency on both, a way from one to the other,
// even when the answer came later), a body kept only in part, HTTP headers, Copy, the export of
// what the list shows, and the rings' limits with the core's sentences.
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FakeBackend } from "../backend/fake";
import { request, row, shownSeqs, Traffic } from "./traffic-test-helpers";

async function choose(b: FakeBackend, seq: number): Promise<HTMLElement> {
  render(<Traffic backend={b} />);
  await waitFor(() => expect(shownSeqs()).toContain(seq));
  fireEvent.click(row(seq));
  const detail = await screen.findByTestId("traffic-detail");
  await waitFor(() => expect(detail.dataset.seq).toBe(String(seq)));
  return detail;
}

const CALL = request(5, "tools/call", { name: "echo", arguments: { message: "hi", tags: ["a", "b"], options: { nested: { deep: 1 } } } });
const ANSWER = JSON.stringify({ jsonrpc: "2.0", id: 5, result: { content: [{ type: "text", text: "Echo: hi" }] } });

describe("Traffic screen: a message", () => {
  it("shows a request's body as a tree whose nodes fold, and its answer's latency", async () => {
    const b = new FakeBackend();
    b.addTraffic({ method: "tools/call", id: "5", atMs: 1000, body: CALL }, { kind: "response", id: "5", atMs: 1042, body: ANSWER });
    const detail = await choose(b, 1);
    const tree = await within(detail).findByTestId("traffic-json");
    expect(tree.textContent).toContain('"method": "tools/call"');
    expect(tree.textContent).toContain('"message": "hi"');
    // Deeper than a tool call's arguments' own values, a node starts closed.
    expect(tree.textContent).toContain('"nested": {…} 1 key');
    expect(tree.textContent).not.toContain("deep");
    expect(row(1).textContent).toContain("42 ms");
    expect(row(2).textContent).toContain("42 ms");
    expect(within(detail).getByTestId("traffic-pair").textContent).toContain("Answered by #2 in 42 ms");

    fireEvent.click(within(detail).getByRole("button", { name: "Collapse params" }));
    expect(tree.textContent).not.toContain("arguments");
    expect(tree.textContent).toContain('"params": {…} 2 keys');
    expect(within(detail).queryByRole("button", { name: "Collapse arguments" })).toBeNull();
    fireEvent.click(within(detail).getByRole("button", { name: "Expand params" }));
    expect(tree.textContent).toContain('"message": "hi"');
    fireEvent.click(within(detail).getByRole("button", { name: "Collapse tags" }));
    expect(tree.textContent).toContain('"tags": […] 2 items');
    expect(tree.textContent).toContain('"message": "hi"');
  });

  it("goes from a request to its answer and back", async () => {
    const b = new FakeBackend();
    b.addTraffic({ method: "tools/call", id: "5", atMs: 1000, body: CALL }, { kind: "response", id: "5", atMs: 1042, body: ANSWER });
    const detail = await choose(b, 1);
    fireEvent.click(within(detail).getByTestId("traffic-jump"));
    await waitFor(() => expect(screen.getByTestId("traffic-detail").dataset.seq).toBe("2"));
    await waitFor(() => expect(document.activeElement).toBe(row(2)));
    const answer = screen.getByTestId("traffic-detail");
    expect(within(answer).getByTestId("traffic-pair").textContent).toContain("Answers #1 (after 42 ms)");
    expect((await within(answer).findByTestId("traffic-json")).textContent).toContain('"text": "Echo: hi"');
    fireEvent.click(within(answer).getByTestId("traffic-jump"));
    await waitFor(() => expect(screen.getByTestId("traffic-detail").dataset.seq).toBe("1"));
  });

  it("pairs a request already listed with the answer that comes later", async () => {
    const b = new FakeBackend();
    b.addTraffic({ method: "tools/call", id: "5", atMs: 1000, body: CALL });
    const detail = await choose(b, 1);
    expect(within(detail).getByTestId("traffic-pair").textContent).toBe("Not answered yet.");
    b.addTraffic({ kind: "response", id: "5", atMs: 1250, body: ANSWER });
    await waitFor(() => expect(shownSeqs()).toEqual([1, 2]), { timeout: 2000 });
    expect(row(1).textContent).toContain("250 ms");
    expect(within(screen.getByTestId("traffic-detail")).getByTestId("traffic-pair").textContent).toContain(
      "Answered by #2 in 250 ms",
    );
  });

  it("starts a big array closed, and shows its items a hundred at a time", async () => {
    const b = new FakeBackend();
    const tools = Array.from({ length: 250 }, (_, i) => ({ name: `tool-${i}` }));
    b.addTraffic({ kind: "response", id: "1", body: JSON.stringify({ jsonrpc: "2.0", id: 1, result: { tools } }) });
    const detail = await choose(b, 1);
    const tree = await within(detail).findByTestId("traffic-json");
    expect(tree.textContent).toContain('"tools": […] 250 items');
    fireEvent.click(within(detail).getByRole("button", { name: "Expand tools" }));
    expect(tree.textContent).toContain('"tool-99"');
    expect(tree.textContent).not.toContain('"tool-100"');
    fireEvent.click(within(detail).getByTestId("json-more"));
    expect(tree.textContent).toContain('"tool-199"');
    expect(within(detail).getByTestId("json-more").textContent).toBe("Show 50 more of 250");
  });

  it("shows a message kept only in part as raw text, and says how much is kept", async () => {
    const b = new FakeBackend();
    const head = `{"jsonrpc":"2.0","id":9,"result":{"text":"${"a".repeat(2000)}`;
    b.addTraffic({ kind: "response", id: "9", size: 3 * 1024 * 1024, truncated: true, body: head });
    expect(await choose(b, 1)).toBeTruthy();
    expect(row(1).textContent).toContain("3 MB");
    expect(row(1).textContent).toContain("cut");
    expect((await screen.findByTestId("traffic-truncated")).textContent).toBe(
      "Only the first 2 KB of this 3 MB message is kept.",
    );
    expect(screen.getByTestId("traffic-raw").textContent).toBe(head);
    expect(screen.queryByTestId("traffic-json")).toBeNull();
  });

  it("shows markup in a body as text, never as elements", async () => {
    const b = new FakeBackend();
    const evil = "<img src=x onerror=alert(1)>";
    b.addTraffic(
      { kind: "response", id: "1", body: JSON.stringify({ jsonrpc: "2.0", id: 1, result: { [evil]: evil } }) },
      { kind: "response", id: "2", truncated: true, size: 100_000, body: `${evil}{"id":` },
      { method: evil, id: "3" },
    );
    const { container } = render(<Traffic backend={b} />);
    await waitFor(() => expect(shownSeqs()).toEqual([1, 2, 3]));
    fireEvent.click(row(1));
    const tree = await screen.findByTestId("traffic-json");
    expect(tree.textContent).toContain(`"${evil}": "${evil}"`);
    fireEvent.click(row(2));
    await waitFor(() => expect(screen.getByTestId("traffic-raw").textContent).toBe(`${evil}{"id":`));
    fireEvent.click(row(3));
    await waitFor(() => expect(screen.getByTestId("traffic-detail").dataset.seq).toBe("3"));
    expect(row(3).textContent).toContain(evil);
    expect(container.querySelector("img")).toBeNull();
    expect(document.querySelector("img")).toBeNull();
  });

  it("shows an HTTP exchange's verb, status and headers", async () => {
    const b = new FakeBackend();
    b.addTraffic({
      kind: "http",
      direction: "in",
      body: "",
      failed: true,
      http: { verb: "POST", status: 401, headers: [{ name: "www-authenticate", value: 'Bearer realm="x"' }], error: "401 Unauthorized" },
    });
    const detail = await choose(b, 1);
    expect(row(1).textContent).toContain("POST 401");
    const headers = within(detail).getByTestId("traffic-headers");
    expect(headers.textContent).toContain("www-authenticate");
    expect(headers.textContent).toContain('Bearer realm="x"');
    expect(detail.textContent).toContain("401 Unauthorized");
  });
});

describe("Traffic screen: copy", () => {
  afterEach(() => {
    Reflect.deleteProperty(navigator, "clipboard");
  });

  function clipboard(writeText: (text: string) => Promise<void>) {
    const spy = vi.fn(writeText);
    Object.defineProperty(navigator, "clipboard", { value: { writeText: spy }, configurable: true });
    return spy;
  }

  it("copies the body, and says when the clipboard refused it", async () => {
    const b = new FakeBackend();
    b.addTraffic({ method: "tools/call", id: "5", body: CALL });
    const write = clipboard(async () => undefined);
    const detail = await choose(b, 1);
    fireEvent.click(await within(detail).findByTestId("traffic-copy"));
    await waitFor(() => expect(within(detail).getByTestId("traffic-copy-status").textContent).toBe("Copied."));
    expect(write).toHaveBeenCalledWith(CALL);

    clipboard(async () => {
      throw new Error("Write permission denied.");
    });
    fireEvent.click(within(detail).getByTestId("traffic-copy"));
    await waitFor(() =>
      expect(within(detail).getByTestId("traffic-copy-status").textContent).toBe(
        "The body could not be copied: Write permission denied.",
      ),
    );
  });
});

describe("Traffic screen: export", () => {
  it("exports the rows the filters show, and says where they went; nothing on cancel", async () => {
    const b = new FakeBackend().addServer("alpha").addServer("beta");
    b.addTraffic(
      { server: "alpha", method: "ping", id: "1" },
      { server: "beta", method: "ping", id: "1" },
      { server: "alpha", kind: "response", id: "1" },
    );
    render(<Traffic backend={b} />);
    await waitFor(() => expect(shownSeqs()).toEqual([1, 2, 3]));
    fireEvent.change(screen.getByTestId("traffic-server"), { target: { value: "alpha" } });
    await waitFor(() => expect(shownSeqs()).toEqual([1, 3]));
    fireEvent.click(screen.getByTestId("traffic-export"));
    expect((await screen.findByTestId("traffic-exported")).textContent).toBe(
      "Exported 2 messages to /home/you/switchboard-traffic.jsonl",
    );
    const exported = () => b.calls.filter((c) => c.method === "exportTraffic").map((c) => c.args[0]);
    expect(exported()).toEqual([[1, 3]]);

    b.wire.exportPath = null;
    fireEvent.click(screen.getByTestId("traffic-export"));
    await waitFor(() => expect(exported()).toHaveLength(2));
    expect(screen.queryByTestId("traffic-exported")).toBeNull();

    b.exportTraffic = async () => {
      throw { code: "io", message: "Cannot write /home/you/t.jsonl: permission denied." };
    };
    fireEvent.click(screen.getByTestId("traffic-export"));
    expect((await screen.findByTestId("traffic-export-error")).textContent).toBe(
      "Cannot write /home/you/t.jsonl: permission denied.",
    );
  });
});

describe("Traffic screen: limits", () => {
  it("saves the rings' limits, and shows the core's sentence for ones out of bounds", async () => {
    const b = new FakeBackend();
    render(<Traffic backend={b} />);
    fireEvent.click(screen.getByTestId("traffic-limits-open"));
    const messages = screen.getByTestId<HTMLInputElement>("traffic-max-messages");
    await waitFor(() => expect(messages.value).toBe("5000"));
    expect(screen.getByTestId<HTMLInputElement>("traffic-max-mb").value).toBe("8");
    expect(screen.getByTestId<HTMLInputElement>("traffic-max-message-kb").value).toBe("64");

    fireEvent.change(messages, { target: { value: "50" } });
    fireEvent.click(screen.getByTestId("traffic-limits-save"));
    expect((await screen.findByTestId("traffic-limits-error")).textContent).toBe(
      "Keep from 100 to 1,000,000 messages per server.",
    );
    expect(screen.queryByTestId("traffic-limits-saved")).toBeNull();

    fireEvent.change(messages, { target: { value: "10000" } });
    fireEvent.change(screen.getByTestId("traffic-max-mb"), { target: { value: "16" } });
    fireEvent.change(screen.getByTestId("traffic-max-message-kb"), { target: { value: "128" } });
    fireEvent.click(screen.getByTestId("traffic-limits-save"));
    expect((await screen.findByTestId("traffic-limits-saved")).textContent).toBe("Saved");
    expect(screen.queryByTestId("traffic-limits-error")).toBeNull();
    const saved = { maxMessages: 10000, maxBytes: 16 * 1024 * 1024, maxMessageBytes: 128 * 1024 };
    expect(b.calls.filter((c) => c.method === "setTrafficLimits").map((c) => c.args[0])).toEqual([
      { maxMessages: 50, maxBytes: 8 * 1024 * 1024, maxMessageBytes: 64 * 1024 },
      saved,
    ]);
    expect(b.wire.limits).toEqual(saved);
  });
});
