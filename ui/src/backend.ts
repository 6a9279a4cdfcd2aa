// The one interface the UI talks to. Only backend/tauri.ts implements it with Tauri; tests use a
// fake. Every method rejects with a `{code, message}` BackendError, never a bare string.
import type { AppView } from "./bindings/AppView";
import type { AuditEntry } from "./bindings/AuditEntry";
import type { AuditExport } from "./bindings/AuditExport";
import type { Conversation } from "./bindings/Conversation";
import type { ConversationView } from "./bindings/ConversationView";
import type { NewMessage } from "./bindings/NewMessage";
import type { Opened } from "./bindings/Opened";
import type { AuditQuery } from "./bindings/AuditQuery";
import type { CompareSampling } from "./bindings/CompareSampling";
import type { ComparedAnswer } from "./bindings/ComparedAnswer";
import type { ReplaySampling } from "./bindings/ReplaySampling";
import type { BundleForm } from "./bindings/BundleForm";
import type { InstallForm } from "./bindings/InstallForm";
import type { InstallRequest } from "./bindings/InstallRequest";
import type { RegistryListing } from "./bindings/RegistryListing";
import type { RegistryPage } from "./bindings/RegistryPage";
import type { RegistryList } from "./bindings/RegistryList";
import type { RegistryRef } from "./bindings/RegistryRef";
import type { RegistrySearch } from "./bindings/RegistrySearch";
import type { RegistrySettings } from "./bindings/RegistrySettings";
import type { UpdateView } from "./bindings/UpdateView";
import type { Error as BackendError } from "./bindings/Error";
import type { PinChoice } from "./bindings/PinChoice";
import type { PinItem } from "./bindings/PinItem";
import type { PolicyEntry } from "./bindings/PolicyEntry";
import type { ProviderSettings } from "./bindings/ProviderSettings";
import type { Review } from "./bindings/Review";
import type { Verdict } from "./bindings/Verdict";
import type { CallProgress } from "./bindings/CallProgress";
import type { Commands } from "./bindings/Commands";
import type { ContextLimits } from "./bindings/ContextLimits";
import type { CoreEvent } from "./bindings/CoreEvent";
import type { ImportCandidate } from "./bindings/ImportCandidate";
import type { WithheldTool } from "./bindings/WithheldTool";
import type { ImportPlan } from "./bindings/ImportPlan";
import type { ImportReport } from "./bindings/ImportReport";
import type { RootsView } from "./bindings/RootsView";
import type { ServerConfig } from "./bindings/ServerConfig";
import type { ServerView } from "./bindings/ServerView";
import type { SignInInfo } from "./bindings/SignInInfo";
import type { DirectoryEntry } from "./bindings/DirectoryEntry";
import type { Skill } from "./bindings/Skill";
import type { SkillForChat } from "./bindings/SkillForChat";
import type { TaskView } from "./bindings/TaskView";
import type { TokenMeter } from "./bindings/TokenMeter";
import type { TokensFor } from "./bindings/TokensFor";
import type { ToolSet } from "./bindings/ToolSet";
import type { ToolSwitchesView } from "./bindings/ToolSwitchesView";
import type { KeptSession } from "./bindings/KeptSession";
import type { KeptSessions } from "./bindings/KeptSessions";
import type { TrafficExport } from "./bindings/TrafficExport";
import type { TrafficLimits } from "./bindings/TrafficLimits";
import type { TrafficMessage } from "./bindings/TrafficMessage";
import type { TrafficPage } from "./bindings/TrafficPage";
import type { TrafficQuery } from "./bindings/TrafficQuery";
import type {
  AppContextParams,
  AppMessageParams,
  CallToolResult,
  Completion,
  CompletionTarget,
  GetPromptResult,
  ListResourcesResult,
  LogLevel,
  Prompt,
  ReadResourceResult,
  ResourceTemplate,
  Tool,
} from "./mcp";

