// The Traffic screen as the app mounts it, on a fake backend, for its component tests.
import { act, screen } from "@testing-library/react";
import { vi } from "vitest";
import type { FakeBackend } from "../backend/fake";
import type { TrafficQuery } from "../bindings/TrafficQuery";
import { useHost } from "../host";
import { TrafficScreen } from "./traffic";

export function Traffic(props: { backend: FakeBackend }) {
  return <TrafficScreen backend={props.backend} host={useHost(props.backend)} />;
}

/** The queries the screen sent, in order. */
export function queries(b: FakeBackend): TrafficQuery[] {
  return b.calls.filter((c) => c.method === "traffic").map((c) => c.args[0] as TrafficQuery);
}

/** The sequence numbers of the rows drawn. */
export function shownSeqs(): number[] {
  return screen.queryAllByTestId("traffic-row").map((r) => Number(r.dataset.seq));
}

export function row(seq: number): HTMLElement {
  const found = screen.queryAllByTestId("traffic-row").find((r) => r.dataset.seq === String(seq));
  if (!found) throw new Error(`no row #${seq} drawn (rows: ${shownSeqs().join(", ")})`);
  return found;
}

/** With fake timers: lets `ms` pass, and what it set off settle. */
export async function pass(ms: number) {
  await act(async () => {
    await vi.advanceTimersByTimeAsync(ms);
  });
}

/** A JSON-RPC request's body. */
export function request(id: number, method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}
