// The Traffic screen's rows and how a page of the core's answer joins them, with no React: rows
// stay in sequence order (oldest first), a page is appended once (one concat, one trim to the
// cap), a request already listed learns its answer when the answer arrives, and the formatting of
// one row's cells (done only for the rows on screen).
import type { Direction } from "../../bindings/Direction";
import type { TrafficEntry } from "../../bindings/TrafficEntry";
import type { TrafficPage } from "../../bindings/TrafficPage";
import type { TrafficQuery } from "../../bindings/TrafficQuery";

/** The most rows the screen holds; older ones are let go (the footer says how many). */
export const ROW_CAP = 20_000;
/** Messages asked for at a time (the core's largest page). */
export const PAGE_LIMIT = 5000;
/** How often the screen asks for what came since. */
export const POLL_MS = 500;

/** What the person filters on; the core does the filtering. */
export interface TrafficFilters {
  server: string;
  method: string;
  direction: Direction | "";
  errorsOnly: boolean;
  text: string;
}

export const NO_FILTERS: TrafficFilters = { server: "", method: "", direction: "", errorsOnly: false, text: "" };

export function isFiltered(f: TrafficFilters): boolean {
  return !!(f.server || f.method || f.direction || f.errorsOnly || f.text);
}

/** The core's query for `filters`, from `after`, in kept `session` (null: the live rings). */
export function queryOf(f: TrafficFilters, after: number, session: number | null = null): TrafficQuery {
  return {
    servers: f.server ? [f.server] : [],
    methods: f.method ? [f.method] : [],
    direction: f.direction || null,
    errorsOnly: f.errorsOnly,
    text: f.text,
    after,
    limit: PAGE_LIMIT,
    session,
  };
}

/** The rows held and what the footer and the filters need. */
export interface TrafficView {
  /** In sequence order, at most ROW_CAP. */
  rows: TrafficEntry[];
  /** Rows this screen let go to stay within ROW_CAP. */
  letGo: number;
  /** Messages the rings no longer hold (the core's count). */
  dropped: number;
  /** Every method seen, for the method filter. */
  methods: string[];
  /** Every server seen in a row, sorted. */
  servers: string[];
}

export const EMPTY_VIEW: TrafficView = { rows: [], letGo: 0, dropped: 0, methods: [], servers: [] };

/** The rows of a new query: none yet, with what stays true whatever the filters. */
export function restart(view: TrafficView): TrafficView {
  return { ...EMPTY_VIEW, dropped: view.dropped, methods: view.methods, servers: view.servers };
}

/** The index of the row numbered `seq` in rows in sequence order, or -1. */
export function indexOfSeq(rows: readonly TrafficEntry[], seq: number): number {
  let lo = 0;
  let hi = rows.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const at = rows[mid]!.seq;
    if (at === seq) return mid;
    if (at < seq) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** A request already in `rows` (from `from` on, the new rows) learns of the answer just listed. */
function pairAnswers(rows: TrafficEntry[], from: number) {
  for (let i = from; i < rows.length; i++) {
    const answer = rows[i]!;
    if (answer.pairedSeq === null || answer.pairedSeq > answer.seq) continue;
    const at = indexOfSeq(rows, answer.pairedSeq);
    const request = at >= 0 ? rows[at]! : null;
    if (request && request.pairedSeq === null) rows[at] = { ...request, pairedSeq: answer.seq, latencyMs: answer.latencyMs };
  }
}

function withServers(servers: string[], entries: readonly TrafficEntry[]): string[] {
  let added: Set<string> | null = null;
  for (const e of entries) {
    if (!servers.includes(e.server) && !added?.has(e.server)) (added ??= new Set()).add(e.server);
  }
  return added ? [...servers, ...added].sort() : servers;
}

/**
 * `view` with `page` appended: rows at or below `floor` (the view was cleared up to it) left out,
 * the oldest let go beyond `cap`. The same object when nothing changed, so nothing re-renders.
 */
export function appendPage(view: TrafficView, page: TrafficPage, floor: number, cap = ROW_CAP): TrafficView {
  const fresh = floor > 0 ? page.entries.filter((e) => e.seq > floor) : page.entries;
  const methods = sameList(view.methods, page.methods) ? view.methods : page.methods;
  if (!fresh.length && methods === view.methods && page.dropped === view.dropped) return view;
  let rows = view.rows;
  let letGo = view.letGo;
  if (fresh.length) {
    rows = rows.concat(fresh);
    pairAnswers(rows, view.rows.length);
    if (rows.length > cap) {
      letGo += rows.length - cap;
      rows = rows.slice(rows.length - cap);
    }
  }
  return { rows, letGo, dropped: page.dropped, methods, servers: withServers(view.servers, fresh) };
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** HH:MM:SS.mmm, local time. */
export function clockTime(atMs: number): string {
  const d = new Date(atMs);
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** A size for people: 512 B, 1.5 KB, 64 KB, 3.2 MB. */
export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const [value, unit] = bytes < 1024 * 1024 ? [bytes / 1024, "KB"] : [bytes / (1024 * 1024), "MB"];
  return `${value < 10 ? Number(value.toFixed(1)) : Math.round(value)} ${unit}`;
}

/** Which way a message went, as an arrow and in words. */
export function directionText(d: Direction): { arrow: string; words: string } {
  return d === "out" ? { arrow: "→", words: "sent to" } : { arrow: "←", words: "received from" };
}

/** What the method column shows: the method, or an HTTP exchange's verb and status. */
export function methodText(e: TrafficEntry): string {
  if (e.kind !== "http" || !e.http) return e.method ?? "";
  const status = e.http.status === null ? "" : ` ${e.http.status}`;
  return `${e.http.verb}${status}${e.method ? ` ${e.method}` : ""}`;
}

/** "1 message", "20,000 messages". */
export function count(n: number, what = "message"): string {
  return `${n.toLocaleString("en-US")} ${what}${n === 1 ? "" : "s"}`;
}
