// What the tool definitions offered to the conversation's model take of its context window, in
// tokens: a warning above the configured share, just the tokens when the window is not known, and
// read again when the model or the tool sets change.
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { FakeBackend } from "../backend/fake";
import type { TokensFor } from "../bindings/TokensFor";
import { useHost } from "../host";
import { ChatScreen } from "./chat";
import { percentOf } from "./chat/tokens";

function Screen(props: { backend: FakeBackend }) {
  const host = useHost(props.backend);
  return <ChatScreen backend={props.backend} host={host} />;
}

const rating = { cost: 0.5, speed: 0.5, intelligence: 0.5 };

function backend(...models: string[]) {
  const b = new FakeBackend({ resources: 5 }).addServer("everything");
  b.providers = [{ id: "p", kind: "openai", baseUrl: null, models: models.map((model) => ({ provider: "p", model, ...rating })), hasKey: true }];
  b.switches.sets = [{ name: "Research", members: [{ server: "everything", tool: "echo" }] }];
  return b;
}

async function meterLine(b: FakeBackend) {
  render(<Screen backend={b} />);
  fireEvent.click(await screen.findByTestId("new-chat"));
  return screen.findByTestId("chat-tokens");
}

function asked(b: FakeBackend): TokensFor[] {
  return b.calls.filter((c) => c.method === "toolTokens").map((c) => c.args[0] as TokensFor);
}

describe("Chat: the tool definitions in tokens", () => {
  it("shows the tokens offered against the model's context window, below the warning", async () => {
    const b = backend("gpt-4o-mini");
    const { offered } = await b.toolTokens({ model: "gpt-4o-mini" });
    expect(offered).toBeGreaterThan(0);
    const line = await meterLine(b);
    expect(line.textContent).toBe(`Tools: ${offered} tokens of 128,000 (${percentOf(offered, 128_000)})`);
    expect(line.dataset["over"]).toBe("false");
    expect(line.className).not.toContain("warn");
    expect(screen.queryByTestId("chat-tokens-warning")).toBeNull();
    expect(asked(b).at(-1)).toEqual({ model: "gpt-4o-mini" });
  });

  it("warns when the tools offered take more than the configured share of the window", async () => {
    const b = backend("gpt-4o-mini");
    b.tokens = { offered: 20_000 };
    const line = await meterLine(b);
    await waitFor(() => expect(line.dataset["over"]).toBe("true"));
    expect(line.className).toContain("banner warn");
    expect(line.textContent).toContain("Tools: 20,000 tokens of 128,000 (16%)");
    const warning = screen.getByTestId("chat-tokens-warning").textContent;
    expect(warning).toContain("more than 10% of gpt-4o-mini's context window");
    expect(warning).toContain("switch some off");
    expect(warning).toContain("tool sets");
  });

  it("does not warn just below the share, and follows the configured share", async () => {
    const b = backend("gpt-4o-mini");
    b.tokens = { offered: 12_000 };
    const line = await meterLine(b);
    await waitFor(() => expect(line.textContent).toContain("12,000 tokens of 128,000 (9.4%)"));
    expect(line.dataset["over"]).toBe("false");
    expect(screen.queryByTestId("chat-tokens-warning")).toBeNull();
  });

  it("warns at a lower configured share", async () => {
    const b = backend("gpt-4o-mini");
    b.tokens = { offered: 12_000 };
    b.toolTokensWarnPercent = 5;
    await meterLine(b);
    expect((await screen.findByTestId("chat-tokens-warning")).textContent).toContain("more than 5%");
  });

  it("shows just the tokens, estimated, when the model's window is not known", async () => {
    const b = backend("llama3.2");
    const { offered } = await b.toolTokens({ model: "llama3.2" });
    const line = await meterLine(b);
    expect(line.textContent).toBe(`Tools: ≈${offered} tokens (estimated)`);
    expect(line.dataset["estimate"]).toBe("true");
    expect(screen.queryByTestId("chat-tokens-warning")).toBeNull();
  });

  it("is read again for another model and for other tool sets", async () => {
    const b = backend("gpt-4o-mini", "claude-sonnet-4-5");
    const line = await meterLine(b);
    fireEvent.change(screen.getByTestId("chat-model"), { target: { value: "p/claude-sonnet-4-5" } });
    await waitFor(() => expect(asked(b).at(-1)).toEqual({ model: "claude-sonnet-4-5" }));
    await waitFor(() => expect(line.textContent).toMatch(/^Tools: ≈\d+ tokens \(estimated\) of 200,000 \(/));
    const before = asked(b).length;
    b.tokens = { offered: 30_000 };
    const research = (await screen.findAllByTestId("chat-tool-set")).find((o) => o.dataset["name"] === "Research")!;
    fireEvent.click(research);
    await waitFor(() => expect(asked(b).length).toBeGreaterThan(before));
    await waitFor(() => expect(line.dataset["over"]).toBe("true"));
  });
});

describe("percentOf", () => {
  it("gives one decimal below 10%, whole percents above, and never rounds a share down to nothing", () => {
    expect(percentOf(1_280, 128_000)).toBe("1.0%");
    expect(percentOf(20_000, 128_000)).toBe("16%");
    expect(percentOf(50, 1_000_000)).toBe("<0.1%");
    expect(percentOf(0, 128_000)).toBe("0.0%");
  });
});
