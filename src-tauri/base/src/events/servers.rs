//! What happens on a server, and the derived status and handshake summary those events carry.
//! Emitted by the supervisor (status), the connection handler (logs, progress, list changes,
//! resource updates), the connection's task follower (task status) and the catalog keeper.

use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use super::tasks::TaskView;
use crate::error::Error;

/// Which list a server said has changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum ListKind {
    Tools,
    Resources,
    Prompts,
}

/// What the handshake told us about the server, as the UI and CLI show it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ServerSummary {
    pub protocol_version: String,
    /// The transport the connection uses: `stdio`, `streamable-http` or `sse` (what `auto`
    /// settled on, or what an in-process test pipe is: `memory`).
    pub transport: String,
    #[ts(type = "Record<string, unknown> | null")]
    pub server_info: Value,
    #[ts(type = "Record<string, unknown>")]
    pub capabilities: Value,
    pub instructions: Option<String>,
}

/// What the UI and CLI see of a server: derived from the supervisor's state.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(
    tag = "state",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[ts(export)]
pub enum ServerStatus {
    /// Configured but disabled.
    Disabled,
    /// Not running (never started or stopped by the user).
    Stopped,
    /// Not started: its launch definition is new or changed, and waits for the user's trust.
    NeedsTrust,
    /// Spawning or handshaking; `attempt` is 0 for a first start.
    Starting { attempt: u32 },
    /// Connected.
    Running { summary: ServerSummary },
    /// The connection is being shut down (stop, restart, replace); it takes no new requests.
    Stopping,
    /// Waiting to restart after a failure.
    Restarting {
        attempt: u32,
        #[ts(type = "number")]
        retry_in_ms: u64,
        error: Error,
    },
    /// Gave up (or failed on a start the user asked for); `error` says why.
    Failed { error: Error },
    /// Its entry in the configuration file is not valid, so it does not run; `error` says why.
    Invalid { error: Error },
}

/// Something that happened on a server.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[ts(export)]
pub enum ServerEvent {
    /// A server's derived status changed.
    Status {
        server: String,
        status: ServerStatus,
    },
    /// `notifications/message` from a server (a stream).
    Log {
        server: String,
        level: String,
        logger: Option<String>,
        #[ts(type = "unknown")]
        data: Value,
    },
    /// `notifications/{tools,resources,prompts}/list_changed`.
    ListChanged { server: String, list: ListKind },
    /// `notifications/progress` for a request in flight (a stream).
    Progress {
        server: String,
        /// The window's id of the call it belongs to, if the call was given one.
        call_id: Option<String>,
        #[ts(type = "string | number")]
        progress_token: Value,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    /// `notifications/resources/updated` for a subscribed resource.
    ResourceUpdated { server: String, uri: String },
    /// A task the server runs for the host changed status (or ended, with its result).
    Task { server: String, task: TaskView },
    /// The configuration file was read again after a change on disk; `error` says why it cannot
    /// be used, while it cannot (the servers then go on as they were).
    ConfigChanged { error: Option<Error> },
    /// The OS keychain turned out to be missing or locked: what needs it (saving keys, keeping
    /// sign-ins) does not work until it is fixed; `error` says why and how.
    KeychainProblem { error: Error },
    /// The server's cached tools, prompts and templates were fetched again: after it connected
    /// (`list` is null) or after it said `list` changed.
    CatalogUpdated {
        server: String,
        list: Option<ListKind>,
        #[ts(type = "number")]
        revision: u64,
    },
}

impl ServerEvent {
    /// Logs and progress are streams; the rest change state.
    pub fn is_stream(&self) -> bool {
        matches!(self, ServerEvent::Log { .. } | ServerEvent::Progress { .. })
    }
}
