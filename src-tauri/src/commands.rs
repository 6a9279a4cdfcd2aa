//! Tauri commands: each is a short adapter onto the core. Every command takes one argument struct
//! (generated into the UI's bindings) and fails with the core's `{code, message}` error. The
//! [`commands!`] table registers them and describes them for `ui/src/bindings/Commands.ts` in one
//! place, so the two cannot drift apart.

use std::collections::HashMap;
use std::path::PathBuf;

use base64::Engine as _;
use rmcp::model::{
    CallToolResult, CompleteResult, GetPromptResult, ListResourcesResult, Prompt,
    ReadResourceResult, ResourceTemplate, Tool,
};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use switchboard_core::approvals::Review;
use switchboard_core::approvals::Verdict;
use switchboard_core::approvals::policy::PolicyEntry;
use switchboard_core::audit::{AuditEntry, AuditQuery};
use switchboard_core::chat::{BroadcastTurn, Conversation, ConversationView, run_turn};
use switchboard_core::config::ServerConfig;
use switchboard_core::config::import::{ImportPlan, ImportReport};
use switchboard_core::connection::CompletionRef;
use switchboard_core::events::HostEvent;
use switchboard_core::host::RootsView;
use switchboard_core::pins::{self, PinItem};
use switchboard_core::providers::Sensitive;
use switchboard_core::providers::settings::ProviderSettings;
use switchboard_core::servers::ServerView;
use switchboard_core::{Error, ErrorCode};
use tauri::ipc::Channel;
use tauri::{AppHandle, State};
use tauri_plugin_dialog::DialogExt;
use tauri_plugin_opener::OpenerExt;
use tokio::sync::broadcast;
use ts_rs::TS;

use crate::AppState;

type Result<T> = std::result::Result<T, Error>;

/// Registers the commands and lists them with their argument type and the TypeScript type of
/// their result (a binding or an MCP type from `ui/src/mcp.ts`).
macro_rules! commands {
    ($($name:ident($args:ty) -> $result:literal;)*) => {
        /// The command handler registered with the app.
        pub fn handler() -> impl Fn(tauri::ipc::Invoke) -> bool + Send + Sync + 'static {
            tauri::generate_handler![$($name),*]
        }

        /// Every registered command: name, argument type, result type (TypeScript).
        #[cfg(test)]
        pub fn schema() -> Vec<(&'static str, String, &'static str)> {
            vec![$((stringify!($name), <$args as TS>::name(&ts_rs::Config::default()), $result)),*]
        }
    };
}

commands! {
    list_servers(NoArgs) -> "ServerView[]";
    start_server(ServerName) -> "null";
    stop_server(ServerName) -> "null";
    restart_server(ServerName) -> "null";
    save_server(SaveServer) -> "null";
    remove_server(ServerName) -> "null";
    set_server_enabled(SetEnabled) -> "null";
    import_preview(FilePath) -> "ImportPlan";
    import_apply(ImportApply) -> "ImportReport";
    set_log_level(SetLogLevel) -> "null";
    config_path(NoArgs) -> "string";
    list_tools(ServerName) -> "Mcp.Tool[]";
    call_tool(CallTool) -> "Mcp.CallToolResult";
    cancel_call(CallId) -> "null";
    list_resources_page(ResourcesPage) -> "Mcp.ListResourcesResult";
    list_resource_templates(ServerName) -> "Mcp.ResourceTemplate[]";
    read_resource(ResourceUri) -> "Mcp.ReadResourceResult";
    subscribe_resource(ResourceUri) -> "null";
    unsubscribe_resource(ResourceUri) -> "null";
    list_prompts(ServerName) -> "Mcp.Prompt[]";
    get_prompt(GetPrompt) -> "Mcp.GetPromptResult";
    complete(Complete) -> "{ completion: Mcp.Completion }";
    get_roots(NoArgs) -> "RootsView";
    set_roots(SetRoots) -> "null";
    pick_folder(NoArgs) -> "string | null";
    pick_file(NoArgs) -> "string | null";
    open_external(Url) -> "null";
    save_bytes(SaveBytes) -> "string | null";
    pending_reviews(NoArgs) -> "Review[]";
    decide_review(DecideReview) -> "null";
    list_policies(NoArgs) -> "PolicyEntry[]";
    set_policy(PolicyEntry) -> "null";
    remove_policy(PolicyEntry) -> "null";
    search_audit(AuditQuery) -> "AuditEntry[]";
    export_audit(NoArgs) -> "AuditExport | null";
    list_providers(NoArgs) -> "ProviderSettings[]";
    save_provider(SaveProvider) -> "null";
    remove_provider(ProviderId) -> "null";
    provider_models(ProviderId) -> "string[]";
    review_pins(ServerName) -> "PinItem[]";
    approve_pins(ApprovePins) -> "number";
    list_conversations(NoArgs) -> "Conversation[]";
    get_conversation(ConversationId) -> "ConversationView";
    new_conversation(NewConversation) -> "Conversation";
    update_conversation(Conversation) -> "null";
    delete_conversation(ConversationId) -> "null";
    send_message(SendMessage) -> "null";
    cancel_turn(ConversationId) -> "null";
}

