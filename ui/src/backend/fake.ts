// An in-memory Backend for component tests and for working on the UI in a browser
// (`?backend=fake`). It behaves like the real one where the UI can tell: pages with cursors,
// `{code, message}` errors, events.
import type { Backend } from "../backend";
import type { Error as BackendError } from "../bindings/Error";
import type { AppPermissions } from "../bindings/AppPermissions";
import type { AppView } from "../bindings/AppView";
import type { AuditEntry } from "../bindings/AuditEntry";
import type { ChatMessage } from "../bindings/ChatMessage";
import type { Conversation } from "../bindings/Conversation";
import type { NewMessage } from "../bindings/NewMessage";
import type { Opened } from "../bindings/Opened";
import type { RegistryList } from "../bindings/RegistryList";
import type { RegistrySettings } from "../bindings/RegistrySettings";
import type { AuditQuery } from "../bindings/AuditQuery";
import type { CompareSampling } from "../bindings/CompareSampling";
import type { ComparedAnswer } from "../bindings/ComparedAnswer";
import type { ModelChoice } from "../bindings/ModelChoice";
import type { ReplaySampling } from "../bindings/ReplaySampling";
import type { PinChoice } from "../bindings/PinChoice";
import type { PinItem } from "../bindings/PinItem";
import type { PolicyEntry } from "../bindings/PolicyEntry";
import type { ProviderSettings } from "../bindings/ProviderSettings";
import type { Review } from "../bindings/Review";
import type { Verdict } from "../bindings/Verdict";
import type { CallProgress } from "../bindings/CallProgress";
import type { CoreEvent } from "../bindings/CoreEvent";
import type { ImportCandidate } from "../bindings/ImportCandidate";
import { FakeSwitches } from "./fake-switches";
import { withheldOf } from "./fake-withheld";
import type { MeteredTool } from "./fake-tokens";
import { DEFAULT_SEARCH_ABOVE, DEFAULT_WARN_PERCENT, fakeMeter } from "./fake-tokens";
import type { ContextLimits } from "../bindings/ContextLimits";
import type { FakeSkill } from "./fake-skills";
import { fakeSkillFolder, fakeSkills, loadFakeSkill, readFakeSkillFile } from "./fake-skills";
import type { FakeEntry } from "./fake-gallery";
import { FAKE_BUNDLE, FAKE_OTHER_REGISTRY, FAKE_REGISTRY, fakeRegistry, fakeUpdates, formOf, searchPage, versionsOf } from "./fake-gallery";
import type { BundleForm } from "../bindings/BundleForm";
import type { InstallRequest } from "../bindings/InstallRequest";
import type { RegistryRef } from "../bindings/RegistryRef";
import type { RegistrySearch } from "../bindings/RegistrySearch";
import type { UpdateView } from "../bindings/UpdateView";
import type { ImportPlan } from "../bindings/ImportPlan";
import type { TrafficEntry } from "../bindings/TrafficEntry";
import type { TrafficLimits } from "../bindings/TrafficLimits";
import type { TrafficQuery } from "../bindings/TrafficQuery";
import type { FakeMessage } from "./fake-traffic";
import { demoTraffic, FakeTraffic } from "./fake-traffic";
import type { RootsView } from "../bindings/RootsView";
import type { ServerConfig } from "../bindings/ServerConfig";
import type { ServerStatus } from "../bindings/ServerStatus";
import type { ServerView } from "../bindings/ServerView";
import type { SignInInfo } from "../bindings/SignInInfo";
import type { DirectoryEntry } from "../bindings/DirectoryEntry";
import type { Skill } from "../bindings/Skill";
import type { SkillForChat } from "../bindings/SkillForChat";
import type { TaskView } from "../bindings/TaskView";
import type { TokenMeter } from "../bindings/TokenMeter";
import type { TokensFor } from "../bindings/TokensFor";
import type { ToolSet } from "../bindings/ToolSet";
import type { Commands } from "../bindings/Commands";
import { SKILLS_EXTENSION } from "../host";
import { isAppOnly } from "../components/app-frame/tool-ui";
import type {
  AppContextParams,
  AppMessageParams,
  CallToolResult,
  Completion,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  Tool,
} from "../mcp";

export const PAGE = 100;

/** The UI resource of the fake's app tools. */
export const DASHBOARD_URI = "ui://demo/dashboard.html";

/** Tools with an MCP Apps view: one the model and the person call, one only its view may call. */
export const APP_TOOLS: Tool[] = [
  {
    name: "dashboard",
    title: "Dashboard",
    description: "Shows a dashboard view",
    inputSchema: { type: "object", properties: { city: { type: "string" } } },
    _meta: { ui: { resourceUri: DASHBOARD_URI } },
  },
  {
    name: "refresh",
    description: "Refreshes the dashboard (for its view)",
    inputSchema: { type: "object" },
    _meta: { ui: { resourceUri: DASHBOARD_URI, visibility: ["app"] } },
  },
];

const NO_PERMISSIONS: AppPermissions = { camera: false, microphone: false, geolocation: false, clipboardWrite: false };

/** A running server's status; `skills`: it offers skills too. */
function running(name: string, skills = false): ServerStatus {
  const extensions = skills ? { extensions: { [SKILLS_EXTENSION]: {} } } : {};
  return {
    state: "running",
    summary: {
      protocolVersion: "2025-11-25",
      transport: "stdio",
      serverInfo: { name, version: "1.0.0" },
      capabilities: { tools: {}, resources: { subscribe: true }, prompts: {}, completions: {}, logging: {}, ...extensions },
      instructions: `Use ${name} for testing.`,
    },
  };
}

/**
 * How the fake answers one model in a comparison: `text` (else a sentence naming the model) as a
 * text answer, or `result` as it is, or `error`; `stream` the pieces streamed before (else the
 * answer's text in two halves); the other fields as in `ComparedAnswer`.
 */
