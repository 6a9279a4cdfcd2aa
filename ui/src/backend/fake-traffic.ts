// The fake's traffic ring: the messages tests add (`FakeBackend.addTraffic`), listed as the core's
// traffic.rs lists them — sequence numbers shared by every server, the filters, `after` and
// `limit` paging with `last` to pass next, every method seen, requests and responses paired by
// server and id with the latency on both — the limits checked with the core's sentences, and
// kept sessions (what was added while one was kept, read with `query.session`).
import type { Direction } from "../bindings/Direction";
import type { HttpExchange } from "../bindings/HttpExchange";
import type { KeptSession } from "../bindings/KeptSession";
import type { KeptSessions } from "../bindings/KeptSessions";
import type { MessageKind } from "../bindings/MessageKind";
import type { TrafficEntry } from "../bindings/TrafficEntry";
import type { TrafficLimits } from "../bindings/TrafficLimits";
import type { TrafficMessage } from "../bindings/TrafficMessage";
import type { TrafficPage } from "../bindings/TrafficPage";
import type { TrafficQuery } from "../bindings/TrafficQuery";

/** The largest page the core answers. */
export const MAX_TRAFFIC_PAGE = 5000;

/** A message as a test adds it: anything left out is made up (seq, time, size, preview, pairing). */
export interface FakeMessage {
  server?: string;
  direction?: Direction;
  kind?: MessageKind;
  method?: string | null;
  id?: string | null;
  /** The body as kept (the head only when `truncated`); by default a JSON-RPC message of `method`. */
  body?: string;
  /** The size on the wire; by default the body's. */
  size?: number;
  truncated?: boolean;
  failed?: boolean;
  atMs?: number;
  http?: HttpExchange | null;
}

interface Kept {
  entry: TrafficEntry;
  body: string;
}

const bytes = (s: string) => new TextEncoder().encode(s).length;

/** An id as written (`1`, `"a"`) as JSON; a bare word as a string. */
function idValue(id: string): unknown {
  try {
    return JSON.parse(id) as unknown;
  } catch {
    return id;
  }
}

function defaultBody(m: FakeMessage, kind: MessageKind): string {
  const id = m.id === null || m.id === undefined ? {} : { id: idValue(m.id) };
  if (kind === "response") return JSON.stringify({ jsonrpc: "2.0", ...id, result: {} });
  if (kind === "error") return JSON.stringify({ jsonrpc: "2.0", ...id, error: { code: -32603, message: "failed" } });
  return JSON.stringify({ jsonrpc: "2.0", ...id, method: m.method ?? "ping" });
}

/** The core's bounds (app/traffic.rs `checked`), with its sentences. */
function limitsProblem(l: TrafficLimits): string | null {
  const within = (n: number, lo: number, hi: number) => Number.isInteger(n) && n >= lo && n <= hi;
  if (!within(l.maxMessages, 100, 1_000_000)) return "Keep from 100 to 1,000,000 messages per server.";
  if (!within(l.maxBytes, 1 << 20, 1 << 30)) return "Keep from 1 MB to 1 GB per server.";
  if (!within(l.maxMessageBytes, 1 << 10, 16 << 20) || l.maxMessageBytes > l.maxBytes)
    return "Keep from 1 KB to 16 MB of each message, and no more than the server's whole share.";
  return null;
}

/** A kept session and its messages. */
interface FakeSession {
  session: KeptSession;
  messages: Kept[];
}

const refused = (message: string) => ({ code: "invalid_input", message });

export class FakeTraffic {
  /** Oldest first, as the rings keep them. */
  kept: Kept[] = [];
  /** Kept sessions, oldest first. */
  sessions: FakeSession[] = [];
  /** The session being kept. */
  keeping: number | null = null;
  /** What `dropped` says: messages the rings let go. */
  dropped = 0;
  limits: TrafficLimits = { maxMessages: 5000, maxBytes: 8 << 20, maxMessageBytes: 64 << 10 };
  /** Where the "native save dialog" writes an export (null: the person cancels). */
  exportPath: string | null = "/home/you/switchboard-traffic.jsonl";
  private seq = 0;

  add(m: FakeMessage): TrafficEntry {
    const kind = m.kind ?? (m.method === undefined && m.id ? "response" : "request");
    const body = m.body ?? defaultBody(m, kind);
    const entry: TrafficEntry = {
      seq: ++this.seq,
      server: m.server ?? "everything",
      atMs: m.atMs ?? Date.now(),
      direction: m.direction ?? (kind === "response" || kind === "error" ? "in" : "out"),
      kind,
      method: m.method ?? null,
      id: m.id ?? null,
      size: m.size ?? bytes(body),
      truncated: m.truncated ?? false,
      failed: m.failed ?? kind === "error",
      pairedSeq: null,
      latencyMs: null,
      http: m.http ?? null,
      preview: body.replace(/\s+/g, " ").slice(0, 200),
    };
    this.pair(entry);
    this.kept.push({ entry, body });
    const keeping = this.sessions.find((s) => s.session.id === this.keeping);
    if (keeping) {
      keeping.messages.push({ entry, body });
      keeping.session.messages += 1;
      keeping.session.bytes += bytes(body);
    }
    return structuredClone(entry);
  }

