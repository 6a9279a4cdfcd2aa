// Generated from src-tauri/core/src/app/commands.rs by `cargo test`. Do not edit.
import type * as Mcp from "../mcp";
import type { AppCallTool } from "./AppCallTool";
import type { AppMessage } from "./AppMessage";
import type { AppOpenLink } from "./AppOpenLink";
import type { AppReadResource } from "./AppReadResource";
import type { AppUpdateContext } from "./AppUpdateContext";
import type { AppView } from "./AppView";
import type { ApprovePins } from "./ApprovePins";
import type { AuditEntry } from "./AuditEntry";
import type { AuditExport } from "./AuditExport";
import type { AuditQuery } from "./AuditQuery";
import type { BundleChoice } from "./BundleChoice";
import type { BundleForm } from "./BundleForm";
import type { CallId } from "./CallId";
import type { CallTool } from "./CallTool";
import type { CompareSampling } from "./CompareSampling";
import type { ComparedAnswer } from "./ComparedAnswer";
import type { Complete } from "./Complete";
import type { ContextLimits } from "./ContextLimits";
import type { Conversation } from "./Conversation";
import type { ConversationId } from "./ConversationId";
import type { ConversationView } from "./ConversationView";
import type { DecideReview } from "./DecideReview";
import type { DirectoryEntry } from "./DirectoryEntry";
import type { Error } from "./Error";
import type { GetPrompt } from "./GetPrompt";
import type { IconUrl } from "./IconUrl";
import type { ImportApply } from "./ImportApply";
import type { ImportCandidate } from "./ImportCandidate";
import type { ImportFrom } from "./ImportFrom";
import type { ImportPlan } from "./ImportPlan";
import type { ImportReport } from "./ImportReport";
import type { InstallForm } from "./InstallForm";
import type { InstallRequest } from "./InstallRequest";
import type { KeptSession } from "./KeptSession";
import type { KeptSessionId } from "./KeptSessionId";
import type { KeptSessions } from "./KeptSessions";
import type { NewConversation } from "./NewConversation";
import type { NoArgs } from "./NoArgs";
import type { OpenAppView } from "./OpenAppView";
import type { PinItem } from "./PinItem";
import type { PolicyEntry } from "./PolicyEntry";
import type { ProviderId } from "./ProviderId";
import type { ProviderSettings } from "./ProviderSettings";
import type { RegistryList } from "./RegistryList";
import type { RegistryListing } from "./RegistryListing";
import type { RegistryPage } from "./RegistryPage";
import type { RegistryRef } from "./RegistryRef";
import type { RegistrySearch } from "./RegistrySearch";
import type { RegistrySettings } from "./RegistrySettings";
import type { ReplaySampling } from "./ReplaySampling";
import type { ResourceUri } from "./ResourceUri";
import type { ResourcesPage } from "./ResourcesPage";
import type { Review } from "./Review";
import type { RootsView } from "./RootsView";
import type { SaveBytes } from "./SaveBytes";
import type { SaveProvider } from "./SaveProvider";
import type { SaveServer } from "./SaveServer";
import type { SendMessage } from "./SendMessage";
import type { ServerName } from "./ServerName";
import type { ServerView } from "./ServerView";
import type { SetEnabled } from "./SetEnabled";
import type { SetLogLevel } from "./SetLogLevel";
import type { SetNewToolsEnabled } from "./SetNewToolsEnabled";
import type { SetRoots } from "./SetRoots";
import type { SetToolEnabled } from "./SetToolEnabled";
import type { SignInInfo } from "./SignInInfo";
import type { Skill } from "./Skill";
import type { SkillFileRef } from "./SkillFileRef";
import type { SkillFolderRef } from "./SkillFolderRef";
import type { SkillForChat } from "./SkillForChat";
import type { SkillRef } from "./SkillRef";
import type { TaskRef } from "./TaskRef";
import type { TaskView } from "./TaskView";
import type { TokenMeter } from "./TokenMeter";
import type { TokensFor } from "./TokensFor";
import type { ToolSet } from "./ToolSet";
import type { ToolSetName } from "./ToolSetName";
import type { ToolSwitchesView } from "./ToolSwitchesView";
import type { TrafficExport } from "./TrafficExport";
import type { TrafficLimits } from "./TrafficLimits";
import type { TrafficMessage } from "./TrafficMessage";
import type { TrafficPage } from "./TrafficPage";
import type { TrafficQuery } from "./TrafficQuery";
import type { TrafficSeqs } from "./TrafficSeqs";
import type { UpdateView } from "./UpdateView";
import type { Url } from "./Url";
import type { ViewId } from "./ViewId";
import type { WithheldTool } from "./WithheldTool";