/// For commands without arguments.
#[derive(Debug, Deserialize, TS)]
#[ts(export)]
pub struct NoArgs {}

#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ServerName {
    pub server: String,
}

#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SaveServer {
    pub name: String,
    pub config: ServerConfig,
    /// The server being edited (possibly renamed), or null to add one.
    pub previous_name: Option<String>,
}

#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SetEnabled {
    pub server: String,
    pub enabled: bool,
}

#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct FilePath {
    pub path: String,
}

#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ImportApply {
    pub path: String,
    /// Values for the plan's inputs, by input id.
    pub inputs: HashMap<String, String>,
}

#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SetLogLevel {
    pub server: String,
    pub level: String,
}

#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct CallTool {
    pub server: String,
    pub name: String,
    #[ts(type = "Record<string, unknown>")]
    pub args: Value,
    pub call_id: String,
}

/// One `notifications/progress` of a call in flight.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct CallProgress {
    pub progress: f64,
    pub total: Option<f64>,
    pub message: Option<String>,
}

#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct CallId {
    pub call_id: String,
}

#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ResourcesPage {
    pub server: String,
    pub cursor: Option<String>,
}

#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ResourceUri {
    pub server: String,
    pub uri: String,
}

#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct GetPrompt {
    pub server: String,
    pub name: String,
    pub args: HashMap<String, String>,
}

/// What `completion/complete` completes, as the spec writes a reference.
#[derive(Debug, Deserialize, TS)]
#[serde(tag = "type")]
#[ts(export)]
pub enum CompletionTarget {
    #[serde(rename = "ref/prompt")]
    Prompt { name: String },
    #[serde(rename = "ref/resource")]
    Resource { uri: String },
}

#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Complete {
    pub server: String,
    pub target: CompletionTarget,
    pub argument: String,
    pub value: String,
    /// Values of the other arguments already filled in.
    pub context: HashMap<String, String>,
}

#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SetRoots {
    /// Null for the global roots.
    pub server: Option<String>,
    /// Null to make the server use the global roots again.
    pub paths: Option<Vec<String>>,
}

#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Url {
    pub url: String,
}

#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SaveBytes {
    pub suggested_name: String,
    pub base64: String,
}

/// A decision on a pending review: its id, the digest of what was shown, and the verdict.
#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct DecideReview {
    pub id: String,
    pub digest: String,
    pub verdict: Verdict,
}

#[tauri::command]
fn pending_reviews(state: State<'_, AppState>, _args: NoArgs) -> Result<Vec<Review>> {
    state.reviews.pending()
}

#[tauri::command]
fn decide_review(state: State<'_, AppState>, args: DecideReview) -> Result<()> {
    state.reviews.decide(&args.id, &args.digest, args.verdict)
}

#[tauri::command]
fn list_policies(state: State<'_, AppState>, _args: NoArgs) -> Result<Vec<PolicyEntry>> {
    state.door.policies().list()
}

#[tauri::command]
fn set_policy(state: State<'_, AppState>, args: PolicyEntry) -> Result<()> {
    state.door.policies().set(&args)
}

#[tauri::command]
fn remove_policy(state: State<'_, AppState>, args: PolicyEntry) -> Result<()> {
    state.door.policies().remove(&args)
}