export interface ScriptedAnswer {
  text?: string;
  result?: unknown;
  error?: string;
  cut?: string;
  stream?: string[];
  latencyMs?: number;
  inputTokens?: number | null;
  outputTokens?: number | null;
  /** In US dollars (the core works it out from the model's prices); unknown by default. */
  costUsd?: number | null;
}

/** The text of an answer's text blocks, joined. */
function answerText(result: unknown): string {
  const content = (result as { content?: unknown } | null)?.content;
  const blocks = Array.isArray(content) ? content : [content];
  return blocks.map((b) => ((b as { type?: unknown } | null)?.type === "text" ? String((b as { text?: unknown }).text ?? "") : "")).join("");
}

export interface FakeOptions {
  resources?: number;
}

export class FakeBackend implements Backend {
  servers: ServerView[] = [];
  roots: RootsView = { global: [], servers: {} };
  listeners = new Set<(e: CoreEvent) => void>();
  calls: { method: string; args: unknown[] }[] = [];
  resourceCount: number;
  /** Pending tool calls by id, so tests can finish or cancel them. */
  pending = new Map<string, { resolve: (r: CallToolResult) => void; reject: (e: unknown) => void }>();
  holdCalls = false;
  /** The tasks `listTasks` returns; `task` events update them. */
  tasks: TaskView[] = [];

  constructor(options: FakeOptions = {}) {
    this.resourceCount = options.resources ?? 250;
  }

  private log(method: string, ...args: unknown[]) {
    this.calls.push({ method, args });
  }

  /** A running status for `name`, with the skills extension when it has skills. */
  private running(name: string): ServerStatus {
    return running(name, name in this.skills);
  }

  addServer(name: string, status: ServerStatus = this.running(name), config: ServerConfig = { command: "demo", args: [] }) {
    // As the core decides it: a container engine told to run is in its container.
    const engine = /(^|\/)(docker|podman)$/.test(config.command ?? "") && config.args?.[0] === "run";
    const sandbox = !config.command ? "remote" : engine ? "container" : "sandboxed";
    this.servers.push({ name, status, stderrTail: [`${name} started`], config, sandbox, sandboxHint: null, refusedHosts: [] });
    this.roots.servers[name] = null;
    return this;
  }

  emit(event: CoreEvent) {
    if (event.type === "status") {
      const s = this.servers.find((x) => x.name === event.server);
      if (s) s.status = event.status;
    }
    if (event.type === "task") {
      const t = event.task;
      this.tasks = [t, ...this.tasks.filter((x) => x.server !== t.server || x.taskId !== t.taskId)];
    }
    for (const l of this.listeners) l(event);
  }

  private find(name: string): ServerView {
    const s = this.servers.find((x) => x.name === name);
    if (!s) throw { code: "server_not_found", message: `no server named "${name}"` };
    return s;
  }

  async listServers() {
    return structuredClone(this.servers);
  }
  async startServer(name: string) {
    this.log("startServer", name);
    this.emit({ type: "status", server: name, status: this.running(name) });
  }
  async stopServer(name: string) {
    this.log("stopServer", name);
    this.emit({ type: "status", server: name, status: { state: "stopped" } });
  }
  async restartServer(name: string) {
    this.log("restartServer", name);
  }
  /** The sign-in waiting for its "browser": tests finish it with finishSignIn. */
  private signingIn: { resolve: () => void; reject: (e: unknown) => void } | null = null;
  signInServer(name: string) {
    this.log("signInServer", name);
    return new Promise<void>((resolve, reject) => {
      this.signingIn = {
        resolve: () => {
          this.signIns[name] ??= { issuer: null, account: null, scopes: [] };
          this.emit({ type: "status", server: name, status: this.running(name) });
          resolve();
        },
        reject,
      };
    });
  }
  finishSignIn() {
    this.signingIn?.resolve();
    this.signingIn = null;
  }
  async cancelSignIn() {
    this.log("cancelSignIn");
    this.signingIn?.reject({ code: "cancelled", message: "sign-in cancelled" });
    this.signingIn = null;
  }
  async signOutServer(name: string) {
    this.log("signOutServer", name);
    delete this.signIns[name];
  }
  /** Sign-ins as the keychain would hold them, by server. */
  signIns: Record<string, SignInInfo> = {};
  async signInInfo(name: string) {
    this.log("signInInfo", name);
    return this.signIns[name] ?? null;
  }
  async saveServer(name: string, config: ServerConfig, previousName: string | null) {
    this.log("saveServer", name, config, previousName);
    if (!name) throw { code: "invalid_input", message: "a server needs a name" };
    if (previousName) this.servers = this.servers.filter((s) => s.name !== previousName);
    else if (this.servers.some((s) => s.name === name)) throw { code: "invalid_input", message: `a server named "${name}" already exists` };
    this.addServer(name, { state: "starting", attempt: 0 }, config);
  }
  /** What the "native dialog" answers when asked to trust a server. */
  trustAnswer = true;
  async trustServer(name: string) {
    this.log("trustServer", name);
    if (this.trustAnswer) this.emit({ type: "status", server: name, status: this.running(name) });
    return this.trustAnswer;
  }
  async removeServer(name: string) {
    this.log("removeServer", name);
    this.servers = this.servers.filter((s) => s.name !== name);
  }
  async setServerEnabled(name: string, enabled: boolean) {
    this.log("setServerEnabled", name, enabled);
    const s = this.find(name);
    s.config = { ...s.config, enabled };
    s.status = enabled ? this.running(name) : { state: "disabled" };
  }
  /** The other hosts' files "found" in their usual places. */
  importFound: ImportCandidate[] = [];
  async importCandidates(): Promise<ImportCandidate[]> {
    this.log("importCandidates");
    return this.importFound;
  }
  /** What the native picker answers `importPreview`: a file, or null as when the person cancels. */
  importFile: string | null = "/home/you/claude_desktop_config.json";
  async importPreview(known?: string): Promise<ImportPlan | null> {
    this.log("importPreview", known ?? this.importFile);
    if (known === undefined && this.importFile === null) return null;
    const here = this.servers.some((s) => s.name === "github");
    return {
      source: "claude-desktop",
      servers: {
        github: {
          command: "npx",
          args: ["-y", "@modelcontextprotocol/server-github"],
          cwd: "/home/me/work",
          envFile: "/home/me/.env",
          env: { GITHUB_TOKEN: "${secret:server/github/env/GITHUB_TOKEN}", NODE_OPTIONS: "--require\u200b/tmp/x.js" },
        },
      },
      changes: { github: here ? "unchanged" : "new" },
      secretNames: ["github.GITHUB_TOKEN"],
      inputs: [],
      sourceDigest: "previewed",
    };
  }
  async importApply(inputs: Record<string, string>, sourceDigest: string) {
    this.log("importApply", inputs, sourceDigest);
    const here = this.servers.some((s) => s.name === "github");
    if (!here) this.addServer("github");
    return {
      added: here ? [] : ["github"],
      updated: [],
      unchanged: here ? ["github"] : [],
      secretsStored: ["github.GITHUB_TOKEN"],
      inputsMissing: [],
    };
  }
  async setLogLevel(server: string, level: string) {
    this.log("setLogLevel", server, level);
  }
  async configPath() {
    return "/home/you/.config/switchboard/switchboard.json";
  }
  /** What `keychainProblem` answers (tests set it; null: the keychain works). */
  keychain: BackendError | null = null;
  async keychainProblem() {
    return this.keychain;
  }

