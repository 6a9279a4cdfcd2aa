// What the running servers' tool definitions cost a model in tokens (the core's meter), as the
// Tools and Servers screens show it per tool and per server. Counts for a model without a tokenizer
// of its own are estimates, and said so ("≈").
import { useEffect, useState } from "react";
import type { Backend } from "../backend";
import type { TokenMeter } from "../bindings/TokenMeter";
import type { TokensFor } from "../bindings/TokensFor";
import type { HostState } from "../host";
import { running } from "../host";

/** The meter for `model` (null: the meter's default model), read again when `key` changes; null
 * until read, or when it cannot be. */
export function useTokenMeter(
  backend: Backend,
  model: string | null,
  key: string,
  toolSets?: string[],
): TokenMeter | null {
  const [meter, setMeter] = useState<TokenMeter | null>(null);
  const sets = toolSets === undefined ? undefined : JSON.stringify(toolSets);
  useEffect(() => {
    let live = true;
    const args: TokensFor = model === null ? {} : { model };
    if (sets !== undefined) args.toolSets = JSON.parse(sets) as string[];
    backend.toolTokens(args).then(
      (m) => live && setMeter(m),
      () => live && setMeter(null),
    );
    return () => {
      live = false;
    };
  }, [backend, model, key, sets]);
  return meter;
}

/** What changes the running servers' tools: which servers run, and their catalogs' revisions. */
export function toolsKey(host: HostState): string {
  return JSON.stringify(running(host.servers).map((s) => [s.name, host.catalog[s.name] ?? 0]));
}

export function isEstimate(meter: TokenMeter): boolean {
  return meter.tokenizer === "estimate";
}

/** `n` with thousands separated. */
export function count(n: number): string {
  return n.toLocaleString("en-US");
}

/** How the meter counted, for a title. */
export function countedHow(meter: TokenMeter): string {
  return isEstimate(meter)
    ? `Estimated for ${meter.model}: no tokenizer of its own is known`
    : `Counted for ${meter.model} with its tokenizer (${meter.tokenizer})`;
}

/** One tool's definition in tokens; null when the meter does not have it. */
export function toolTokens(meter: TokenMeter | null, server: string, tool: string): number | null {
  return meter?.tools.find((t) => t.server === server && t.tool === tool)?.tokens ?? null;
}

/** A server's tool definitions together; null when the meter has none of its tools. */
export function serverTokens(meter: TokenMeter | null, server: string): number | null {
  const own = meter?.tools.filter((t) => t.server === server) ?? [];
  return own.length ? own.reduce((n, t) => n + t.tokens, 0) : null;
}

/** "84 tok", "≈84 tok" when estimated; `lead` before it ("tools: "); nothing without a count. */
export function TokenCount(props: { meter: TokenMeter | null; tokens: number | null; testId: string; lead?: string }) {
  const { meter, tokens } = props;
  if (!meter || tokens === null) return null;
  return (
    <span className="muted tokens" data-testid={props.testId} data-estimate={isEstimate(meter)} title={countedHow(meter)}>
      {props.lead}
      {isEstimate(meter) ? "≈" : ""}
      {count(tokens)} tok
    </span>
  );
}

/** "Its tools: 420 tok" of a running server (estimate-marked); nothing while it has no count. */
export function ServerTokens(props: { meter: TokenMeter | null; server: string }) {
  const { meter } = props;
  const tokens = serverTokens(meter, props.server);
  if (!meter || tokens === null) return null;
  return (
    <p className="hint muted tokens" data-testid="server-tokens" data-estimate={isEstimate(meter)} title={countedHow(meter)}>
      Tool definitions: {isEstimate(meter) ? "≈" : ""}
      {count(tokens)} tok{isEstimate(meter) ? " (estimated)" : ""} for {meter.model}
    </p>
  );
}

/** `ServerTokens` for the meter's default model, read on its own (a server's card). For a server
 * with tools, the line's room is kept, blank, until its count is read (the meter comes after the
 * card, and again after a restart): the tabs below it must not move under a click. */
export function MeteredServer(props: { backend: Backend; host: HostState; server: string; hasTools: boolean }) {
  const meter = useTokenMeter(props.backend, null, toolsKey(props.host));
  if (props.hasTools && serverTokens(meter, props.server) === null) {
    return (
      <p className="hint muted tokens" data-testid="server-tokens-pending" aria-hidden="true">
        &nbsp;
      </p>
    );
  }
  return <ServerTokens meter={meter} server={props.server} />;
}