#[tauri::command]
fn search_audit(state: State<'_, AppState>, args: AuditQuery) -> Result<Vec<AuditEntry>> {
    state.door.audit().search(&args)
}

/// A provider to add or replace, with a new API key (null keeps the stored one).
#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SaveProvider {
    pub settings: ProviderSettings,
    #[ts(type = "string | null")]
    pub api_key: Option<Sensitive>,
}

#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ProviderId {
    pub id: String,
}

#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ConversationId {
    pub id: String,
}

#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct NewConversation {
    pub title: String,
    pub provider: String,
    pub model: String,
}

/// Messages to add to a conversation (the user's, or a prompt's), then the model's turn.
#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SendMessage {
    pub conversation: String,
    pub messages: Vec<NewMessage>,
}

#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct NewMessage {
    /// `user` or `assistant`.
    pub role: String,
    /// Content blocks (text, image, audio, resource).
    #[ts(type = "unknown[]")]
    pub content: Value,
}

#[tauri::command]
fn list_conversations(state: State<'_, AppState>, _args: NoArgs) -> Result<Vec<Conversation>> {
    state.chats.list()
}

#[tauri::command]
fn get_conversation(state: State<'_, AppState>, args: ConversationId) -> Result<ConversationView> {
    state.chats.get(&args.id)
}

#[tauri::command]
fn new_conversation(state: State<'_, AppState>, args: NewConversation) -> Result<Conversation> {
    state.chats.create(&args.title, &args.provider, &args.model)
}

#[tauri::command]
fn update_conversation(state: State<'_, AppState>, args: Conversation) -> Result<()> {
    state.chats.update(&args)
}

#[tauri::command]
fn delete_conversation(state: State<'_, AppState>, args: ConversationId) -> Result<()> {
    cancel(&state, &args.id);
    state.chats.delete(&args.id)
}

fn cancel(state: &AppState, conversation: &str) -> bool {
    let handle = state
        .turns
        .lock()
        .ok()
        .and_then(|mut t| t.remove(conversation));
    handle.map(|h| h.abort()).is_some()
}

#[tauri::command]
async fn send_message(state: State<'_, AppState>, args: SendMessage) -> Result<()> {
    if args.messages.is_empty()
        || args
            .messages
            .iter()
            .any(|m| m.role != "user" && m.role != "assistant")
    {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            "send one or more messages with the role user or assistant",
        ));
    }
    let id = args.conversation;
    let view = state.chats.get(&id)?;
    if state
        .turns
        .lock()
        .is_ok_and(|t| t.get(&id).is_some_and(|h| !h.is_finished()))
    {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            "the model is still answering in this conversation",
        ));
    }
    let provider = state.providers.provider(&view.conversation.provider)?;
    let events = state.host.events().clone();
    let mut last_role = String::new();
    for m in args.messages {
        let message = state.chats.append(&id, &m.role, m.content)?;
        last_role = message.role.clone();
        let _ = events.send(HostEvent::ChatMessage {
            conversation: id.clone(),
            message,
        });
    }
    if last_role != "user" {
        let _ = events.send(HostEvent::ChatDone {
            conversation: id,
            error: None,
        });
        return Ok(());
    }
    let (chats, door, host) = (state.chats.clone(), state.door.clone(), state.host.clone());
    let task_id = id.clone();
    let task = tokio::spawn(async move {
        let mut report = BroadcastTurn {
            conversation: task_id.clone(),
            events: events.clone(),
        };
        let result = run_turn(&chats, &door, &provider, &host, &task_id, &mut report).await;
        let _ = events.send(HostEvent::ChatDone {
            conversation: task_id,
            error: result.err(),
        });
    });
    if let Ok(mut turns) = state.turns.lock() {
        turns.retain(|_, h| !h.is_finished());
        turns.insert(id, task.abort_handle());
    }
    Ok(())
}

#[tauri::command]
fn cancel_turn(state: State<'_, AppState>, args: ConversationId) -> Result<()> {
    if cancel(&state, &args.id) {
        let _ = state.host.events().send(HostEvent::ChatDone {
            conversation: args.id,
            error: Some(Error::new(ErrorCode::Cancelled, "you stopped the answer")),
        });
    }
    Ok(())
}

