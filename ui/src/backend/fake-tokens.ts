// What the fake backend answers `toolTokens`, roughly as the core's meter (chat/tokens.rs) does: a
// tool's definition as the model is offered it (name, description, input schema) at about four
// characters a token, the tokenizer and the context window by the model's family, and what a turn
// would offer (the tools on and not held back; above `searchAbove` of them, the search tool's alone).
import type { TokenMeter } from "../bindings/TokenMeter";
import type { Tokenizer } from "../bindings/Tokenizer";
import type { WithheldReason } from "../bindings/WithheldReason";
import type { Tool } from "../mcp";

/** The core's defaults: above how many tools the model searches, and the share (percent) of its
 *  context window above which the meter warns. */
export const DEFAULT_SEARCH_ABOVE = 40;
export const DEFAULT_WARN_PERCENT = 10;

/** What the search tool's definition costs, offered in place of the tools. */
export const SEARCH_TOOL_TOKENS = 96;

/** Context windows by the model's family, the first match counting. */
const WINDOWS: [RegExp, number][] = [
  [/^gpt-4\.1/, 1_047_576],
  [/^gpt-5/, 400_000],
  [/^(gpt-4o|chatgpt-4o|gpt-4-turbo)/, 128_000],
  [/^o\d/, 200_000],
  [/^gpt-4/, 8_192],
  [/^gpt-3\.5/, 16_385],
  [/^claude/, 200_000],
  [/^gemini/, 1_048_576],
];

/** The model's own name, lower case (a provider may prefix it: `models/gemini-2.5-flash`). */
function bare(model: string): string {
  return (model.split("/").pop() ?? model).toLowerCase();
}

/** OpenAI's tokenizers for OpenAI's models; an estimate for the rest. */
export function fakeTokenizer(model: string): Tokenizer {
  const name = bare(model);
  if (/^gpt-(3\.5|4(?![o.]))/.test(name)) return "cl100kBase";
  if (/^(gpt-|chatgpt-|o\d)/.test(name)) return "o200kBase";
  return "estimate";
}

function contextWindow(model: string): number | null {
  const name = bare(model);
  return WINDOWS.find(([family]) => family.test(name))?.[1] ?? null;
}

function definitionTokens(tool: Tool): number {
  const offered = { name: tool.name, description: tool.description ?? null, inputSchema: tool.inputSchema };
  return Math.ceil(JSON.stringify(offered).length / 4);
}

/** A running server's tool; whether it is switched on for the model (and not only its views'),
 *  and why a chat turn would hold it back if it would. */
export interface MeteredTool {
  server: string;
  tool: Tool;
  on: boolean;
  held: WithheldReason | null;
}

const REFUSED: readonly WithheldReason[] = ["denied", "hidden_characters"];

export function fakeMeter(model: string, tools: MeteredTool[], searchAbove: number, warnPercent: number): TokenMeter {
  const counted = tools.map((t) => ({ server: t.server, tool: t.tool.name, tokens: definitionTokens(t.tool) }));
  const on = tools.filter((t) => t.on);
  const offered = counted.filter((_, i) => tools[i]?.on && !tools[i].held);
  const refused = on.filter((t) => t.held && REFUSED.includes(t.held)).length;
  const offeredTokens = offered.length > searchAbove ? SEARCH_TOOL_TOKENS : offered.reduce((n, t) => n + t.tokens, 0);
  return {
    model,
    tokenizer: fakeTokenizer(model),
    tools: counted,
    offered: offeredTokens,
    contextWindow: contextWindow(model),
    warnPercent,
    searchAbove,
    offeredTools: offered.length,
    toReview: on.filter((t) => t.held).length - refused,
    refusedTools: refused,
  };
}