  /** Tools listed after the built-in ones (APP_TOOLS for MCP Apps tests). */
  extraTools: Tool[] = [];

  async listTools(server: string): Promise<Tool[]> {
    this.find(server);
    return [...this.builtinTools(), ...structuredClone(this.extraTools)];
  }
  private builtinTools(): Tool[] {
    return [
      {
        name: "echo",
        title: "Echo",
        description: "Echoes the message back",
        inputSchema: { type: "object", properties: { message: { type: "string" } }, required: ["message"] },
        annotations: { readOnlyHint: true },
      },
      {
        name: "weather",
        description: "Structured weather",
        inputSchema: {
          type: "object",
          properties: {
            city: { type: "string", default: "Paris" },
            units: { type: "string", enum: ["metric", "imperial"] },
            days: { type: "integer" },
            alerts: { type: "boolean" },
          },
        },
        outputSchema: {
          type: "object",
          properties: { temperature: { type: "number" } },
          required: ["temperature"],
        },
        annotations: { destructiveHint: true, openWorldHint: true },
      },
    ];
  }
  /** Errors the next calls reject with, in order. */
  callFailures: { code: string; message: string }[] = [];
  /** The progress listener of the latest call, so tests can report progress. */
  onProgress: ((p: CallProgress) => void) | null = null;

  async callTool(
    server: string,
    name: string,
    args: Record<string, unknown>,
    callId: string,
    onProgress: (p: CallProgress) => void,
  ): Promise<CallToolResult> {
    this.log("callTool", server, name, args, callId);
    this.onProgress = onProgress;
    const failure = this.callFailures.shift();
    if (failure) throw failure;
    if (this.holdCalls) {
      return new Promise((resolve, reject) => this.pending.set(callId, { resolve, reject }));
    }
    if (name === "weather") {
      return { content: [{ type: "text", text: "22 °C" }], structuredContent: { temperature: 22 } };
    }
    return { content: [{ type: "text", text: `Echo: ${String(args["message"] ?? "")}` }] };
  }
  async cancelCall(callId: string) {
    this.log("cancelCall", callId);
    this.pending.get(callId)?.reject({ code: "cancelled", message: "the call was cancelled; the server was told" });
    this.pending.delete(callId);
  }

  async listTasks() {
    this.log("listTasks");
    return structuredClone(this.tasks);
  }
  async cancelTask(server: string, taskId: string) {
    this.log("cancelTask", server, taskId);
    const t = this.tasks.find((x) => x.server === server && x.taskId === taskId);
    if (!t) throw { code: "invalid_input", message: `no task ${taskId}` };
    this.emit({ type: "task", server, task: { ...t, status: "cancelled", statusMessage: "cancelled", updatedAt: Date.now() } });
  }

  async listResourcesPage(server: string, cursor: string | null) {
    this.log("listResourcesPage", server, cursor);
    const start = cursor ? Number(cursor) : 0;
    const end = Math.min(start + PAGE, this.resourceCount);
    const resources: Resource[] = [];
    for (let i = start; i < end; i++) {
      resources.push(
        i === 0
          ? { uri: "demo://image.png", name: "image.png", mimeType: "image/png" }
          : { uri: `demo://r/${i}`, name: `resource ${i}`, mimeType: "text/plain" },
      );
    }
    return end < this.resourceCount ? { resources, nextCursor: String(end) } : { resources };
  }
  async listResourceTemplates(_server: string): Promise<ResourceTemplate[]> {
    return [{ uriTemplate: "demo://city/{city}", name: "city" }];
  }
  async readResource(server: string, uri: string) {
    this.log("readResource", server, uri);
    if (uri === "demo://image.png") {
      return {
        contents: [
          {
            uri,
            mimeType: "image/png",
            blob: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
          },
        ],
      };
    }
    return { contents: [{ uri, mimeType: "text/plain", text: `contents of ${uri}` }] };
  }
  async subscribeResource(server: string, uri: string) {
    this.log("subscribeResource", server, uri);
  }
  async unsubscribeResource(server: string, uri: string) {
    this.log("unsubscribeResource", server, uri);
  }