/// Reviewed tool definitions (and instructions) to pin: each item with the digest shown.
#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ApprovePins {
    pub server: String,
    pub items: Vec<PinChoice>,
}

#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct PinChoice {
    /// `tool:<name>` or `instructions`.
    pub item: String,
    pub digest: String,
}

/// What a running server offers now, as it gets pinned: its tools and its instructions.
async fn offered_definitions(state: &AppState, server: &str) -> Result<Vec<(String, Value)>> {
    let handle = state.host.servers().get(server)?;
    let connection = handle.connection()?;
    let tools = match handle.catalog() {
        Some(catalog) => catalog.tools.clone(),
        None => connection.list_tools().await?,
    };
    let tools: Vec<Value> = tools
        .iter()
        .filter_map(|t| serde_json::to_value(t).ok())
        .collect();
    let instructions = connection.summary().instructions.clone();
    Ok(pins::definitions(instructions.as_deref(), &tools))
}

#[tauri::command]
async fn review_pins(state: State<'_, AppState>, args: ServerName) -> Result<Vec<PinItem>> {
    let defs = offered_definitions(&state, &args.server).await?;
    state.door.pins().review(&args.server, &defs)
}

#[tauri::command]
async fn approve_pins(state: State<'_, AppState>, args: ApprovePins) -> Result<usize> {
    let defs = offered_definitions(&state, &args.server).await?;
    let approved: Vec<(String, String)> =
        args.items.into_iter().map(|c| (c.item, c.digest)).collect();
    state.door.approve_pins(&args.server, &defs, &approved)
}

// Provider commands are async: the keychain may block on D-Bus, never on the UI thread.
#[tauri::command]
async fn list_providers(
    state: State<'_, AppState>,
    _args: NoArgs,
) -> Result<Vec<ProviderSettings>> {
    state.providers.list()
}

#[tauri::command]
async fn save_provider(state: State<'_, AppState>, args: SaveProvider) -> Result<()> {
    state
        .providers
        .save(&args.settings, args.api_key.as_ref())?;
    state.door.sampler().set_models(state.providers.models()?);
    Ok(())
}

#[tauri::command]
async fn remove_provider(state: State<'_, AppState>, args: ProviderId) -> Result<()> {
    state.providers.remove(&args.id)?;
    state.door.sampler().set_models(state.providers.models()?);
    Ok(())
}

#[tauri::command]
async fn provider_models(state: State<'_, AppState>, args: ProviderId) -> Result<Vec<String>> {
    state.providers.provider(&args.id)?.models().await
}

#[tauri::command]
fn list_servers(state: State<'_, AppState>, _args: NoArgs) -> Result<Vec<ServerView>> {
    if let Some(e) = &state.config_error {
        return Err(e.clone());
    }
    state.host.views(200)
}

#[tauri::command]
async fn start_server(state: State<'_, AppState>, args: ServerName) -> Result<()> {
    state.host.servers().get(&args.server)?.start().await
}

#[tauri::command]
async fn stop_server(state: State<'_, AppState>, args: ServerName) -> Result<()> {
    state.host.servers().get(&args.server)?.stop().await
}

#[tauri::command]
async fn restart_server(state: State<'_, AppState>, args: ServerName) -> Result<()> {
    state.host.servers().get(&args.server)?.restart().await
}

#[tauri::command]
async fn save_server(state: State<'_, AppState>, args: SaveServer) -> Result<()> {
    state
        .host
        .save_server(&args.name, args.config, args.previous_name.as_deref())
        .await?;
    // A renamed server keeps what was decided for it (under the name as the host saved it).
    let name = args.name.trim();
    match args.previous_name.as_deref().map(str::trim) {
        Some(previous) if previous != name => state.door.rename_server(previous, name),
        _ => Ok(()),
    }
}

#[tauri::command]
async fn remove_server(state: State<'_, AppState>, args: ServerName) -> Result<()> {
    let removed = state.host.remove_server(&args.server).await;
    // Forgotten even if stopping it failed after it left the config: a server added later
    // under this name must not inherit its rules or pins.
    state.door.forget_server(&args.server)?;
    removed
}

#[tauri::command]
async fn set_server_enabled(state: State<'_, AppState>, args: SetEnabled) -> Result<()> {
    state.host.set_enabled(&args.server, args.enabled).await
}