export interface Backend {
  // Servers
  listServers(): Promise<ServerView[]>;
  startServer(name: string): Promise<void>;
  stopServer(name: string): Promise<void>;
  restartServer(name: string): Promise<void>;
  /** Signs in to a remote server through the system browser; resolves once signed in and the server runs again on the new tokens. */
  signInServer(name: string): Promise<void>;
  /** Stops waiting for the browser: the pending signInServer fails with `cancelled`. */
  cancelSignIn(): Promise<void>;
  /** Deletes a remote server's tokens and restarts it. */
  signOutServer(name: string): Promise<void>;
  /** Who is signed in to a remote server, where and for which scopes (null: nobody). */
  signInInfo(name: string): Promise<SignInInfo | null>;
  /**
   * Adds a server, or replaces `previousName` (which may be a rename) with it; saved to the config file. A definition
   * that would run something not yet trusted is first shown in a native dialog; declined, it fails with `denied`.
   */
  saveServer(name: string, config: ServerConfig, previousName: string | null): Promise<void>;
  /** Shows the server's launch definition in a native dialog; true once the person trusted it (it then starts). */
  trustServer(name: string): Promise<boolean>;
  removeServer(name: string): Promise<void>;
  setServerEnabled(name: string, enabled: boolean): Promise<void>;
  /** The Claude Desktop and VS Code configuration files found where those apps keep them. */
  importCandidates(): Promise<ImportCandidate[]>;
  /** Says what importing a Claude Desktop or VS Code config would do (no secret values): `known`, one
   * of `importCandidates`' paths, or else a file the person chooses in the native file picker (the
   * window names no other path); null when the person cancels. */
  importPreview(known?: string): Promise<ImportPlan | null>;
  /** Imports the file chosen in `importPreview`, as previewed: secrets go to the keychain; `inputs`
   * are values for the plan's inputs by id. */
  importApply(inputs: Record<string, string>, sourceDigest: string): Promise<ImportReport>;
  setLogLevel(server: string, level: LogLevel): Promise<void>;
  configPath(): Promise<string>;
  /** Why the OS keychain cannot be had, once that is known. */
  keychainProblem(): Promise<BackendError | null>;

  // Tools (from the server's catalog, refreshed on list_changed)
  listTools(server: string): Promise<Tool[]>;
  /** Calls a tool; `callId` names the call so `cancelCall` can cancel it; progress streams to `onProgress`. */
  callTool(
    server: string,
    name: string,
    args: Record<string, unknown>,
    callId: string,
    onProgress: (progress: CallProgress) => void,
  ): Promise<CallToolResult>;
  /** Cancels a call in flight (the server is sent notifications/cancelled, or tasks/cancel for a task); its promise rejects with code "cancelled". */
  cancelCall(callId: string): Promise<void>;

  // Tasks: tool calls a server runs as tasks (their changes arrive as `task` events)
  /** Every task kept, running and finished, newest first; they survive a reload. */
  listTasks(): Promise<TaskView[]>;
  /** Asks the server to cancel one of its tasks (tasks/cancel). */
  cancelTask(server: string, taskId: string): Promise<void>;

  // Resources
  /** One page of resources; pass the previous page's nextCursor to get the next. */
  listResourcesPage(server: string, cursor: string | null): Promise<ListResourcesResult>;
  listResourceTemplates(server: string): Promise<ResourceTemplate[]>;
  readResource(server: string, uri: string): Promise<ReadResourceResult>;
  subscribeResource(server: string, uri: string): Promise<void>;
  unsubscribeResource(server: string, uri: string): Promise<void>;

  // Prompts
  listPrompts(server: string): Promise<Prompt[]>;
  getPrompt(server: string, name: string, args: Record<string, string>): Promise<GetPromptResult>;
  complete(
    server: string,
    target: CompletionTarget,
    argument: string,
    value: string,
    context: Record<string, string>,
  ): Promise<Completion>;

  // Skills (the MCP Skills extension): every read is checked against the server's listing, and
  // content that fails is never used.
  /** A server's skills, by their entries only: nothing of a skill is read. */
  listSkills(server: string): Promise<Skill[]>;
  /** Reads skill `uri` (its SKILL.md), checked, with the content that brings it into a chat. */
  loadSkill(server: string, uri: string): Promise<SkillForChat>;
  /** One file of a skill (`skill`: the URI of its SKILL.md) as text, checked. */
  readSkillFile(server: string, skill: string, uri: string): Promise<string>;
  /** What a folder of a skill holds (its root when `uri` is null), from a server that lists
   *  folders (`directoryRead`): names only, nothing read. */
  skillFolder(server: string, skill: string, uri: string | null): Promise<DirectoryEntry[]>;