  async listPrompts(_server: string): Promise<Prompt[]> {
    return [
      {
        name: "team",
        title: "Team Management",
        arguments: [
          { name: "department", required: true },
          { name: "name", required: true },
        ],
      },
    ];
  }
  async getPrompt(server: string, name: string, args: Record<string, string>) {
    this.log("getPrompt", server, name, args);
    return {
      messages: [
        { role: "user" as const, content: { type: "text" as const, text: `Promote ${args["name"]} to head of ${args["department"]}.` } },
      ],
    };
  }
  async complete(server: string, target: unknown, argument: string, value: string, context: Record<string, string>): Promise<Completion> {
    this.log("complete", server, target, argument, value, context);
    const all: Record<string, string[]> = {
      department: ["Engineering", "Sales", "Marketing"],
      name: context["department"] === "Engineering" ? ["Alice", "Bob"] : ["Dana"],
      city: ["Paris", "Prague", "Lisbon"],
    };
    return { values: (all[argument] ?? []).filter((v) => v.startsWith(value)) };
  }

  /** The skills of the servers that offer them, by server (`addSkillServer`). */
  skills: Record<string, FakeSkill[]> = {};

  /** Adds a running server that offers `skills` (the fake's two by default). */
  addSkillServer(name: string, skills: FakeSkill[] = fakeSkills()) {
    this.skills[name] = skills;
    return this.addServer(name);
  }
  private heldSkill(server: string, uri: string): FakeSkill {
    this.find(server);
    const list = this.skills[server];
    if (!list) throw { code: "not_supported", message: `server ${JSON.stringify(server)} offers no skills` };
    const held = list.find((s) => s.skill.uri === uri);
    if (!held) throw { code: "invalid_input", message: `server ${JSON.stringify(server)} lists no skill ${uri}` };
    return held;
  }
  async listSkills(server: string): Promise<Skill[]> {
    this.log("listSkills", server);
    this.find(server);
    const list = this.skills[server];
    if (!list) throw { code: "not_supported", message: `server ${JSON.stringify(server)} offers no skills` };
    return structuredClone(list.map((s) => s.skill));
  }
  async loadSkill(server: string, uri: string): Promise<SkillForChat> {
    this.log("loadSkill", server, uri);
    return loadFakeSkill(server, this.heldSkill(server, uri));
  }
  async readSkillFile(server: string, skill: string, uri: string): Promise<string> {
    this.log("readSkillFile", server, skill, uri);
    return readFakeSkillFile(server, this.heldSkill(server, skill), uri);
  }
  async skillFolder(server: string, skill: string, uri: string | null): Promise<DirectoryEntry[]> {
    this.log("skillFolder", server, skill, uri);
    return fakeSkillFolder(this.heldSkill(server, skill), uri);
  }

  async getRoots() {
    return structuredClone(this.roots);
  }
  async setRoots(server: string | null, paths: string[] | null) {
    this.log("setRoots", server, paths);
    if (paths?.some((p) => !p.startsWith("/"))) throw { code: "invalid_input", message: `${paths.find((p) => !p.startsWith("/"))} is not a folder on this computer` };
    if (server === null) this.roots.global = paths ?? [];
    else this.roots.servers[server] = paths;
  }
  async pickFolder() {
    return "/home/you/picked";
  }
  /** What the native file picker answers `pickFile` (null: the person cancels). */
  pickedFile: string | null = "/home/me/notes.txt";
  async pickFile() {
    this.log("pickFile");
    return this.pickedFile;
  }
  reviews: Review[] = [];
  decisions: { id: string; verdict: Verdict }[] = [];
  policies: PolicyEntry[] = [];
  audit: AuditEntry[] = [];

  /** Puts a review in the queue, as the door does, and announces it. */
  addReview(review: Review, announce = true) {
    this.reviews.push(review);
    if (announce) this.emit({ type: "reviewsChanged", pending: this.reviews.length });
  }
  async pendingReviews() {
    return [...this.reviews];
  }
  async decideReview(id: string, digest: string, verdict: Verdict) {
    const i = this.reviews.findIndex((r) => r.id === id);
    if (i < 0 || this.reviews[i]?.digest !== digest)
      throw { code: "approval_mismatch", message: "the decision does not match the request that was shown" };
    this.reviews.splice(i, 1);
    this.decisions.push({ id, verdict });
    this.emit({ type: "reviewsChanged", pending: this.reviews.length });
  }
  async listPolicies() {
    return [...this.policies];
  }
  async setPolicy(entry: PolicyEntry) {
    this.log("setPolicy", entry);
    this.policies = this.policies.filter((p) => !(p.server === entry.server && p.kind === entry.kind && p.tool === entry.tool));
    if (entry.rule !== "ask" || entry.tool !== null) this.policies.push(entry);
  }
  async removePolicy(entry: PolicyEntry) {
    this.log("removePolicy", entry);
    this.policies = this.policies.filter((p) => !(p.server === entry.server && p.kind === entry.kind && p.tool === entry.tool));
  }
  async searchAudit(query: AuditQuery) {
    this.log("searchAudit", query);
    const words = (query.text ?? "").toLowerCase().split(/\s+/).filter(Boolean);
    return this.audit
      .filter((e) => !query.server || e.server === query.server)
      .filter((e) => query.beforeId === null || e.id < query.beforeId)
      .filter((e) => words.every((w) => JSON.stringify(e).toLowerCase().includes(w)))
      .slice()
      .reverse()
      .slice(0, query.limit ?? 200);
  }
  /** How comparisons answer, by "provider/model" (ScriptedAnswer). */
  compareScript: Record<string, ScriptedAnswer> = {};
  /** Comparisons stream their text, then wait for `finishComparisons` (tests emit more meanwhile). */
  holdComparisons = false;
  /** The error the next comparison rejects with (once). */
  compareFailure: BackendError | null = null;
  private heldComparisons: (() => void)[] = [];
  private nextReplay = 1;

