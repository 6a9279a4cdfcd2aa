// The fake's traffic ring answers as the core's does, so the screen's tests can lean on it: pages
// after a number with the next `after` in `last`, the filters, pairing and the limits' sentences.
import { describe, expect, it } from "vitest";
import type { TrafficQuery } from "../bindings/TrafficQuery";
import { FakeBackend } from "./fake";

const ALL: TrafficQuery = { servers: [], methods: [], direction: null, errorsOnly: false, text: "", after: 0, limit: 5000, session: null };

describe("FakeBackend: traffic", () => {
  it("pages after a number, with what to ask next", async () => {
    const b = new FakeBackend();
    b.addTraffic({ method: "a" }, { method: "b" }, { method: "c" });
    const first = await b.traffic({ ...ALL, limit: 2 });
    expect(first.entries.map((e) => e.seq)).toEqual([1, 2]);
    expect(first.last).toBe(2);
    const second = await b.traffic({ ...ALL, after: first.last, limit: 2 });
    expect(second.entries.map((e) => e.seq)).toEqual([3]);
    expect(second.last).toBe(3);
    expect((await b.traffic({ ...ALL, after: 3 })).last).toBe(3);
    expect(second.methods).toEqual(["a", "b", "c"]);
  });

  it("filters as the core does, and pairs an answer with its request", async () => {
    const b = new FakeBackend();
    b.addTraffic(
      { server: "x", method: "tools/call", id: "1", atMs: 100, body: '{"method":"tools/call","params":{"q":"FIND me"}}' },
      { server: "y", method: "tools/call", id: "1", atMs: 100 },
      { server: "x", kind: "error", id: "1", atMs: 130 },
    );
    const seqs = async (q: Partial<TrafficQuery>) => (await b.traffic({ ...ALL, ...q })).entries.map((e) => e.seq);
    expect(await seqs({ servers: ["x"] })).toEqual([1, 3]);
    expect(await seqs({ direction: "in" })).toEqual([3]);
    expect(await seqs({ errorsOnly: true })).toEqual([3]);
    expect(await seqs({ text: "find ME" })).toEqual([1]);
    expect(await seqs({ methods: ["tools/call"], servers: ["x"] })).toEqual([1, 3]);
    const [request, , answer] = (await b.traffic(ALL)).entries;
    expect(request).toMatchObject({ pairedSeq: 3, latencyMs: 30 });
    expect(answer).toMatchObject({ pairedSeq: 1, latencyMs: 30, method: "tools/call", failed: true });
    expect((await b.trafficMessages([1, 99])).map((m) => m.seq)).toEqual([1]);
  });

  it("refuses limits out of bounds with the core's sentences", async () => {
    const b = new FakeBackend();
    const limits = await b.trafficLimits();
    await expect(b.setTrafficLimits({ ...limits, maxBytes: 10 })).rejects.toEqual({
      code: "invalid_input",
      message: "Keep from 1 MB to 1 GB per server.",
    });
    await expect(b.setTrafficLimits({ ...limits, maxMessageBytes: 100 })).rejects.toMatchObject({ code: "invalid_input" });
    await b.setTrafficLimits({ ...limits, maxMessages: 100 });
    expect((await b.trafficLimits()).maxMessages).toBe(100);
  });
});