  // Roots
  getRoots(): Promise<RootsView>;
  /** Sets the global roots (`server` null) or a server's own (`paths` null: back to the global ones). */
  setRoots(server: string | null, paths: string[] | null): Promise<void>;
  /** The native folder picker; null when the user cancels. */
  pickFolder(): Promise<string | null>;
  /** The native file picker (for a setting that names a file); null when the user cancels. */
  pickFile(): Promise<string | null>;

  // Approvals: sampling, elicitation and the model's tool calls wait here for the user.
  /** The reviews waiting for a decision, oldest first. */
  pendingReviews(): Promise<Review[]>;
  /** Decides a review. `digest` must be the shown review's: anything else is refused (`approval_mismatch`). */
  decideReview(id: string, digest: string, verdict: Verdict): Promise<void>;
  /** The standing rules (per server, kind and tool). */
  listPolicies(): Promise<PolicyEntry[]>;
  /** Sets a rule. `ask` for a whole server revokes its rule; for one tool it keeps asking about that tool. */
  setPolicy(entry: PolicyEntry): Promise<void>;
  /** Removes the rule at the entry's scope (server, kind, tool). */
  removePolicy(entry: PolicyEntry): Promise<void>;
  /**
   * Sends the open sampling request (`id`, `digest`: the dialog's), as edited (`content`:
   * `{provider, model, request}`), to one to three of the person's models at once. Each column's
   * text streams as `comparedText` events (the review's flow, the column's index in `models`);
   * resolves with each model's answer or error, latency and tokens. Nothing goes to the server: the
   * person approves the review with the answer they picked (`content.answer`).
   */
  compareSampling(args: CompareSampling): Promise<ComparedAnswer[]>;
  /**
   * Sends a past sampling request (an audit flow) to one to three models at once, as a new flow the
   * core makes (its `comparedText` events carry that flow); nothing goes back to a server.
   */
  replaySampling(args: ReplaySampling): Promise<ComparedAnswer[]>;
  /** Audit log rows, newest first. */
  searchAudit(query: AuditQuery): Promise<AuditEntry[]>;
  /** Asks where to save, then writes the audit rows `query` matches (all of them, oldest first) there
   * as JSON Lines; null when cancelled. */
  exportAudit(query: AuditQuery): Promise<AuditExport | null>;
  /** A running server's tool definitions and instructions against what was approved (pinned). */
  reviewPins(server: string): Promise<PinItem[]>;
  /** The running servers' tools a chat turn would not offer the model now, and why (as a turn decides). */
  withheldTools(): Promise<WithheldTool[]>;
  /** Pins the reviewed items as shown (each with its digest); refused if one changed meanwhile. */
  approvePins(server: string, items: PinChoice[]): Promise<number>;

  // What the chat's model is offered, as the person shapes it (the person can still call every
  // tool on the Tools screen).
  /** The tools switched off for the model, the servers whose new tools start off, and the tool sets. */
  toolSwitches(): Promise<ToolSwitchesView>;
  /** Switches one tool on or off for the model. */
  setToolEnabled(server: string, tool: string, enabled: boolean): Promise<void>;
  /** Whether a server's tools not seen yet start on or off for the model (tools seen keep theirs). */
  setNewToolsEnabled(server: string, enabled: boolean): Promise<void>;
  /** Creates or replaces a tool set (its name trimmed: 1 to 64 characters, no control characters). */
  saveToolSet(set: ToolSet): Promise<void>;
  deleteToolSet(name: string): Promise<void>;
  /** Above how many tools the model searches for them, and above what share of its context window
   *  (percent, 1 to 100) the meter warns, kept in the config file (null: the default, 40 and 10). */
  setContextLimits(limits: ContextLimits): Promise<void>;
  /** What the running servers' tool definitions cost `args.model` (absent: the first model of the
   *  first provider) in tokens, each and as a chat turn would offer them now, against its context
   *  window; `tokenizer` "estimate": no tokenizer of the model's own, the counts are estimates. */
  toolTokens(args: TokensFor): Promise<TokenMeter>;