  async compareSampling(args: CompareSampling): Promise<ComparedAnswer[]> {
    this.log("compareSampling", structuredClone(args));
    const r = this.reviews.find((x) => x.id === args.id);
    if (!r || r.digest !== args.digest || r.kind !== "sampling_request")
      throw { code: "approval_mismatch", message: "This sampling request is no longer waiting, or changed since it was shown." };
    return this.compare(r.flow, args.models);
  }
  async replaySampling(args: ReplaySampling): Promise<ComparedAnswer[]> {
    this.log("replaySampling", structuredClone(args));
    const asked = this.audit.find((e) => e.flow === args.flow && e.kind === "sampling" && e.step === "requested" && e.actor === "server");
    if (!asked) throw { code: "invalid_input", message: "The audit log holds no sampling request from a server in that flow." };
    // The core makes a new flow for a replay.
    return this.compare(`replay-${this.nextReplay++}`, args.models);
  }
  /** Lets the held comparisons resolve. */
  finishComparisons() {
    const held = this.heldComparisons;
    this.heldComparisons = [];
    for (const go of held) go();
  }
  private async compare(flow: string, models: ModelChoice[]): Promise<ComparedAnswer[]> {
    const failure = this.compareFailure;
    if (failure) {
      this.compareFailure = null;
      throw failure;
    }
    if (models.length < 1 || models.length > 3) throw { code: "invalid_input", message: "Choose from one to 3 models to compare." };
    const answers = models.map((m, column): ComparedAnswer => {
      const script = this.compareScript[`${m.provider}/${m.model}`] ?? {};
      const result =
        script.error !== undefined
          ? null
          : (script.result ?? {
              role: "assistant",
              content: { type: "text", text: script.text ?? `${m.model} says hello.` },
              model: m.model,
              stopReason: script.cut ? "maxTokens" : "endTurn",
            });
      return {
        provider: m.provider,
        model: m.model,
        result: structuredClone(result),
        error: script.error ?? null,
        cut: script.cut ?? null,
        latencyMs: script.latencyMs ?? 400 * (column + 1),
        inputTokens: script.inputTokens === undefined ? 12 : script.inputTokens,
        outputTokens: script.outputTokens === undefined ? 5 : script.outputTokens,
        costUsd: script.costUsd ?? null,
      };
    });
    answers.forEach((a, column) => {
      const script = this.compareScript[`${a.provider}/${a.model}`] ?? {};
      const text = answerText(a.result);
      const half = Math.ceil(text.length / 2);
      const pieces = script.stream ?? (text ? [text.slice(0, half), text.slice(half)].filter(Boolean) : []);
      for (const piece of pieces) this.emit({ type: "comparedText", flow, column, text: piece });
    });
    if (this.holdComparisons) await new Promise<void>((go) => this.heldComparisons.push(go));
    return answers;
  }
  pins: Record<string, PinItem[]> = {};

  async reviewPins(server: string) {
    return structuredClone(this.pins[server] ?? []);
  }
  async withheldTools() {
    this.log("withheldTools");
    const each = await Promise.all(
      this.runningNames().map(async (s) => withheldOf(s, await this.listTools(s), this.pins[s] ?? [], this.policies)),
    );
    return each.flat();
  }
  private runningNames(): string[] {
    return this.servers.filter((s) => s.status.state === "running").map((s) => s.name);
  }
  async approvePins(server: string, items: PinChoice[]) {
    const list = this.pins[server] ?? [];
    for (const c of items) {
      const p = list.find((x) => x.item === c.item);
      if (!p || p.digest !== c.digest)
        throw { code: "approval_mismatch", message: `${c.item} changed again since it was shown; review it again` };
    }
    for (const c of items) {
      const p = list.find((x) => x.item === c.item)!;
      p.state = "pinned";
      p.pinned = null;
      p.changes = [];
    }
    return items.length;
  }

  /** The switches and sets of what the model is offered (the fake chat does not apply them). */
  switches = new FakeSwitches();

  async toolSwitches() {
    this.log("toolSwitches");
    return this.switches.view();
  }
  async setToolEnabled(server: string, tool: string, enabled: boolean) {
    this.log("setToolEnabled", server, tool, enabled);
    this.switches.setTool(server, tool, enabled);
  }
  async setNewToolsEnabled(server: string, enabled: boolean) {
    this.log("setNewToolsEnabled", server, enabled);
    this.switches.setNewTools(server, enabled);
  }
  async saveToolSet(set: ToolSet) {
    this.log("saveToolSet", structuredClone(set));
    this.switches.saveSet(set);
  }
  async deleteToolSet(name: string) {
    this.log("deleteToolSet", name);
    this.switches.deleteSet(name);
  }

  /** Above how many tools the model would search them (the config's `toolSearchAbove`). */
  toolSearchAbove = DEFAULT_SEARCH_ABOVE;
  /** The config's `toolTokensWarnPercent`. */
  toolTokensWarnPercent = DEFAULT_WARN_PERCENT;

  async setContextLimits(limits: ContextLimits) {
    this.log("setContextLimits", structuredClone(limits));
    const percent = limits.toolTokensWarnPercent;
    if (percent !== null && !(Number.isInteger(percent) && percent >= 1 && percent <= 100))
      throw { code: "invalid_input", message: "The warning share must be a percentage from 1 to 100." };
    this.toolSearchAbove = limits.toolSearchAbove ?? DEFAULT_SEARCH_ABOVE;
    this.toolTokensWarnPercent = percent ?? DEFAULT_WARN_PERCENT;
  }
  /** What `toolTokens` answers in place of its own counts (tests set `offered`, `contextWindow`, …). */
  tokens: Partial<TokenMeter> = {};

