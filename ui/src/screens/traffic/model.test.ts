// How a page of the core's answer joins the rows the Traffic screen holds: appended once, bounded
// to the newest, a cleared view's floor kept, a request paired with its later answer, and nothing
// new made (no re-render) when nothing changed; and the cells' formatting.
import { describe, expect, it } from "vitest";
import type { TrafficEntry } from "../../bindings/TrafficEntry";
import type { TrafficPage } from "../../bindings/TrafficPage";
import { appendPage, clockTime, EMPTY_VIEW, humanSize, indexOfSeq, methodText, queryOf, NO_FILTERS } from "./model";

function entry(seq: number, more: Partial<TrafficEntry> = {}): TrafficEntry {
  return {
    seq,
    server: "s",
    atMs: 0,
    direction: "out",
    kind: "notification",
    method: "m",
    id: null,
    size: 10,
    truncated: false,
    failed: false,
    pairedSeq: null,
    latencyMs: null,
    http: null,
    preview: "",
    ...more,
  };
}

function page(entries: TrafficEntry[], more: Partial<TrafficPage> = {}): TrafficPage {
  return { entries, last: entries.at(-1)?.seq ?? 0, dropped: 0, methods: ["m"], ...more };
}

const seqs = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => entry(from + i));

describe("appendPage", () => {
  it("appends in order and keeps only the newest rows beyond the cap", () => {
    const one = appendPage(EMPTY_VIEW, page(seqs(1, 6)), 0, 8);
    const two = appendPage(one, page(seqs(7, 10)), 0, 8);
    expect(two.rows.map((r) => r.seq)).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
    expect(two.letGo).toBe(2);
    expect(one.rows.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("leaves out what a cleared view hid", () => {
    expect(appendPage(EMPTY_VIEW, page(seqs(1, 5)), 3).rows.map((r) => r.seq)).toEqual([4, 5]);
  });

  it("is the same view when the page brings nothing new", () => {
    const view = appendPage(EMPTY_VIEW, page(seqs(1, 2), { dropped: 4 }), 0);
    expect(appendPage(view, page([], { dropped: 4 }), 0)).toBe(view);
    expect(appendPage(view, page([], { dropped: 5 }), 0).dropped).toBe(5);
    expect(appendPage(view, page([], { dropped: 4, methods: ["m", "n"] }), 0).methods).toEqual(["m", "n"]);
  });

  it("tells a listed request of its answer, without touching the rows before", () => {
    const before = appendPage(EMPTY_VIEW, page([entry(1, { kind: "request", id: "1" })]), 0);
    const after = appendPage(before, page([entry(2, { kind: "response", id: "1", pairedSeq: 1, latencyMs: 30 })]), 0);
    expect(after.rows[0]).toMatchObject({ seq: 1, pairedSeq: 2, latencyMs: 30 });
    expect(before.rows[0]).toMatchObject({ seq: 1, pairedSeq: null, latencyMs: null });
  });

  it("gathers the servers seen", () => {
    const view = appendPage(EMPTY_VIEW, page([entry(1, { server: "b" }), entry(2, { server: "a" }), entry(3, { server: "b" })]), 0);
    expect(view.servers).toEqual(["a", "b"]);
  });
});

describe("the cells", () => {
  it("finds a row by its number", () => {
    const rows = [entry(2), entry(5), entry(9)];
    expect([2, 5, 9, 1, 6, 10].map((s) => indexOfSeq(rows, s))).toEqual([0, 1, 2, -1, -1, -1]);
  });

  it("writes sizes and times for people", () => {
    expect([0, 1023, 1024, 1536, 65536, 3 * 1024 * 1024, 1.25 * 1024 * 1024].map(humanSize)).toEqual([
      "0 B",
      "1023 B",
      "1 KB",
      "1.5 KB",
      "64 KB",
      "3 MB",
      "1.3 MB",
    ]);
    const at = new Date(2026, 0, 2, 3, 4, 5, 67).getTime();
    expect(clockTime(at)).toBe("03:04:05.067");
  });

  it("shows an HTTP exchange's verb and status where a method goes", () => {
    const http = { verb: "POST", status: 202, headers: [], error: null };
    expect(methodText(entry(1, { kind: "http", method: null, http }))).toBe("POST 202");
    expect(methodText(entry(1, { kind: "http", method: null, http: { ...http, status: null } }))).toBe("POST");
    expect(methodText(entry(1, { method: "tools/list" }))).toBe("tools/list");
  });

  it("asks the core for every message when nothing is filtered", () => {
    expect(queryOf(NO_FILTERS, 7)).toEqual({ servers: [], methods: [], direction: null, errorsOnly: false, text: "", after: 7, limit: 5000, session: null });
  });
});