  // LLM providers (keys go to the OS keychain and never come back)
  listProviders(): Promise<ProviderSettings[]>;
  /** Adds or replaces a provider; `apiKey` null keeps the stored key. */
  saveProvider(settings: ProviderSettings, apiKey: string | null): Promise<void>;
  removeProvider(id: string): Promise<void>;
  /** The models the provider offers, fetched from it. */
  providerModels(id: string): Promise<string[]>;

  // Chat: conversations in which the model may call the servers' tools (each call approved)
  listConversations(): Promise<Conversation[]>;
  getConversation(id: string): Promise<ConversationView>;
  newConversation(title: string, provider: string, model: string): Promise<Conversation>;
  updateConversation(conversation: Conversation): Promise<void>;
  deleteConversation(id: string): Promise<void>;
  /** Adds messages, then the model answers (events `chatText`, `chatMessage`, `chatDone`). */
  sendMessage(conversation: string, messages: NewMessage[]): Promise<void>;
  cancelTurn(conversation: string): Promise<void>;

  // MCP Apps: a tool's UI resource shown in a sandboxed frame, and what that view may ask for.
  /** Reads the tool's `ui://` resource (it must be `text/html;profile=mcp-app`) and registers a view of it. */
  openAppView(server: string, tool: string, uri: string): Promise<AppView>;
  closeAppView(viewId: string): Promise<void>;
  /** A view calls a tool of its server: only tools visible to apps, each through the approval dialog (refused: `denied`). */
  appCallTool(viewId: string, name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  /** A view reads a resource of its own server. */
  appReadResource(viewId: string, uri: string): Promise<ReadResourceResult>;
  /** A view asks to open a link: the person sees the full URL and consents (https only; else `denied`). */
  appOpenLink(viewId: string, url: string): Promise<void>;
  /** Audits a view's `ui/message`; the window shows it to the person, who decides whether to send it. */
  appMessage(viewId: string, message: AppMessageParams): Promise<void>;
  /** Audits a view's `ui/update-model-context`; the window shows it and attaches it to the next message. */
  appUpdateContext(viewId: string, context: AppContextParams): Promise<void>;

  // Gallery: servers from an MCP Registry, and .mcpb bundle files. A listing's text is shown from
  // its `text` (hidden characters revealed, lengths capped), never from its `server`.
  /** The registries the gallery may list, the default first: `SWITCHBOARD_REGISTRY`, then the
   *  config's `registries`, else the official one. */
  registries(): Promise<string[]>;
  /** The registries kept in the config (the official one alone when none are), for the person to change. */
  registrySettings(): Promise<RegistrySettings>;
  /** Keeps `registries` (the first the default), each checked (https, or plain http on this
   *  computer) and written as the gallery calls it; a refused URL is named (`invalid_input`). */
  setRegistries(registries: string[]): Promise<RegistryList>;
  /** One page of a registry's listing; when the registry cannot be reached, the page kept on
   *  this computer with `offline` set. */
  registrySearch(query: RegistrySearch): Promise<RegistryPage>;
  /** The page kept on this computer, at once (`offline` set). */
  registryCached(query: RegistrySearch): Promise<RegistryPage>;
  /** Brings the kept listing up to date; how many entries changed. */
  registryRefresh(query: RegistrySearch): Promise<number>;
  /** A listing's install form: the ways it can be run and what each asks for. */
  installForm(server: RegistryRef): Promise<InstallForm>;
  /** Every version of a registry server (`server.version` aside), newest first; a deprecated or
   *  deleted one is listed but cannot be installed. */
  registryVersions(server: RegistryRef): Promise<RegistryListing[]>;
  /** Installs a registry server through the native trust dialog (declined: `denied`); the local
   *  name it was installed under. */
  installServer(request: InstallRequest): Promise<string>;
  /** Removes a server with its own keychain entries (and an installed bundle's folder). */
  uninstallServer(name: string): Promise<void>;
  /** The servers installed from a registry that now lists a newer version. */
  checkUpdates(): Promise<UpdateView[]>;
  /** A listing's icon as a `data:` URL, fetched by the core under its rules; null when not shown. */
  registryIcon(url: string): Promise<string | null>;
  /** Moves a server to its registry's latest version through the native trust dialog; whether it
   *  was updated. */
  updateServer(name: string): Promise<boolean>;
  /** The native file picker for a .mcpb, and the chosen bundle's form; null when cancelled. */
  pickBundle(): Promise<BundleForm | null>;
  /** Installs the bundle `pickBundle` read (the window never names its path) through the native
   *  trust dialog; the local name it was installed under. `name` null: the bundle's own. */
  installBundle(name: string | null, values: Record<string, string>): Promise<string>;

  // Traffic: every JSON-RPC message to and from each server, kept in a bounded ring per server.
  /** The messages after `query.after` that match its filters, oldest first, at most `query.limit`
   *  (5,000 at most); pass the page's `last` as the next `after` to get what came since. With
   *  `query.session`, a kept session's messages instead of the live rings'. */
  traffic(query: TrafficQuery): Promise<TrafficPage>;
  /** The bodies of the messages numbered `seqs` that are still kept (the head only when
   *  truncated), live or in kept `session`. */
  trafficMessages(seqs: number[], session?: number | null): Promise<TrafficMessage[]>;
  /** How much each server's ring keeps. */
  trafficLimits(): Promise<TrafficLimits>;
  /** Changes how much each server's ring keeps (and saves it); out of bounds, it fails with
   *  `invalid_input` and a sentence to show. */
  setTrafficLimits(limits: TrafficLimits): Promise<void>;
  /** Asks where to save, then writes the messages numbered `seqs` (live, or of kept `session`)
   *  there as JSON Lines; null when the person cancels. */
  exportTraffic(seqs: number[], session?: number | null): Promise<TrafficExport | null>;
  /** Starts keeping every message to and from every server in SQLite, in a new session (fails
   *  with `invalid_input` while one is kept). */
  keepTraffic(): Promise<KeptSession>;
  /** Stops keeping; the session as it ended (null: none was kept). */
  stopKeepingTraffic(): Promise<KeptSession | null>;
  /** The kept sessions, newest first, and which one is being kept. */
  keptTrafficSessions(): Promise<KeptSessions>;
  /** Deletes a kept session (not the one being kept). */
  deleteKeptTraffic(session: number): Promise<void>;

  // The desktop
  /** Opens an https URL in the system browser (anything else is refused). */
  openExternal(url: string): Promise<void>;
  /** Asks where to save and writes the bytes there; null when the user cancels. */
  saveBytes(suggestedName: string, base64: string): Promise<string | null>;

  onCoreEvent(listener: (event: CoreEvent) => void): Promise<() => void>;
  /** The shell kept the window on the app when something sent it to `host`. */
  onNavigationRefused(listener: (host: string) => void): Promise<() => void>;
  /** The app was asked to open something from outside (a .mcpb file, an install link): shown in
   *  the Gallery, where nothing is installed until the person fills in the form and trusts it. */
  onOpened(listener: (opened: Opened) => void): Promise<() => void>;

  /**
   * Any command of the core's table, by name, typed by the generated `Commands`: a new command
   * is used through this without touching this interface, the Tauri adapter or the fake (which
   * refuses what it does not fake); it gets a method of its own once screens lean on it.
   */
  invoke<K extends keyof Commands>(name: K, args: Commands[K]["args"]): Promise<Commands[K]["result"]>;
}

/** Errors from the backend always carry a stable code. */
export function isBackendError(e: unknown): e is BackendError {
  return typeof e === "object" && e !== null && "code" in e && "message" in e;
}

/** A message for any rejection, preferring the backend's own. */
export function errorMessage(e: unknown): string {
  if (isBackendError(e)) return e.message;
  if (e instanceof Error) return e.message;
  return String(e);
}
