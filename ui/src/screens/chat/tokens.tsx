// What the open conversation's model is offered of the tool definitions, in tokens, against its
// context window: "Tools: 1,234 tokens of 128,000 (1.0%)" (just the tokens when the window is not
// known; "≈… (estimated)" when the model has no tokenizer of its own). Above the configured share of
// the window (`toolTokensWarnPercent`) it is a warning that suggests offering fewer tools. Read
// again when the model, the conversation's tool sets, the running servers' tools or the tools held
// back change.
import type { Backend } from "../../backend";
import type { Conversation } from "../../bindings/Conversation";
import type { TokenMeter } from "../../bindings/TokenMeter";
import { count, countedHow, isEstimate, toolsKey, useTokenMeter } from "../../components/tool-tokens";
import type { HostState } from "../../host";

/** Whether the tools offered take more than the meter's share of the context window. */
export function overBudget(meter: TokenMeter): boolean {
  return meter.contextWindow !== null && meter.offered * 100 > meter.warnPercent * meter.contextWindow;
}

/** `part` of `whole` in percent, to one decimal below 10%. */
export function percentOf(part: number, whole: number): string {
  const p = (part * 100) / whole;
  if (p > 0 && p < 0.1) return "<0.1%";
  return p < 10 ? `${p.toFixed(1)}%` : `${Math.round(p)}%`;
}

/** "Tools: 1,234 tokens of 128,000 (1.0%)". */
export function meterText(meter: TokenMeter): string {
  const tokens = `${isEstimate(meter) ? "≈" : ""}${count(meter.offered)} tokens${isEstimate(meter) ? " (estimated)" : ""}`;
  const window = meter.contextWindow;
  return window === null ? `Tools: ${tokens}` : `Tools: ${tokens} of ${count(window)} (${percentOf(meter.offered, window)})`;
}

export function ChatTokens(props: { backend: Backend; host: HostState; conversation: Conversation; withheld: number }) {
  const { conversation } = props;
  const key = JSON.stringify([conversation.toolSets ?? null, toolsKey(props.host), props.withheld]);
  const meter = useTokenMeter(props.backend, conversation.model, key, conversation.toolSets);
  if (!meter) return null;
  const over = overBudget(meter);
  return (
    <div
      className={over ? "banner warn chat-tokens" : "muted chat-tokens"}
      data-testid="chat-tokens"
      data-over={over}
      data-estimate={isEstimate(meter)}
      title={`What the tool definitions offered to the model take of its context window. ${countedHow(meter)}.`}
    >
      {meterText(meter)}
      {over ? (
        <span data-testid="chat-tokens-warning">
          {" "}
          — more than {meter.warnPercent}% of {meter.model}'s context window. Offer fewer tools: switch some off for the
          model on the Tools screen, or limit this chat to tool sets (the Tools menu above).
        </span>
      ) : null}
    </div>
  );
}