#[tauri::command]
fn import_preview(state: State<'_, AppState>, args: FilePath) -> Result<ImportPlan> {
    state.host.import_preview(&PathBuf::from(args.path))
}

#[tauri::command]
async fn import_apply(state: State<'_, AppState>, args: ImportApply) -> Result<ImportReport> {
    state
        .host
        .import_apply(&PathBuf::from(args.path), &args.inputs)
        .await
}

#[tauri::command]
async fn set_log_level(state: State<'_, AppState>, args: SetLogLevel) -> Result<()> {
    connection(&state, &args.server)?
        .set_log_level(&args.level)
        .await
}

/// Where the config file lives, so the empty state can tell the user.
#[tauri::command]
fn config_path(state: State<'_, AppState>, _args: NoArgs) -> String {
    state.host.config_file().display().to_string()
}

#[tauri::command]
async fn list_tools(state: State<'_, AppState>, args: ServerName) -> Result<Vec<Tool>> {
    let handle = state.host.servers().get(&args.server)?;
    match handle.catalog() {
        Some(catalog) => Ok(catalog.tools.clone()),
        // Connected but the first fetch is still under way: ask the server directly.
        None => handle.connection()?.list_tools().await,
    }
}

/// Calls a tool, streaming its progress over the call's own channel (`onProgress`, beside `args`:
/// a channel is a command argument of its own, not a field). Progress notifications carry
/// rmcp's token, not ours, so a call sees its server's progress while it runs.
#[tauri::command]
async fn call_tool(
    state: State<'_, AppState>,
    args: CallTool,
    on_progress: Channel<CallProgress>,
) -> Result<CallToolResult> {
    let arguments = match args.args {
        Value::Null => None,
        other => Some(other),
    };
    let mut events = state.host.events().subscribe();
    let server = args.server.clone();
    let channel = on_progress;
    let forward = tokio::spawn(async move {
        loop {
            match events.recv().await {
                Ok(HostEvent::Progress {
                    server: from,
                    progress,
                    total,
                    message,
                    ..
                }) if from == server => {
                    let update = CallProgress {
                        progress,
                        total,
                        message,
                    };
                    if channel.send(update).is_err() {
                        return;
                    }
                }
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(broadcast::error::RecvError::Closed) => return,
            }
        }
    });
    // The user's own call: nobody is asked, but it is audited like every other.
    let flow = state
        .door
        .user_tool_call(&args.server, &args.name, arguments.as_ref());
    let result = state
        .host
        .call_tool(&args.server, &args.name, arguments, &args.call_id)
        .await;
    forward.abort();
    state.door.tool_call_finished(&flow, result.as_ref());
    result
}

#[tauri::command]
fn cancel_call(state: State<'_, AppState>, args: CallId) -> Result<()> {
    state.host.cancel_call(&args.call_id)
}

#[tauri::command]
async fn list_resources_page(
    state: State<'_, AppState>,
    args: ResourcesPage,
) -> Result<ListResourcesResult> {
    connection(&state, &args.server)?
        .list_resources_page(args.cursor)
        .await
}

#[tauri::command]
async fn list_resource_templates(
    state: State<'_, AppState>,
    args: ServerName,
) -> Result<Vec<ResourceTemplate>> {
    let handle = state.host.servers().get(&args.server)?;
    match handle.catalog() {
        Some(catalog) => Ok(catalog.templates.clone()),
        None => handle.connection()?.list_resource_templates().await,
    }
}

#[tauri::command]
async fn read_resource(
    state: State<'_, AppState>,
    args: ResourceUri,
) -> Result<ReadResourceResult> {
    connection(&state, &args.server)?
        .read_resource(&args.uri)
        .await
}

#[tauri::command]
async fn subscribe_resource(state: State<'_, AppState>, args: ResourceUri) -> Result<()> {
    connection(&state, &args.server)?.subscribe(&args.uri).await
}

#[tauri::command]
async fn unsubscribe_resource(state: State<'_, AppState>, args: ResourceUri) -> Result<()> {
    connection(&state, &args.server)?
        .unsubscribe(&args.uri)
        .await
}