  async toolTokens(args: TokensFor): Promise<TokenMeter> {
    this.log("toolTokens", args);
    const model = args.model ?? this.providers.flatMap((p) => p.models.map((m) => m.model))[0] ?? "gpt-4o";
    const meter = fakeMeter(model, await this.meteredTools(), this.toolSearchAbove, this.toolTokensWarnPercent);
    return { ...meter, ...structuredClone(this.tokens) };
  }
  /** Every running server's tools, each with its switch and why a turn would hold it back. */
  private async meteredTools(): Promise<MeteredTool[]> {
    const each = await Promise.all(
      this.runningNames().map(async (server) => {
        const tools = await this.listTools(server);
        const held = withheldOf(server, tools, this.pins[server] ?? [], this.policies);
        const on = (t: Tool) => !isAppOnly(t) && !this.switches.off.some((r) => r.server === server && r.tool === t.name);
        const why = (t: Tool) => held.find((h) => h.tool === t.name)?.reason ?? null;
        return tools.map((tool) => ({ server, tool, on: on(tool), held: why(tool) }));
      }),
    );
    return each.flat();
  }

  conversations: { conversation: Conversation; messages: ChatMessage[] }[] = [];
  /** What the fake model answers: text, or a function of the conversation so far. */
  answer: (messages: ChatMessage[]) => unknown[] = () => [{ type: "text", text: "Hello from the model." }];
  /** How long the fake model takes to answer. */
  turnMs = 0;
  /** Conversations whose turn is running. */
  answering = new Set<string>();
  /** Drop the events that end a turn, as a lagging event channel would. */
  dropTurnEnd = false;
  private nextMessage = 1;

  private conv(id: string) {
    const c = this.conversations.find((x) => x.conversation.id === id);
    if (!c) throw { code: "invalid_input", message: `no conversation "${id}"` };
    return c;
  }
  private push(id: string, role: string, content: unknown[]) {
    const message: ChatMessage = { id: this.nextMessage++, role, content, atMs: Date.now() };
    this.conv(id).messages.push(message);
    this.emit({ type: "chatMessage", conversation: id, message });
  }
  async listConversations() {
    return this.conversations.map((c) => ({ ...c.conversation }));
  }
  async getConversation(id: string) {
    const c = this.conv(id);
    return { conversation: { ...c.conversation }, messages: [...c.messages], answering: this.answering.has(id) };
  }
  async newConversation(title: string, provider: string, model: string) {
    const conversation: Conversation = { id: `c${this.conversations.length + 1}`, title, provider, model, updatedMs: Date.now() };
    this.conversations.unshift({ conversation, messages: [] });
    return conversation;
  }
  async updateConversation(conversation: Conversation) {
    this.log("updateConversation", structuredClone(conversation));
    this.conv(conversation.id).conversation = { ...conversation };
  }
  async deleteConversation(id: string) {
    this.conversations = this.conversations.filter((c) => c.conversation.id !== id);
  }
  async sendMessage(conversation: string, messages: NewMessage[]) {
    this.log("sendMessage", conversation, messages);
    for (const m of messages) this.push(conversation, m.role, m.content);
    if (messages[messages.length - 1]?.role !== "user") {
      this.emit({ type: "chatDone", conversation, error: null });
      return;
    }
    const reply = this.answer(this.conv(conversation).messages);
    this.answering.add(conversation);
    setTimeout(() => {
      for (const b of reply) {
        const text = (b as { text?: string }).text;
        if (text) this.emit({ type: "chatText", conversation, text });
      }
      this.answering.delete(conversation);
      if (this.dropTurnEnd) {
        this.conv(conversation).messages.push({ id: this.nextMessage++, role: "assistant", content: reply, atMs: Date.now() });
        return;
      }
      this.push(conversation, "assistant", reply);
      this.emit({ type: "chatDone", conversation, error: null });
    }, this.turnMs);
  }
  async cancelTurn(conversation: string) {
    this.log("cancelTurn", conversation);
  }

  providers: ProviderSettings[] = [];
  keys = new Map<string, string>();
  offered: Record<string, string[]> = {};

  async listProviders() {
    return this.providers.map((p) => ({ ...p, hasKey: this.keys.has(p.id) }));
  }
  async saveProvider(settings: ProviderSettings, apiKey: string | null) {
    this.log("saveProvider", settings, apiKey === null ? null : "(key)");
    if (!/^[A-Za-z0-9._-]+$/.test(settings.id) || settings.id === "manual")
      throw { code: "invalid_input", message: `provider name "${settings.id}": use letters, digits, '-', '_' or '.'` };
    const i = this.providers.findIndex((p) => p.id === settings.id);
    const saved = { ...settings, models: settings.models.map((m) => ({ ...m, provider: settings.id })) };
    if (i >= 0) this.providers[i] = saved;
    else this.providers.push(saved);
    if (apiKey) this.keys.set(settings.id, apiKey);
  }
  async removeProvider(id: string) {
    this.providers = this.providers.filter((p) => p.id !== id);
    this.keys.delete(id);
  }
  async providerModels(id: string) {
    const offered = this.offered[id];
    if (!offered) throw { code: "provider", message: `${id}: 401 Unauthorized: invalid API key` };
    return offered;
  }
  /** Open MCP Apps views by id. */
  views = new Map<string, AppView>();
  /** The permissions the next opened view declares. */
  viewPermissions: AppPermissions = { ...NO_PERMISSIONS };
  /** What the person answers the reviews of a view's tool calls and links. */
  appConsent = true;
  /** Results a view's tool calls resolve with, by tool name (else as callTool answers). */
  appToolResults: Record<string, CallToolResult> = {};
  private nextView = 1;