/** Every command the shell registers: its argument object and its result. */
export type Commands = {
  list_servers: { args: NoArgs; result: ServerView[] };
  start_server: { args: ServerName; result: null };
  stop_server: { args: ServerName; result: null };
  restart_server: { args: ServerName; result: null };
  sign_in_info: { args: ServerName; result: SignInInfo | null };
  remove_server: { args: ServerName; result: null };
  set_server_enabled: { args: SetEnabled; result: null };
  import_candidates: { args: NoArgs; result: ImportCandidate[] };
  set_log_level: { args: SetLogLevel; result: null };
  config_path: { args: NoArgs; result: string };
  keychain_problem: { args: NoArgs; result: Error | null };
  list_tools: { args: ServerName; result: Mcp.Tool[] };
  cancel_call: { args: CallId; result: null };
  list_tasks: { args: NoArgs; result: TaskView[] };
  cancel_task: { args: TaskRef; result: null };
  list_resources_page: { args: ResourcesPage; result: Mcp.ListResourcesResult };
  list_resource_templates: { args: ServerName; result: Mcp.ResourceTemplate[] };
  read_resource: { args: ResourceUri; result: Mcp.ReadResourceResult };
  subscribe_resource: { args: ResourceUri; result: null };
  unsubscribe_resource: { args: ResourceUri; result: null };
  list_prompts: { args: ServerName; result: Mcp.Prompt[] };
  get_prompt: { args: GetPrompt; result: Mcp.GetPromptResult };
  list_skills: { args: ServerName; result: Skill[] };
  load_skill: { args: SkillRef; result: SkillForChat };
  read_skill_file: { args: SkillFileRef; result: string };
  skill_folder: { args: SkillFolderRef; result: DirectoryEntry[] };
  complete: { args: Complete; result: { completion: Mcp.Completion } };
  get_roots: { args: NoArgs; result: RootsView };
  pending_reviews: { args: NoArgs; result: Review[] };
  decide_review: { args: DecideReview; result: null };
  list_policies: { args: NoArgs; result: PolicyEntry[] };
  set_policy: { args: PolicyEntry; result: null };
  remove_policy: { args: PolicyEntry; result: null };
  search_audit: { args: AuditQuery; result: AuditEntry[] };
  list_providers: { args: NoArgs; result: ProviderSettings[] };
  sandbox_server: { args: ServerName; result: null };
  save_provider: { args: SaveProvider; result: null };
  remove_provider: { args: ProviderId; result: null };
  provider_models: { args: ProviderId; result: string[] };
  review_pins: { args: ServerName; result: PinItem[] };
  withheld_tools: { args: NoArgs; result: WithheldTool[] };
  tool_switches: { args: NoArgs; result: ToolSwitchesView };
  tool_tokens: { args: TokensFor; result: TokenMeter };
  set_tool_enabled: { args: SetToolEnabled; result: null };
  set_new_tools_enabled: { args: SetNewToolsEnabled; result: null };
  set_context_limits: { args: ContextLimits; result: null };
  save_tool_set: { args: ToolSet; result: null };
  delete_tool_set: { args: ToolSetName; result: null };
  approve_pins: { args: ApprovePins; result: number };
  list_conversations: { args: NoArgs; result: Conversation[] };
  get_conversation: { args: ConversationId; result: ConversationView };
  new_conversation: { args: NewConversation; result: Conversation };
  update_conversation: { args: Conversation; result: null };
  delete_conversation: { args: ConversationId; result: null };
  send_message: { args: SendMessage; result: null };
  cancel_turn: { args: ConversationId; result: null };
  open_app_view: { args: OpenAppView; result: AppView };
  close_app_view: { args: ViewId; result: null };
  app_call_tool: { args: AppCallTool; result: Mcp.CallToolResult };
  app_read_resource: { args: AppReadResource; result: Mcp.ReadResourceResult };
  app_message: { args: AppMessage; result: null };
  app_update_context: { args: AppUpdateContext; result: null };
  registry_search: { args: RegistrySearch; result: RegistryPage };
  registry_cached: { args: RegistrySearch; result: RegistryPage };
  registry_refresh: { args: RegistrySearch; result: number };
  install_form: { args: RegistryRef; result: InstallForm };
  uninstall_server: { args: ServerName; result: null };
  check_updates: { args: NoArgs; result: UpdateView[] };
  registry_icon: { args: IconUrl; result: string | null };
  registries: { args: NoArgs; result: string[] };
  registry_settings: { args: NoArgs; result: RegistrySettings };
  set_registries: { args: RegistryList; result: RegistryList };
  registry_versions: { args: RegistryRef; result: RegistryListing[] };
  compare_sampling: { args: CompareSampling; result: ComparedAnswer[] };
  replay_sampling: { args: ReplaySampling; result: ComparedAnswer[] };
  traffic: { args: TrafficQuery; result: TrafficPage };
  traffic_messages: { args: TrafficSeqs; result: TrafficMessage[] };
  traffic_limits: { args: NoArgs; result: TrafficLimits };
  set_traffic_limits: { args: TrafficLimits; result: null };
  keep_traffic: { args: NoArgs; result: KeptSession };
  stop_keeping_traffic: { args: NoArgs; result: KeptSession | null };
  kept_traffic_sessions: { args: NoArgs; result: KeptSessions };
  delete_kept_traffic: { args: KeptSessionId; result: null };
  sign_in_server: { args: ServerName; result: null };
  cancel_sign_in: { args: NoArgs; result: null };
  sign_out_server: { args: ServerName; result: null };
  save_server: { args: SaveServer; result: null };
  trust_server: { args: ServerName; result: boolean };
  set_roots: { args: SetRoots; result: null };
  import_preview: { args: ImportFrom; result: ImportPlan | null };
  import_apply: { args: ImportApply; result: ImportReport };
  call_tool: { args: CallTool; result: Mcp.CallToolResult };
  pick_folder: { args: NoArgs; result: string | null };
  open_external: { args: Url; result: null };
  save_bytes: { args: SaveBytes; result: string | null };
  export_audit: { args: AuditQuery; result: AuditExport | null };
  app_open_link: { args: AppOpenLink; result: null };
  install_server: { args: InstallRequest; result: string };
  update_server: { args: ServerName; result: boolean };
  pick_bundle: { args: NoArgs; result: BundleForm | null };
  install_bundle: { args: BundleChoice; result: string };
  pick_file: { args: NoArgs; result: string | null };
  export_traffic: { args: TrafficSeqs; result: TrafficExport | null };
};