#[tauri::command]
async fn list_prompts(state: State<'_, AppState>, args: ServerName) -> Result<Vec<Prompt>> {
    let handle = state.host.servers().get(&args.server)?;
    match handle.catalog() {
        Some(catalog) => Ok(catalog.prompts.clone()),
        None => handle.connection()?.list_prompts().await,
    }
}

#[tauri::command]
async fn get_prompt(state: State<'_, AppState>, args: GetPrompt) -> Result<GetPromptResult> {
    let arguments = serde_json::to_value(&args.args)
        .map_err(|e| Error::new(ErrorCode::InvalidInput, e.to_string()))?;
    connection(&state, &args.server)?
        .get_prompt(&args.name, Some(arguments))
        .await
}

#[tauri::command]
async fn complete(state: State<'_, AppState>, args: Complete) -> Result<CompleteResult> {
    let reference = match args.target {
        CompletionTarget::Prompt { name } => CompletionRef::Prompt(name),
        CompletionTarget::Resource { uri } => CompletionRef::Template(uri),
    };
    let context =
        (!args.context.is_empty()).then(|| serde_json::to_value(&args.context).unwrap_or_default());
    connection(&state, &args.server)?
        .complete(reference, &args.argument, &args.value, context)
        .await
}

#[tauri::command]
fn get_roots(state: State<'_, AppState>, _args: NoArgs) -> Result<RootsView> {
    state.host.roots()
}

#[tauri::command]
async fn set_roots(state: State<'_, AppState>, args: SetRoots) -> Result<()> {
    let paths = args
        .paths
        .map(|ps| ps.into_iter().map(PathBuf::from).collect());
    state.host.set_roots(args.server.as_deref(), paths).await
}

#[tauri::command]
async fn pick_folder(app: AppHandle, _args: NoArgs) -> Result<Option<String>> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    app.dialog().file().pick_folder(move |picked| {
        let _ = tx.send(picked);
    });
    picked_path(rx.await.ok().flatten())
}

#[tauri::command]
async fn pick_file(app: AppHandle, _args: NoArgs) -> Result<Option<String>> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    app.dialog()
        .file()
        .add_filter("MCP configuration", &["json", "jsonc"])
        .pick_file(move |picked| {
            let _ = tx.send(picked);
        });
    picked_path(rx.await.ok().flatten())
}

/// Opens an `https` URL in the system browser; anything else (file:, javascript:, custom
/// schemes a server might send) is refused.
#[tauri::command]
fn open_external(app: AppHandle, args: Url) -> Result<()> {
    let url = url::Url::parse(&args.url)
        .map_err(|e| Error::new(ErrorCode::InvalidInput, format!("not a URL: {e}")))?;
    if url.scheme() != "https" {
        return Err(Error::new(
            ErrorCode::Denied,
            format!(
                "only https links open in the browser, not {}:",
                url.scheme()
            ),
        ));
    }
    app.opener()
        .open_url(url.as_str(), None::<&str>)
        .map_err(|e| Error::new(ErrorCode::Io, format!("cannot open the browser: {e}")))
}

#[tauri::command]
async fn save_bytes(app: AppHandle, args: SaveBytes) -> Result<Option<String>> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(args.base64.as_bytes())
        .map_err(|e| Error::new(ErrorCode::InvalidInput, format!("not base64: {e}")))?;
    // Only a file name from the server, never a path: the user picks the folder.
    let name = std::path::Path::new(&args.suggested_name)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "resource.bin".into());
    let Some(path) = pick_save_path(&app, name).await? else {
        return Ok(None);
    };
    tokio::fs::write(&path, bytes)
        .await
        .map_err(|e| Error::new(ErrorCode::Io, format!("cannot write {path}: {e}")))?;
    Ok(Some(path))
}

/// Where the audit log was exported, and how many entries it holds.
#[derive(Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AuditExport {
    pub path: String,
    pub entries: u32,
}

