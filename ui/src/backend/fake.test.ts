// The fake's MCP Apps commands behave as the contract says, so component tests can lean on them.
import { describe, expect, it } from "vitest";
import { isBackendError } from "../backend";
import { APP_TOOLS, DASHBOARD_URI, FakeBackend } from "./fake";
import { SEARCH_TOOL_TOKENS } from "./fake-tokens";

function withApps() {
  const b = new FakeBackend().addServer("demo");
  b.extraTools = APP_TOOLS;
  return b;
}

async function rejection(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    return isBackendError(e) ? e.code : "not a backend error";
  }
  return "resolved";
}

describe("FakeBackend: MCP Apps views", () => {
  it("opens a view only for a tool's own ui:// resource, with the declared permissions", async () => {
    const b = withApps();
    b.viewPermissions = { camera: true, microphone: false, geolocation: false, clipboardWrite: false };
    const v = await b.openAppView("demo", "dashboard", DASHBOARD_URI);
    expect(v).toMatchObject({ server: "demo", tool: "dashboard", resourceUri: DASHBOARD_URI, prefersBorder: null });
    expect(v.permissions.camera).toBe(true);
    expect(await rejection(b.openAppView("demo", "echo", DASHBOARD_URI))).toBe("invalid_input");
    expect(await rejection(b.openAppView("demo", "dashboard", "ui://other"))).toBe("invalid_input");
  });

  it("lets a view call only tools visible to apps, and honours a refusal", async () => {
    const b = withApps();
    const { viewId } = await b.openAppView("demo", "dashboard", DASHBOARD_URI);
    expect((await b.appCallTool(viewId, "refresh", {})).content?.[0]).toEqual({ type: "text", text: "refresh done" });
    b.appToolResults["dashboard"] = { content: [], structuredContent: { n: 1 } };
    expect((await b.appCallTool(viewId, "dashboard", {})).structuredContent).toEqual({ n: 1 });
    // echo has no visibility: model and app by default.
    expect(await rejection(b.appCallTool(viewId, "echo", {}))).toBe("resolved");
    expect(await rejection(b.appCallTool(viewId, "missing", {}))).toBe("tool_not_found");
    b.appConsent = false;
    expect(await rejection(b.appCallTool(viewId, "refresh", {}))).toBe("denied");
  });

  it("reads resources of the view's server and opens only https links", async () => {
    const b = withApps();
    const { viewId } = await b.openAppView("demo", "dashboard", DASHBOARD_URI);
    expect((await b.appReadResource(viewId, "demo://r/1")).contents[0]?.uri).toBe("demo://r/1");
    expect(b.calls.some((c) => c.method === "readResource" && c.args[0] === "demo")).toBe(true);
    expect(await rejection(b.appOpenLink(viewId, "https://example.com/"))).toBe("resolved");
    expect(await rejection(b.appOpenLink(viewId, "http://example.com/"))).toBe("denied");
    expect(await rejection(b.appOpenLink(viewId, "javascript:alert(1)"))).toBe("denied");
  });

  it("forgets a closed view", async () => {
    const b = withApps();
    const { viewId } = await b.openAppView("demo", "dashboard", DASHBOARD_URI);
    await b.appMessage(viewId, { role: "user", content: [{ type: "text", text: "hi" }] });
    await b.appUpdateContext(viewId, { structuredContent: { a: 1 } });
    await b.closeAppView(viewId);
    expect(await rejection(b.appReadResource(viewId, "demo://r/1"))).toBe("invalid_input");
    expect(b.calls.map((c) => c.method)).toEqual(["openAppView", "appMessage", "appUpdateContext", "closeAppView", "appReadResource"]);
  });
});

describe("FakeBackend: skills", () => {
  const notes = "skill://release-notes/SKILL.md";

  it("offers skills only on a server that says so in its capabilities", async () => {
    const b = new FakeBackend().addServer("plain").addSkillServer("docs");
    const [plain, docs] = await b.listServers();
    expect(plain!.status.state === "running" && "extensions" in plain!.status.summary.capabilities).toBe(false);
    expect(docs!.status.state === "running" && docs!.status.summary.capabilities["extensions"]).toEqual({
      "io.modelcontextprotocol/skills": {},
    });
    expect(await rejection(b.listSkills("plain"))).toBe("not_supported");
    expect((await b.listSkills("docs")).map((s) => s.name)).toEqual(["release-notes", "changelog"]);
  });

  it("reads only the files a skill lists, and refuses one that no longer matches", async () => {
    const b = new FakeBackend().addSkillServer("docs");
    const loaded = await b.loadSkill("docs", notes);
    expect(loaded.content[1]).toEqual({ type: "resource", resource: { uri: notes, mimeType: "text/markdown", text: loaded.loaded.text } });
    expect(await rejection(b.readSkillFile("docs", notes, "skill://release-notes/../../secrets"))).toBe("server_error");
    b.skills["docs"]![0]!.tampered = [notes];
    expect(await rejection(b.loadSkill("docs", notes))).toBe("server_error");
  });
});

describe("FakeBackend: tool switches and sets", () => {
  it("keeps the switches and sets as the core does: names trimmed and checked, members once each", async () => {
    const b = new FakeBackend();
    await b.setToolEnabled("s", "b", false);
    await b.setToolEnabled("s", "a", false);
    await b.setToolEnabled("s", "b", true);
    await b.setNewToolsEnabled("s", false);
    const echo = { server: "s", tool: "echo" };
    await b.saveToolSet({ name: "  Zed ", members: [echo, { server: "r", tool: "x" }, echo] });
    await b.saveToolSet({ name: "Alpha", members: [] });
    expect(await b.toolSwitches()).toEqual({
      off: [{ server: "s", tool: "a" }],
      newToolsOff: ["s"],
      sets: [
        { name: "Alpha", members: [] },
        { name: "Zed", members: [{ server: "r", tool: "x" }, echo] },
      ],
    });
    expect(await rejection(b.saveToolSet({ name: "tab\there", members: [] }))).toBe("invalid_input");
    expect(await rejection(b.saveToolSet({ name: "   ", members: [] }))).toBe("invalid_input");
    await b.deleteToolSet("Zed");
    expect((await b.toolSwitches()).sets.map((s) => s.name)).toEqual(["Alpha"]);
  });
});