  keep(): KeptSession {
    if (this.keeping !== null) throw refused("A session is already being kept.");
    const id = (this.sessions.at(-1)?.session.id ?? 0) + 1;
    const session: KeptSession = { id, startedMs: Date.now(), endedMs: null, messages: 0, bytes: 0, dropped: 0, full: false };
    this.sessions.push({ session, messages: [] });
    this.keeping = id;
    return { ...session };
  }

  stop(): KeptSession | null {
    const kept = this.sessions.find((s) => s.session.id === this.keeping);
    this.keeping = null;
    if (!kept) return null;
    kept.session.endedMs = Date.now();
    return { ...kept.session };
  }

  listSessions(): KeptSessions {
    return { keeping: this.keeping, sessions: [...this.sessions].reverse().map((s) => ({ ...s.session })) };
  }

  deleteSession(id: number) {
    if (id === this.keeping) throw refused("Stop keeping this session before deleting it.");
    this.sessions = this.sessions.filter((s) => s.session.id !== id);
  }

  /** The messages of kept `session`, or the rings' (null). */
  private held(session: number | null | undefined): Kept[] {
    if (session === null || session === undefined) return this.kept;
    const found = this.sessions.find((s) => s.session.id === session);
    if (!found) throw refused("That kept session is gone.");
    return found.messages;
  }

  /** A response or error takes its request's method and is paired with it (by server and id). */
  private pair(entry: TrafficEntry) {
    if ((entry.kind !== "response" && entry.kind !== "error") || entry.id === null) return;
    for (let i = this.kept.length - 1; i >= 0; i--) {
      const request = this.kept[i]!.entry;
      if (request.kind !== "request" || request.server !== entry.server || request.id !== entry.id) continue;
      if (request.pairedSeq !== null) return;
      const latency = Math.max(0, entry.atMs - request.atMs);
      request.pairedSeq = entry.seq;
      request.latencyMs = latency;
      entry.pairedSeq = request.seq;
      entry.latencyMs = latency;
      entry.method ??= request.method;
      return;
    }
  }

  query(q: TrafficQuery): TrafficPage {
    const limit = Math.min(Math.max(q.limit, 1), MAX_TRAFFIC_PAGE);
    const text = q.text.toLowerCase();
    const held = this.held(q.session);
    const ofServers = held.filter((k) => !q.servers.length || q.servers.includes(k.entry.server));
    const methods = [...new Set(ofServers.flatMap((k) => (k.entry.method ? [k.entry.method] : [])))].sort();
    const entries: TrafficEntry[] = [];
    for (const k of ofServers) {
      const e = k.entry;
      if (e.seq <= q.after) continue;
      if (q.methods.length && !q.methods.includes(e.method ?? "")) continue;
      if (q.direction !== null && e.direction !== q.direction) continue;
      if (q.errorsOnly && !e.failed) continue;
      if (text && !k.body.toLowerCase().includes(text)) continue;
      entries.push(structuredClone(e));
      if (entries.length === limit) break;
    }
    const full = entries.length === limit;
    const newest = q.session === null ? this.seq : (held.at(-1)?.entry.seq ?? 0);
    const last = full ? entries[entries.length - 1]!.seq : Math.max(newest, q.after);
    const dropped = q.session === null ? this.dropped : 0;
    return { entries, last, dropped, methods };
  }

  messages(seqs: number[], session: number | null = null): TrafficMessage[] {
    const held = this.held(session);
    return seqs.flatMap((seq) => {
      const k = held.find((x) => x.entry.seq === seq);
      if (!k) return [];
      const { server, truncated, size } = k.entry;
      return [{ seq, server, body: k.body, truncated, size }];
    });
  }

  setLimits(limits: TrafficLimits) {
    const problem = limitsProblem(limits);
    if (problem) throw { code: "invalid_input", message: problem };
    this.limits = { ...limits };
  }

  /** How many of `seqs` an export would write (those still kept). */
  exported(seqs: number[], session: number | null = null): number {
    const wanted = new Set(seqs);
    return this.held(session).filter((k) => wanted.has(k.entry.seq)).length;
  }
}

/** A little traffic for the browser preview: a tool call and its answer, a notification, a
 *  failed call, a message cut short and an HTTP exchange. */
export function demoTraffic(t: FakeTraffic) {
  const at = Date.now() - 60_000;
  t.add({ server: "everything", method: "tools/list", id: "1", atMs: at });
  t.add({ server: "everything", kind: "response", id: "1", atMs: at + 12, body: '{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo"}]}}' });
  t.add({
    server: "everything",
    method: "tools/call",
    id: "2",
    atMs: at + 500,
    body: '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}',
  });
  t.add({ server: "everything", kind: "notification", method: "notifications/progress", direction: "in", atMs: at + 510 });
  t.add({ server: "everything", kind: "response", id: "2", atMs: at + 540, body: '{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Echo: hello"}]}}' });
  t.add({ server: "docs", method: "resources/read", id: "7", atMs: at + 900 });
  t.add({ server: "docs", kind: "error", id: "7", atMs: at + 950 });
  t.add({ server: "docs", kind: "response", id: "8", atMs: at + 990, size: 3 << 20, truncated: true, body: '{"jsonrpc":"2.0","id":8,"result":{"contents":[{"text":"aaaa' });
  t.add({
    server: "docs",
    kind: "http",
    direction: "in",
    atMs: at + 1000,
    body: "",
    failed: true,
    http: { verb: "POST", status: 401, headers: [{ name: "www-authenticate", value: 'Bearer realm="docs"' }], error: "401 Unauthorized" },
  });
}