/// Writes the whole audit log, oldest first, as JSON Lines to a file the user picks.
#[tauri::command]
async fn export_audit(
    app: AppHandle,
    state: State<'_, AppState>,
    _args: NoArgs,
) -> Result<Option<AuditExport>> {
    let Some(path) = pick_save_path(&app, "switchboard-audit.jsonl".into()).await? else {
        return Ok(None);
    };
    let audit = state.door.audit().clone();
    let target = path.clone();
    let entries = tokio::task::spawn_blocking(move || -> Result<usize> {
        let io =
            |e: std::io::Error| Error::new(ErrorCode::Io, format!("cannot write {target}: {e}"));
        let mut out = std::io::BufWriter::new(std::fs::File::create(&target).map_err(io)?);
        let n = audit.export_jsonl(&mut out)?;
        std::io::Write::flush(&mut out).map_err(io)?;
        Ok(n)
    })
    .await
    .map_err(|e| Error::new(ErrorCode::Internal, format!("export failed: {e}")))??;
    Ok(Some(AuditExport {
        path,
        entries: entries as u32,
    }))
}

/// Asks where to save a file named `name`; `None` when the person cancels.
async fn pick_save_path(app: &AppHandle, name: String) -> Result<Option<String>> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    app.dialog()
        .file()
        .set_file_name(name)
        .save_file(move |picked| {
            let _ = tx.send(picked);
        });
    picked_path(rx.await.ok().flatten())
}

fn picked_path(picked: Option<tauri_plugin_dialog::FilePath>) -> Result<Option<String>> {
    picked
        .map(|p| {
            p.into_path()
                .map(|p| p.display().to_string())
                .map_err(|e| Error::new(ErrorCode::Io, format!("unusable path: {e}")))
        })
        .transpose()
}

fn connection(
    state: &State<'_, AppState>,
    server: &str,
) -> Result<switchboard_core::connection::Connection> {
    state.host.servers().get(server)?.connection()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `ui/src/bindings/Commands.ts` (the typed schema of every registered command) and
    /// checks it against the TypeScript backend: the registered commands, the schema and the
    /// names `ui/src/backend/tauri.ts` invokes must be the same set.
    #[test]
    fn registered_commands_and_the_typed_schema_are_the_same_set() {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let bindings = root.join("ui/src/bindings");
        let schema = schema();
        let mut ts = String::from(
            "// Generated from src-tauri/src/commands.rs by `cargo test`. Do not edit.\n",
        );
        let mut imports: Vec<String> = schema
            .iter()
            .map(|(_, args, _)| args.clone())
            .chain(
                [
                    "ServerView",
                    "ImportPlan",
                    "ImportReport",
                    "RootsView",
                    "Review",
                    "PolicyEntry",
                    "AuditEntry",
                    "AuditExport",
                    "ProviderSettings",
                    "PinItem",
                    "Conversation",
                    "ConversationView",
                ]
                .iter()
                .map(|s| s.to_string()),
            )
            .collect();
        imports.sort();
        imports.dedup();
        ts.push_str("import type * as Mcp from \"../mcp\";\n");
        for name in &imports {
            ts.push_str(&format!("import type {{ {name} }} from \"./{name}\";\n"));
        }
        ts.push_str(
            "\n/** Every command the shell registers: its argument object and its result. */\n",
        );
        ts.push_str("export type Commands = {\n");
        for (name, args, result) in &schema {
            ts.push_str(&format!(
                "  {name}: {{ args: {args}; result: {result} }};\n"
            ));
        }
        ts.push_str(
            "};\n\n/** The names, for runtime checks. */\nexport const COMMAND_NAMES = [\n",
        );
        for (name, _, _) in &schema {
            ts.push_str(&format!("  \"{name}\",\n"));
        }
        ts.push_str("] as const satisfies readonly (keyof Commands)[];\n");
        std::fs::write(bindings.join("Commands.ts"), ts).unwrap();

        let registered: std::collections::BTreeSet<&str> =
            schema.iter().map(|(n, _, _)| *n).collect();
        assert_eq!(registered.len(), schema.len(), "a command is listed twice");
        let backend = std::fs::read_to_string(root.join("ui/src/backend/tauri.ts")).unwrap();
        let re = regex::Regex::new(r#"call\(\s*"([a-z_]+)""#).unwrap();
        let used: std::collections::BTreeSet<&str> = re
            .captures_iter(&backend)
            .filter_map(|c| c.get(1).map(|m| m.as_str()))
            .collect();
        assert_eq!(
            registered, used,
            "ui/src/backend/tauri.ts must invoke exactly the registered commands"
        );
    }
}