describe("FakeBackend: the token meter", () => {
  it("counts every running server's tools with the tokenizer of the model's family", async () => {
    const b = new FakeBackend().addServer("a").addServer("b");
    const meter = await b.toolTokens({});
    expect(meter).toMatchObject({ model: "gpt-4o", tokenizer: "o200kBase", contextWindow: 128_000, warnPercent: 10 });
    expect(meter.tools.map((t) => `${t.server}/${t.tool}`)).toEqual(["a/echo", "a/weather", "b/echo", "b/weather"]);
    for (const t of meter.tools) expect(t.tokens).toBeGreaterThanOrEqual(30);
    expect(meter.offered).toBe(meter.tools.reduce((n, t) => n + t.tokens, 0));
    expect((await b.toolTokens({ model: "gpt-4-turbo" })).tokenizer).toBe("cl100kBase");
    expect((await b.toolTokens({ model: "o3-mini" })).tokenizer).toBe("o200kBase");
    expect(await b.toolTokens({ model: "claude-opus-4-1" })).toMatchObject({ tokenizer: "estimate", contextWindow: 200_000 });
    expect(await b.toolTokens({ model: "models/gemini-2.5-flash" })).toMatchObject({ tokenizer: "estimate", contextWindow: 1_048_576 });
    expect(await b.toolTokens({ model: "llama3.2" })).toMatchObject({ tokenizer: "estimate", contextWindow: null });
  });

  it("offers only the tools switched on and not held back, and the search tool alone above the threshold", async () => {
    const b = new FakeBackend().addServer("a");
    const all = await b.toolTokens({});
    const echo = all.tools.find((t) => t.tool === "echo")!.tokens;
    b.switches.off = [{ server: "a", tool: "weather" }];
    expect((await b.toolTokens({})).offered).toBe(echo);
    b.policies = [{ server: "a", kind: "tool_call", tool: "echo", rule: "deny" }];
    expect((await b.toolTokens({})).offered).toBe(0);
    b.switches.off = [];
    b.policies = [];
    b.toolSearchAbove = 1;
    const searching = await b.toolTokens({});
    expect(searching.offered).toBe(SEARCH_TOOL_TOKENS);
    expect(searching.tools).toEqual(all.tools);
  });

  it("keeps the context limits, back to the defaults when null, and refuses a percent outside 1 to 100", async () => {
    const b = new FakeBackend().addServer("a");
    expect(await b.toolTokens({})).toMatchObject({ searchAbove: 40, warnPercent: 10 });
    await b.setContextLimits({ toolSearchAbove: 1, toolTokensWarnPercent: 25 });
    const meter = await b.toolTokens({});
    expect(meter).toMatchObject({ searchAbove: 1, warnPercent: 25, offered: SEARCH_TOOL_TOKENS });
    for (const bad of [0, 101, 2.5])
      await expect(b.setContextLimits({ toolSearchAbove: null, toolTokensWarnPercent: bad })).rejects.toEqual({
        code: "invalid_input",
        message: "The warning share must be a percentage from 1 to 100.",
      });
    expect(await b.toolTokens({})).toMatchObject({ searchAbove: 1, warnPercent: 25 });
    await b.setContextLimits({ toolSearchAbove: null, toolTokensWarnPercent: null });
    expect(await b.toolTokens({})).toMatchObject({ searchAbove: 40, warnPercent: 10 });
    expect(b.calls.filter((c) => c.method === "setContextLimits")).toHaveLength(5);
  });
});

describe("FakeBackend: comparisons", () => {
  it("compares only an open sampling request, streams each column on its flow, and replays a server's request", async () => {
    const b = new FakeBackend();
    b.addReview({ id: "r", flow: "f", server: "s", kind: "sampling_request", content: {}, context: null, hiddenCharacters: false, digest: "d" });
    const events: unknown[] = [];
    await b.onCoreEvent((e) => events.push(e));
    const models = [
      { provider: "p", model: "a" },
      { provider: "p", model: "b" },
    ];
    b.compareScript["p/b"] = { error: "no" };
    const answers = await b.compareSampling({ id: "r", digest: "d", content: {}, models });
    expect(answers.map((a) => [a.model, a.error])).toEqual([
      ["a", null],
      ["b", "no"],
    ]);
    expect(events).toEqual([
      { type: "comparedText", flow: "f", column: 0, text: "a says " },
      { type: "comparedText", flow: "f", column: 0, text: "hello." },
    ]);
    expect(await rejection(b.compareSampling({ id: "r", digest: "other", content: {}, models }))).toBe("approval_mismatch");
    expect(await rejection(b.compareSampling({ id: "r", digest: "d", content: {}, models: [] }))).toBe("invalid_input");
    expect(await rejection(b.replaySampling({ flow: "nowhere", models }))).toBe("invalid_input");
    b.audit = [
      { id: 1, flow: "past", atMs: 0, kind: "sampling", step: "requested", server: "s", subject: null, actor: "server", decision: null, detail: {}, durationMs: null },
    ];
    expect(await b.replaySampling({ flow: "past", models })).toHaveLength(2);
    expect(b.calls.filter((c) => c.method === "compareSampling" || c.method === "replaySampling")).toHaveLength(5);
  });
});
