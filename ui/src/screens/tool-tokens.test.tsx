// What the tool definitions cost the chat's model in tokens, as the Tools screen shows it beside each
// tool and for the server, and as a running server's card does; estimates are marked.
import { fireEvent, render, screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { FakeBackend } from "../backend/fake";
import { useHost } from "../host";
import { ServersScreen } from "./servers";
import { Tools } from "./tools-test-helpers";

function Servers(props: { backend: FakeBackend }) {
  const host = useHost(props.backend);
  return <ServersScreen backend={props.backend} host={host} />;
}

/** A fake whose first model is `model` (the meter's default). */
function withModel(model: string) {
  const b = new FakeBackend().addServer("everything").addServer("other");
  b.providers = [
    { id: "p", kind: "anthropic", baseUrl: null, models: [{ provider: "p", model, cost: 0.5, speed: 0.5, intelligence: 0.5 }], hasKey: true },
  ];
  return b;
}

/** A fake as `withModel("gpt-4o")` whose meter answers nothing until `answer` is called, and
 * then everything: what was asked before and what is asked after. A screen asks from an effect,
 * which may run after the test has seen the screen, and asks again when the running servers'
 * tools change; an answer kept for one call would be lost on either. */
function withMeterHeld() {
  const b = withModel("gpt-4o");
  const waiting: (() => void)[] = [];
  let answered = false;
  const read = b.toolTokens.bind(b);
  b.toolTokens = async (args) => {
    if (!answered) await new Promise<void>((go) => waiting.push(go));
    return read(args);
  };
  const answer = () => {
    answered = true;
    for (const go of waiting.splice(0)) go();
  };
  return { b, answer };
}

/** What the fake's meter says each tool of `everything` costs, and all of them. */
async function counts(b: FakeBackend) {
  const meter = await b.toolTokens({});
  const own = meter.tools.filter((t) => t.server === "everything");
  const of = (tool: string) => own.find((t) => t.tool === tool)!.tokens;
  return { echo: of("echo"), weather: of("weather"), total: own.reduce((n, t) => n + t.tokens, 0) };
}

async function tokensOf(name: string) {
  await screen.findByText("Echo");
  const row = screen.getAllByTestId("tool-item").find((t) => t.dataset["name"] === name)!;
  return within(row).findByTestId("tool-tokens");
}

describe("Tools screen: tool definitions in tokens", () => {
  it("shows each tool's tokens and the server's total, counted for the default model", async () => {
    const b = withModel("gpt-4o");
    const expected = await counts(b);
    expect(expected.echo).toBeGreaterThan(20);
    render(<Tools backend={b} />);
    expect((await tokensOf("echo")).textContent).toBe(`${expected.echo} tok`);
    expect((await tokensOf("weather")).textContent).toBe(`${expected.weather} tok`);
    const total = await screen.findByTestId("server-tokens");
    expect(total.textContent).toBe(`Tool definitions: ${expected.total} tok for gpt-4o`);
    expect(total.dataset["estimate"]).toBe("false");
    expect(b.calls.find((c) => c.method === "toolTokens")?.args).toEqual([{}]);
  });

  it("marks the counts as estimates for a model without a tokenizer of its own", async () => {
    const b = withModel("claude-sonnet-4-5");
    const expected = await counts(b);
    render(<Tools backend={b} />);
    const echo = await tokensOf("echo");
    expect(echo.textContent).toBe(`≈${expected.echo} tok`);
    expect(echo.dataset["estimate"]).toBe("true");
    expect(echo.title).toContain("Estimated");
    const total = await screen.findByTestId("server-tokens");
    expect(total.textContent).toBe(`Tool definitions: ≈${expected.total} tok (estimated) for claude-sonnet-4-5`);
  });

  it("keeps the meter's lines' room while it is read, so the list does not move under the pointer", async () => {
    const { b, answer } = withMeterHeld();
    render(<Tools backend={b} />);
    await screen.findByText("Echo");
    const room = screen.getByTestId("meter-pending");
    expect(room.querySelectorAll("p.hint")).toHaveLength(2);
    answer();
    await screen.findByTestId("server-tokens");
    expect(screen.getByTestId("context-search-state")).toBeTruthy();
    expect(screen.queryByTestId("meter-pending")).toBeNull();
  });

  it("shows no count while the meter cannot be read", async () => {
    const b = withModel("gpt-4o");
    b.toolTokens = async () => {
      throw { code: "internal", message: "no meter" };
    };
    render(<Tools backend={b} />);
    await screen.findByText("Echo");
    expect(screen.queryByTestId("tool-tokens")).toBeNull();
    expect(screen.queryByTestId("server-tokens")).toBeNull();
  });
});

describe("a server's card: its tool definitions in tokens", () => {
  it("shows the running server's total", async () => {
    const b = withModel("gpt-4o");
    const expected = await counts(b);
    render(<Servers backend={b} />);
    const line = await screen.findByTestId("server-tokens");
    expect(line.textContent).toBe(`Tool definitions: ${expected.total} tok for gpt-4o`);
  });

  it("keeps the line's room while the count is read, so the tabs below do not move under a click", async () => {
    const { b, answer } = withMeterHeld();
    render(<Servers backend={b} />);
    const room = await screen.findByTestId("server-tokens-pending");
    expect(room.className).toBe("hint muted tokens");
    expect(room.textContent).toBe("\u00a0");
    answer();
    expect((await screen.findByTestId("server-tokens")).className).toBe("hint muted tokens");
    expect(screen.queryByTestId("server-tokens-pending")).toBeNull();
  });

  it("keeps no room on the card of a server without tools", async () => {
    const b = withModel("gpt-4o");
    const first = b.servers[0]!;
    if (first.status.state !== "running") throw new Error("the fake's server runs");
    const { tools: _, ...others } = first.status.summary.capabilities;
    first.status = { ...first.status, summary: { ...first.status.summary, capabilities: others } };
    b.toolTokens = () => new Promise(() => undefined);
    render(<Servers backend={b} />);
    expect((await screen.findByTestId("server-status-text")).textContent).toMatch(/^Running/);
    expect(screen.queryByTestId("server-tokens-pending")).toBeNull();
    expect(screen.queryByTestId("server-tokens")).toBeNull();
  });

  it("shows nothing for a server that does not run, and marks an estimate on one that does", async () => {
    const b = withModel("gemini-2.5-pro");
    b.servers[0]!.status = { state: "stopped" };
    render(<Servers backend={b} />);
    expect((await screen.findByTestId("server-status-text")).textContent).toBe("Stopped");
    expect(screen.queryByTestId("server-tokens")).toBeNull();
    expect(b.calls.some((c) => c.method === "toolTokens")).toBe(false);
    fireEvent.click(screen.getAllByTestId("server-row").find((r) => r.dataset["name"] === "other")!);
    const line = await screen.findByTestId("server-tokens");
    expect(line.textContent).toMatch(/^Tool definitions: ≈\d+ tok \(estimated\) for gemini-2\.5-pro$/);
    expect(line.dataset["estimate"]).toBe("true");
  });
});
