// The only module that imports Tauri: it adapts the Backend interface onto the shell's commands.
// `call` is typed by the generated command schema, so a renamed command or a changed argument is
// a type error here; a Rust test checks that this file invokes exactly the registered commands.
import { Channel, invoke } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import type { Backend } from "../backend";
import type { CallProgress } from "../bindings/CallProgress";
import type { Commands } from "../bindings/Commands";
import type { CoreEvent } from "../bindings/CoreEvent";
import type { Opened } from "../bindings/Opened";

// `channels` are the command's channel arguments (a channel travels beside `args`, not in it).
function call<K extends keyof Commands>(
  name: K,
  args: Commands[K]["args"],
  channels: Record<string, Channel<never>> = {},
): Promise<Commands[K]["result"]> {
  return invoke<Commands[K]["result"]>(name, { args, ...channels });
}

const none = {};

export const tauriBackend: Backend = {
  listServers: () => call("list_servers", none),
  startServer: async (server) => void (await call("start_server", { server })),
  stopServer: async (server) => void (await call("stop_server", { server })),
  restartServer: async (server) => void (await call("restart_server", { server })),
  signInServer: async (server) => void (await call("sign_in_server", { server })),
  cancelSignIn: async () => void (await call("cancel_sign_in", none)),
  signOutServer: async (server) => void (await call("sign_out_server", { server })),
  signInInfo: (server) => call("sign_in_info", { server }),
  saveServer: async (name, config, previousName) => void (await call("save_server", { name, config, previousName })),
  trustServer: (server) => call("trust_server", { server }),
  removeServer: async (server) => void (await call("remove_server", { server })),
  setServerEnabled: async (server, enabled) => void (await call("set_server_enabled", { server, enabled })),
  importCandidates: () => call("import_candidates", none),
  importPreview: (known) => call("import_preview", { known: known ?? null }),
  importApply: (inputs, sourceDigest) => call("import_apply", { inputs, sourceDigest }),
  setLogLevel: async (server, level) => void (await call("set_log_level", { server, level })),
  configPath: () => call("config_path", none),
  keychainProblem: () => call("keychain_problem", none),

  listTools: (server) => call("list_tools", { server }),
  callTool: (server, name, args, callId, onProgress) => {
    const channel = new Channel<CallProgress>();
    channel.onmessage = onProgress;
    return call("call_tool", { server, name, args, callId }, { onProgress: channel as Channel<never> });
  },
  cancelCall: async (callId) => void (await call("cancel_call", { callId })),
  listTasks: () => call("list_tasks", none),
  cancelTask: async (server, taskId) => void (await call("cancel_task", { server, taskId })),

  listResourcesPage: (server, cursor) => call("list_resources_page", { server, cursor }),
  listResourceTemplates: (server) => call("list_resource_templates", { server }),
  readResource: (server, uri) => call("read_resource", { server, uri }),
  subscribeResource: async (server, uri) => void (await call("subscribe_resource", { server, uri })),
  unsubscribeResource: async (server, uri) => void (await call("unsubscribe_resource", { server, uri })),

  listPrompts: (server) => call("list_prompts", { server }),
  getPrompt: (server, name, args) => call("get_prompt", { server, name, args }),
  complete: async (server, target, argument, value, context) =>
    (await call("complete", { server, target, argument, value, context })).completion,

  listSkills: (server) => call("list_skills", { server }),
  loadSkill: (server, uri) => call("load_skill", { server, uri }),
  readSkillFile: (server, skill, uri) => call("read_skill_file", { server, skill, uri }),
  skillFolder: (server, skill, uri) => call("skill_folder", { server, skill, uri }),

  getRoots: () => call("get_roots", none),
  setRoots: async (server, paths) => void (await call("set_roots", { server, paths })),
  pickFolder: () => call("pick_folder", none),
  pickFile: () => call("pick_file", none),

  pendingReviews: () => call("pending_reviews", none),
  decideReview: async (id, digest, verdict) => void (await call("decide_review", { id, digest, verdict })),
  listPolicies: () => call("list_policies", none),
  setPolicy: async (entry) => void (await call("set_policy", entry)),
  removePolicy: async (entry) => void (await call("remove_policy", entry)),
  compareSampling: (args) => call("compare_sampling", args),
  replaySampling: (args) => call("replay_sampling", args),
  searchAudit: (query) => call("search_audit", query),
  exportAudit: (query) => call("export_audit", query),
  reviewPins: (server) => call("review_pins", { server }),
  withheldTools: () => call("withheld_tools", none),
  approvePins: (server, items) => call("approve_pins", { server, items }),
  toolSwitches: () => call("tool_switches", none),
  setToolEnabled: async (server, tool, enabled) => void (await call("set_tool_enabled", { server, tool, enabled })),
  setNewToolsEnabled: async (server, enabled) => void (await call("set_new_tools_enabled", { server, enabled })),
  saveToolSet: async (set) => void (await call("save_tool_set", set)),
  deleteToolSet: async (name) => void (await call("delete_tool_set", { name })),
  setContextLimits: async (limits) =>
    void (await call("set_context_limits", { toolSearchAbove: limits.toolSearchAbove, toolTokensWarnPercent: limits.toolTokensWarnPercent })),
  toolTokens: (args) => call("tool_tokens", args),

  listProviders: () => call("list_providers", none),
  saveProvider: async (settings, apiKey) => void (await call("save_provider", { settings, apiKey })),
  removeProvider: async (id) => void (await call("remove_provider", { id })),
  providerModels: (id) => call("provider_models", { id }),

  listConversations: () => call("list_conversations", none),
  getConversation: (id) => call("get_conversation", { id }),
  newConversation: (title, provider, model) => call("new_conversation", { title, provider, model }),
  updateConversation: async (conversation) => void (await call("update_conversation", conversation)),
  deleteConversation: async (id) => void (await call("delete_conversation", { id })),
  sendMessage: async (conversation, messages) => void (await call("send_message", { conversation, messages })),
  cancelTurn: async (conversation) => void (await call("cancel_turn", { id: conversation })),

  openAppView: (server, tool, uri) => call("open_app_view", { server, tool, uri }),
  closeAppView: async (viewId) => void (await call("close_app_view", { viewId })),
  appCallTool: (viewId, name, args) => call("app_call_tool", { viewId, name, args }),
  appReadResource: (viewId, uri) => call("app_read_resource", { viewId, uri }),
  appOpenLink: async (viewId, url) => void (await call("app_open_link", { viewId, url })),
  appMessage: async (viewId, message) => void (await call("app_message", { viewId, message: { ...message } })),
  appUpdateContext: async (viewId, context) => void (await call("app_update_context", { viewId, context: { ...context } })),

  registries: () => call("registries", none),
  registrySettings: () => call("registry_settings", none),
  setRegistries: (registries) => call("set_registries", { registries }),
  registrySearch: (query) => call("registry_search", query),
  registryCached: (query) => call("registry_cached", query),
  registryRefresh: (query) => call("registry_refresh", query),
  installForm: (server) => call("install_form", server),
  registryVersions: (server) => call("registry_versions", server),
  installServer: (request) => call("install_server", request),
  uninstallServer: async (server) => void (await call("uninstall_server", { server })),
  checkUpdates: () => call("check_updates", none),
  registryIcon: (url) => call("registry_icon", { url }),
  updateServer: (server) => call("update_server", { server }),
  pickBundle: () => call("pick_bundle", none),
  installBundle: (name, values) => call("install_bundle", { name, values }),

  traffic: (query) => call("traffic", query),
  trafficMessages: (seqs, session = null) => call("traffic_messages", { seqs, session }),
  trafficLimits: () => call("traffic_limits", none),
  setTrafficLimits: async (limits) =>
    void (await call("set_traffic_limits", {
      maxMessages: limits.maxMessages,
      maxBytes: limits.maxBytes,
      maxMessageBytes: limits.maxMessageBytes,
    })),
  exportTraffic: (seqs, session = null) => call("export_traffic", { seqs, session }),
  keepTraffic: () => call("keep_traffic", none),
  stopKeepingTraffic: () => call("stop_keeping_traffic", none),
  keptTrafficSessions: () => call("kept_traffic_sessions", none),
  deleteKeptTraffic: async (session) => void (await call("delete_kept_traffic", { session })),

  openExternal: async (url) => void (await call("open_external", { url })),
  saveBytes: (suggestedName, base64) => call("save_bytes", { suggestedName, base64 }),

  // State changes ("core-event") and streams ("core-stream") arrive on two window events so a
  // flood of tokens cannot crowd out a state change; the screens take both through one listener.
  onCoreEvent: async (listener) => {
    const stops = await Promise.all(
      ["core-event", "core-stream"].map((name) => listen<CoreEvent>(name, (e) => listener(e.payload))),
    );
    return () => stops.forEach((stop) => stop());
  },
  onNavigationRefused: (listener) => listen<string>("navigation-refused", (e) => listener(e.payload)),
  onOpened: (listener) => listen<Opened>("opened", (e) => listener(e.payload)),
  invoke: (name, args) => call(name, args),
};
