//! The requests the window (and the CLI) make of the [`App`](super::App): one argument type per
//! command, generated into the UI's bindings, so the shell only passes them through.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::approvals::{ModelChoice, Verdict};
use crate::config::ServerConfig;
use crate::providers::Sensitive;
use crate::providers::settings::ProviderSettings;

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

/// Applies the import of the file the person chose and previewed; the window never names it
/// (the shell remembers what was picked in its native dialog).
/// Which file to preview: one of the files found in the usual places, or (`known` null) one
/// the person chooses in the native picker.
#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ImportFrom {
    pub known: Option<String>,
}

#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ImportApply {
    /// Values for the plan's inputs, by input id.
    pub inputs: HashMap<String, String>,
    /// The previewed plan's `sourceDigest`: a file changed since the preview is not imported.
    pub source_digest: String,
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

/// One task of one server.
#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TaskRef {
    pub server: String,
    pub task_id: String,
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

/// A tool switched on or off for the model.
#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SetToolEnabled {
    pub server: String,
    pub tool: String,
    pub enabled: bool,
}

/// What a server's tools not seen yet start as, for the model.
#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SetNewToolsEnabled {
    pub server: String,
    pub enabled: bool,
}

/// When the model searches for tools instead of being offered them all, and when the meter warns
/// (each absent: the default). Kept in the configuration file.
#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ContextLimits {
    /// Above how many tools the model gets `search_tools` instead of every definition.
    #[ts(type = "number | null")]
    pub tool_search_above: Option<usize>,
    /// Above what share of the model's context window (percent) the meter warns.
    pub tool_tokens_warn_percent: Option<u8>,
}

/// The model to count tool definitions for (absent: the first model of the first provider),
/// and the tool sets a conversation is limited to.
#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TokensFor {
    #[serde(default)]
    #[ts(optional)]
    pub model: Option<String>,
    /// A conversation's tool sets: what a turn offers is counted as it would be offered there.
    #[serde(default)]
    #[ts(optional)]
    pub tool_sets: Option<Vec<String>>,
}

/// A tool set, by name.
#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ToolSetName {
    pub name: String,
}

/// A skill of a server, by the URI of its `SKILL.md`.
#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SkillRef {
    pub server: String,
    pub uri: String,
}

/// One file of a skill: `skill` is the URI of its `SKILL.md`, `uri` the file's.
#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SkillFileRef {
    pub server: String,
    pub skill: String,
    pub uri: String,
}

/// A folder of a skill: its root when `uri` is null.
#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SkillFolderRef {
    pub server: String,
    pub skill: String,
    pub uri: Option<String>,
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

/// Where the audit log was exported, and how many entries it holds.
#[derive(Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AuditExport {
    pub path: String,
    pub entries: u32,
}

/// Sends a pending sampling request, as edited in its dialog, to several models side by side.
/// `id` and `digest` name the dialog as it was shown.
#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct CompareSampling {
    pub id: String,
    pub digest: String,
    /// The dialog's content as edited: `{provider, model, request}`.
    #[ts(type = "unknown")]
    pub content: Value,
    pub models: Vec<ModelChoice>,
}

/// Sends a past sampling request (an audit flow) to several models side by side.
#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ReplaySampling {
    pub flow: String,
    pub models: Vec<ModelChoice>,
}

/// Messages of the traffic screen, by sequence number.
#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TrafficSeqs {
    #[ts(type = "number[]")]
    pub seqs: Vec<u64>,
    /// A kept session's messages instead of the live rings'.
    #[serde(default)]
    #[ts(type = "number | null")]
    pub session: Option<i64>,
}

/// One kept traffic session.
#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct KeptSessionId {
    #[ts(type = "number")]
    pub session: i64,
}

/// Where the traffic export went and how many messages it holds.
#[derive(Debug, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TrafficExport {
    pub path: String,
    pub entries: u32,
}

/// Opens the view of `tool` on `server`, in its `ui://` resource `uri`.
#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct OpenAppView {
    pub server: String,
    pub tool: String,
    pub uri: String,
}

/// Names an open view.
#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ViewId {
    pub view_id: String,
}

/// A view's `tools/call`.
#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AppCallTool {
    pub view_id: String,
    pub name: String,
    #[ts(type = "Record<string, unknown>")]
    pub args: Value,
}

/// A view's `resources/read` (on its own server).
#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AppReadResource {
    pub view_id: String,
    pub uri: String,
}

/// A view's `ui/open-link`.
#[derive(Debug, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AppOpenLink {
    pub view_id: String,
    pub url: String,
}

/// A view's `ui/message` (its params), which the window shows before anything is sent.
#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AppMessage {
    pub view_id: String,
    #[ts(type = "unknown")]
    pub message: Value,
}

/// A view's `ui/update-model-context` (its params), which the window shows with the next message.
#[derive(Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AppUpdateContext {
    pub view_id: String,
    #[ts(type = "unknown")]
    pub context: Value,
}