/** The names, for runtime checks. */
export const COMMAND_NAMES = [
  "list_servers",
  "start_server",
  "stop_server",
  "restart_server",
  "sign_in_info",
  "remove_server",
  "set_server_enabled",
  "import_candidates",
  "set_log_level",
  "config_path",
  "keychain_problem",
  "list_tools",
  "cancel_call",
  "list_tasks",
  "cancel_task",
  "list_resources_page",
  "list_resource_templates",
  "read_resource",
  "subscribe_resource",
  "unsubscribe_resource",
  "list_prompts",
  "get_prompt",
  "list_skills",
  "load_skill",
  "read_skill_file",
  "skill_folder",
  "complete",
  "get_roots",
  "pending_reviews",
  "decide_review",
  "list_policies",
  "set_policy",
  "remove_policy",
  "search_audit",
  "list_providers",
  "sandbox_server",
  "save_provider",
  "remove_provider",
  "provider_models",
  "review_pins",
  "withheld_tools",
  "tool_switches",
  "tool_tokens",
  "set_tool_enabled",
  "set_new_tools_enabled",
  "set_context_limits",
  "save_tool_set",
  "delete_tool_set",
  "approve_pins",
  "list_conversations",
  "get_conversation",
  "new_conversation",
  "update_conversation",
  "delete_conversation",
  "send_message",
  "cancel_turn",
  "open_app_view",
  "close_app_view",
  "app_call_tool",
  "app_read_resource",
  "app_message",
  "app_update_context",
  "registry_search",
  "registry_cached",
  "registry_refresh",
  "install_form",
  "uninstall_server",
  "check_updates",
  "registry_icon",
  "registries",
  "registry_settings",
  "set_registries",
  "registry_versions",
  "compare_sampling",
  "replay_sampling",
  "traffic",
  "traffic_messages",
  "traffic_limits",
  "set_traffic_limits",
  "keep_traffic",
  "stop_keeping_traffic",
  "kept_traffic_sessions",
  "delete_kept_traffic",
  "sign_in_server",
  "cancel_sign_in",
  "sign_out_server",
  "save_server",
  "trust_server",
  "set_roots",
  "import_preview",
  "import_apply",
  "call_tool",
  "pick_folder",
  "open_external",
  "save_bytes",
  "export_audit",
  "app_open_link",
  "install_server",
  "update_server",
  "pick_bundle",
  "install_bundle",
  "pick_file",
  "export_traffic",
] as const satisfies readonly (keyof Commands)[];
