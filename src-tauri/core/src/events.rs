//! Events the core publishes for the UI and the CLI: status changes, server log messages, list
//! changes, progress and resource updates. One broadcast channel; a slow listener loses old events
//! (it can always re-read the current state), it never slows the servers down.

use serde::Serialize;
use serde_json::Value;
use tokio::sync::broadcast;
use ts_rs::TS;

use crate::servers::ServerStatus;

/// Which list a server said has changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum ListKind {
    Tools,
    Resources,
    Prompts,
}

/// Something that happened on a server.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[ts(export)]
pub enum HostEvent {
    /// A server's derived status changed.
    Status {
        server: String,
        status: ServerStatus,
    },
    /// `notifications/message` from a server.
    Log {
        server: String,
        level: String,
        logger: Option<String>,
        #[ts(type = "unknown")]
        data: Value,
    },
    /// `notifications/{tools,resources,prompts}/list_changed`.
    ListChanged { server: String, list: ListKind },
    /// `notifications/progress` for a request in flight.
    Progress {
        server: String,
        #[ts(type = "string | number")]
        progress_token: Value,
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    /// `notifications/resources/updated` for a subscribed resource.
    ResourceUpdated { server: String, uri: String },
    /// The server's cached tools, prompts and templates were fetched again: after it connected
    /// (`list` is null) or after it said `list` changed.
    CatalogUpdated {
        server: String,
        list: Option<ListKind>,
        #[ts(type = "number")]
        revision: u64,
    },
    /// The number of reviews waiting for the user changed (sampling, elicitation, tool calls).
    ReviewsChanged { pending: u32 },
    /// A piece of a sampling completion as it streams from the provider.
    SamplingText { flow: String, text: String },
    /// A piece of the chat model's answer as it streams.
    ChatText { conversation: String, text: String },
    /// A message was added to a conversation.
    ChatMessage {
        conversation: String,
        message: crate::chat::ChatMessage,
    },
    /// A chat turn ended, with its error if it failed.
    ChatDone {
        conversation: String,
        error: Option<crate::error::Error>,
    },
}

/// The sending side, cloned into every server's handler.
pub type EventSender = broadcast::Sender<HostEvent>;

/// A new event channel with room for `capacity` undelivered events per listener.
pub fn channel(capacity: usize) -> EventSender {
    broadcast::channel(capacity).0
}
