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

/// Why the chat did not offer a tool to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum WithheldReason {
    /// The tool's definition was never approved.
    NotApproved,
    /// The tool's definition changed since it was approved.
    Changed,
    /// The server's instructions were never approved.
    InstructionsNotApproved,
    /// The server's instructions changed since they were approved.
    InstructionsChanged,
    /// The tool's name or the names in its input schema contain hidden characters.
    HiddenCharacters,
    /// A "deny" rule covers the tool (or its server): it is not offered, nor run from anywhere.
    Denied,
}

/// A tool of a running server that the model was not offered, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct WithheldTool {
    pub server: String,
    /// The tool's name as the server gives it (hidden characters included).
    pub tool: String,
    pub reason: WithheldReason,
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
    /// A turn began: the running servers' tools it did not offer the model (none when every
    /// one was approved as it is).
    ChatToolsWithheld {
        conversation: String,
        tools: Vec<WithheldTool>,
    },
    /// The arguments of a tool call the model is still writing (a stream): the call's place in
    /// the answer, the tool's name as offered to the model, and the arguments so far, cut back
    /// to what is complete and closed.
    ChatToolInput {
        conversation: String,
        index: usize,
        name: String,
        #[ts(type = "Record<string, unknown>")]
        arguments: Value,
    },
    /// The person approved the model's call `tool_use_id`, which goes out with `arguments`
    /// (edits included): what a view of the tool may be shown.
    ChatToolCall {
        conversation: String,
        tool_use_id: String,
        #[ts(type = "Record<string, unknown>")]
        arguments: Value,
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
        matches!(
            self,
            ChatEvent::ChatText { .. } | ChatEvent::ChatToolInput { .. }
        )
    }
}