  private view(viewId: string): AppView {
    const v = this.views.get(viewId);
    if (!v) throw { code: "invalid_input", message: `no app view "${viewId}"` };
    return v;
  }
  async openAppView(server: string, tool: string, uri: string): Promise<AppView> {
    this.log("openAppView", server, tool, uri);
    this.find(server);
    const found = (await this.listTools(server)).find((t) => t.name === tool);
    const ui = (found?._meta?.["ui"] ?? {}) as { resourceUri?: unknown };
    if (!found || ui.resourceUri !== uri || !uri.startsWith("ui://"))
      throw { code: "invalid_input", message: `${tool} has no UI resource ${uri}` };
    const viewId = `view-${this.nextView++}`;
    const view: AppView = {
      viewId,
      server,
      tool,
      resourceUri: uri,
      src: "about:blank",
      csp: { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] },
      permissions: { ...this.viewPermissions },
      prefersBorder: null,
    };
    this.views.set(viewId, view);
    return structuredClone(view);
  }
  async closeAppView(viewId: string) {
    this.log("closeAppView", viewId);
    this.views.delete(viewId);
  }
  async appCallTool(viewId: string, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    this.log("appCallTool", viewId, name, args);
    const v = this.view(viewId);
    const tool = (await this.listTools(v.server)).find((t) => t.name === name);
    const ui = (tool?._meta?.["ui"] ?? {}) as { visibility?: unknown };
    const visibility = Array.isArray(ui.visibility) ? ui.visibility : ["model", "app"];
    if (!tool || !visibility.includes("app")) throw { code: "tool_not_found", message: `${name} is not offered to apps` };
    if (!this.appConsent) throw { code: "denied", message: `you refused the call to ${name}` };
    return structuredClone(this.appToolResults[name] ?? { content: [{ type: "text", text: `${name} done` }] });
  }
  async appReadResource(viewId: string, uri: string): Promise<ReadResourceResult> {
    this.log("appReadResource", viewId, uri);
    return this.readResource(this.view(viewId).server, uri);
  }
  async appOpenLink(viewId: string, url: string) {
    this.log("appOpenLink", viewId, url);
    this.view(viewId);
    let https = false;
    try {
      https = new URL(url).protocol === "https:";
    } catch {
      https = false;
    }
    if (!https) throw { code: "denied", message: "only https links open" };
    if (!this.appConsent) throw { code: "denied", message: "you did not open the link" };
  }
  async appMessage(viewId: string, message: AppMessageParams) {
    this.log("appMessage", viewId, message);
    this.view(viewId);
  }
  async appUpdateContext(viewId: string, context: AppContextParams) {
    this.log("appUpdateContext", viewId, context);
    this.view(viewId);
  }

  /** The registries `registries` answers, the default first (each lists `registry`). */
  registryUrls: string[] = [FAKE_REGISTRY, FAKE_OTHER_REGISTRY];
  /** The registry's listings (fake-gallery.ts). */
  registry: FakeEntry[] = fakeRegistry();
  /** Listings per page when a search names no limit. */
  registryPageSize = 30;
  /** False: the registry cannot be reached, and searches answer the kept listing, offline. */
  registryReachable = true;
  /** What `checkUpdates` finds. */
  updates: UpdateView[] = fakeUpdates();
  /** What the native picker answers `pickBundle` (null: the person cancels). */
  bundleFile: BundleForm | null = FAKE_BUNDLE;
  private pickedBundle: BundleForm | null = null;

  /** The entry `ref` names, at its version when the registry lists that one (else the latest). */
  private listed(ref: RegistryRef): FakeEntry {
    const e = this.registry.find((x) => x.listing.server.name === ref.name);
    if (!e) throw { code: "invalid_input", message: `the registry lists no server named "${ref.name}"` };
    const versions = versionsOf(e, ref.registry);
    return versions.find((v) => v.listing.server.version === ref.version) ?? versions[0] ?? e;
  }
  /** Adds an installed server as the core does once it is trusted (the file changed). */
  private installed(name: string, config: ServerConfig) {
    if (!this.trustAnswer) throw { code: "denied", message: `You did not trust "${name}": nothing was installed.` };
    if (this.servers.some((s) => s.name === name)) throw { code: "invalid_input", message: `a server named "${name}" already exists` };
    this.addServer(name, { state: "starting", attempt: 0 }, config);
    this.emit({ type: "configChanged", error: null });
    return name;
  }
  async registries() {
    this.log("registries");
    return [...this.registryUrls];
  }
  async registrySettings(): Promise<RegistrySettings> {
    this.log("registrySettings");
    return { registries: [...this.registryUrls], official: FAKE_REGISTRY, fromEnvironment: null };
  }
  /** As the core: https (or http on this computer) only, written without a trailing slash, once each. */
  async setRegistries(registries: string[]): Promise<RegistryList> {
    this.log("setRegistries", registries);
    const kept: string[] = [];
    for (const raw of registries) {
      const url = raw.trim().replace(/\/+$/, "");
      const u = URL.canParse(url) ? new URL(url) : null;
      const local = u !== null && ["127.0.0.1", "localhost", "[::1]"].includes(u.hostname);
      if (!u || !(u.protocol === "https:" || (u.protocol === "http:" && local))) {
        throw { code: "invalid_input", message: `The registry URL "${raw}" must use https (plain http only on this computer).` };
      }
      if (!kept.includes(url)) kept.push(url);
    }
    this.registryUrls = kept;
    return { registries: kept };
  }
  async registrySearch(query: RegistrySearch) {
    this.log("registrySearch", query);
    return searchPage(this.registry, query, this.registryPageSize, !this.registryReachable);
  }
  async registryCached(query: RegistrySearch) {
    this.log("registryCached", query);
    return searchPage(this.registry, query, this.registryPageSize, true);
  }
  async registryRefresh(query: RegistrySearch) {
    this.log("registryRefresh", query);
    if (!this.registryReachable) throw { code: "connect_failed", message: "the registry could not be reached" };
    return 0;
  }
  async installForm(server: RegistryRef) {
    this.log("installForm", server);
    return formOf(this.listed(server));
  }
  async registryVersions(server: RegistryRef) {
    this.log("registryVersions", server);
    const e = this.registry.find((x) => x.listing.server.name === server.name);
    if (!e) throw { code: "invalid_input", message: `the registry lists no server named "${server.name}"` };
    return versionsOf(e, server.registry).map((v) => v.listing);
  }
  async installServer(request: InstallRequest) {
    this.log("installServer", request);
    const form = formOf(this.listed(request.server));
    if (form.listing.status !== "active") throw { code: "invalid_input", message: "It is no longer offered by its registry." };
    return this.installed(request.name ?? form.name, { command: "npx", args: ["-y", form.listing.server.name] });
  }
  async uninstallServer(name: string) {
    this.log("uninstallServer", name);
    this.find(name);
    this.servers = this.servers.filter((s) => s.name !== name);
    this.updates = this.updates.filter((u) => u.server !== name);
  }
  /** What `registryIcon` answers, by address. */
  icons: Record<string, string> = {};

  async registryIcon(url: string) {
    this.log("registryIcon", url);
    return this.icons[url] ?? null;
  }

  async checkUpdates() {
    this.log("checkUpdates");
    return structuredClone(this.updates);
  }
  async updateServer(name: string) {
    this.log("updateServer", name);
    if (!this.updates.some((u) => u.server === name)) return false;
    if (!this.trustAnswer) return false;
    this.updates = this.updates.filter((u) => u.server !== name);
    return true;
  }
  async pickBundle() {
    this.log("pickBundle");
    this.pickedBundle = this.bundleFile ? structuredClone(this.bundleFile) : null;
    return this.pickedBundle;
  }
  async installBundle(name: string | null, values: Record<string, string>) {
    this.log("installBundle", name, values);
    const picked = this.pickedBundle;
    if (!picked) throw { code: "invalid_input", message: "no bundle was chosen" };
    const missing = picked.needs.filter((n) => n.required && !values[n.key]);
    if (missing.length) throw { code: "invalid_input", message: `${missing.map((n) => n.key).join(", ")}: a value is required` };
    return this.installed(name ?? picked.name, { command: "node", args: [`bundles/${picked.name}/server.js`] });
  }

  /** What crossed the wire, as the rings keep it (fake-traffic.ts): `addTraffic` fills it. */
  wire = new FakeTraffic();

  /** Records messages as the core's rings would, in order; what was kept of each. */
  addTraffic(...messages: FakeMessage[]): TrafficEntry[] {
    return messages.map((m) => this.wire.add(m));
  }
  async traffic(query: TrafficQuery) {
    this.log("traffic", structuredClone(query));
    return this.wire.query(query);
  }
  async trafficMessages(seqs: number[], session: number | null = null) {
    this.log("trafficMessages", [...seqs], session);
    return this.wire.messages(seqs, session);
  }
  async trafficLimits() {
    this.log("trafficLimits");
    return { ...this.wire.limits };
  }
  async setTrafficLimits(limits: TrafficLimits) {
    this.log("setTrafficLimits", { ...limits });
    this.wire.setLimits(limits);
  }
  async exportTraffic(seqs: number[], session: number | null = null) {
    this.log("exportTraffic", [...seqs], session);
    const path = this.wire.exportPath;
    return path === null ? null : { path, entries: this.wire.exported(seqs, session) };
  }
  async keepTraffic() {
    this.log("keepTraffic");
    return this.wire.keep();
  }
  async stopKeepingTraffic() {
    this.log("stopKeepingTraffic");
    return this.wire.stop();
  }
  async keptTrafficSessions() {
    this.log("keptTrafficSessions");
    return this.wire.listSessions();
  }
  async deleteKeptTraffic(session: number) {
    this.log("deleteKeptTraffic", session);
    this.wire.deleteSession(session);
  }

  async openExternal(url: string) {
    this.log("openExternal", url);
  }
  async exportAudit(query: AuditQuery) {
    this.log("exportAudit", query);
    return { path: "/home/you/switchboard-audit.jsonl", entries: this.audit.length };
  }
  async saveBytes(name: string, _base64: string) {
    this.log("saveBytes", name);
    return `/home/you/${name}`;
  }
  async onCoreEvent(listener: (event: CoreEvent) => void) {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
  private refusals = new Set<(host: string) => void>();
  /** As the shell does when its guard keeps the window on the app. */
  refuseNavigation(host: string) {
    for (const l of this.refusals) l(host);
  }
  async onNavigationRefused(listener: (host: string) => void) {
    this.refusals.add(listener);
    return () => {
      this.refusals.delete(listener);
    };
  }
  private openedListeners = new Set<(opened: Opened) => void>();
  /** As the shell does when the app is asked to open a .mcpb file or an install link. A bundle is
   *  then the one `installBundle` installs, as after `pickBundle`. */
  emitOpened(opened: Opened) {
    if (opened.kind === "bundle") this.pickedBundle = structuredClone(opened.form);
    for (const l of this.openedListeners) l(structuredClone(opened));
  }
  async onOpened(listener: (opened: Opened) => void) {
    this.openedListeners.add(listener);
    return () => {
      this.openedListeners.delete(listener);
    };
  }

  /** Commands used by name answer from here: a test fakes one with `faked.set(name, …)`; any
   * other is refused, so a new command needs nothing here until a test uses it. */
  faked = new Map<keyof Commands, (args: never) => unknown>();
  async invoke<K extends keyof Commands>(name: K, args: Commands[K]["args"]): Promise<Commands[K]["result"]> {
    this.log("invoke", name, args);
    const answer = this.faked.get(name);
    if (!answer) throw { code: "not_supported", message: `the fake backend does not answer ${name}` };
    return (await answer(args as never)) as Commands[K]["result"];
  }
}

/** A populated fake for the browser. */
export function demoBackend(): FakeBackend {
  const b = new FakeBackend({ resources: 100_000 });
  b.extraTools = APP_TOOLS;
  b.addServer("everything");
  b.addSkillServer("docs");
  b.addServer("filesystem", {
    state: "restarting",
    attempt: 2,
    retryInMs: 4000,
    error: { code: "transport_closed", message: 'server "filesystem" exited (exit status: 1)' },
  });
  b.addServer("github", { state: "failed", error: { code: "keychain", message: "the keychain entry github.TOKEN is missing" } });
  demoTraffic(b.wire);
  return b;
}
