//! What happens in a conversation, and the message type those events carry. Emitted by chat turns.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::error::Error;

/// One message: `user` or `assistant`, with sampling content blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ChatMessage {
    #[ts(type = "number")]
    pub id: i64,
    pub role: String,
    /// An array of content blocks.
    #[ts(type = "unknown[]")]
    pub content: Value,
    #[ts(type = "number")]
    pub at_ms: i64,
}

/// Something that happened in a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[ts(export)]
pub enum ChatEvent {
    /// A piece of the chat model's answer as it streams (a stream).
    ChatText { conversation: String, text: String },
    /// A message was added to a conversation.
    ChatMessage {
        conversation: String,
        message: ChatMessage,
    },
    /// A chat turn ended, with its error if it failed.
    ChatDone {
        conversation: String,
        error: Option<Error>,
    },
}

impl ChatEvent {
    /// Streamed text is a stream; messages and the end of a turn are state.
    pub fn is_stream(&self) -> bool {
        matches!(self, ChatEvent::ChatText { .. })
    }
}
