//! The chat: conversations kept in the store, and turns in which the chosen model may call the
//! running servers' tools. Only tools the person approved (pinned) as they are now are offered,
//! without hidden characters ([`accepted`], [`ToolNames::request_tools`]); a turn reports the
//! rest ([`TurnEvents::withheld`]). Tools are offered under collision-free names
//! (`server__tool`); every call the model makes goes through the approval door
//! ([`Door::authorize_tool_call`]) with its arguments shown and editable, and its result (or
//! refusal) goes back to the model. Messages are MCP sampling JSON (text, image, audio,
//! `tool_use`, `tool_result` blocks), so the providers' own mappings serve the chat too. With the
//! manual provider the person writes the model's answers ([`Door::write_answer`]), so every flow
//! can be tried without a key.

mod partial;
pub mod search;
mod store;
pub mod tokens;
mod tools;
mod turn;

pub use crate::events::{ChatMessage, WithheldReason, WithheldTool};
pub use store::{Chats, Conversation, ConversationView};
#[cfg(test)]
pub(crate) use tools::MAX_TOOL_NAME;
pub use tools::{
    OfferedTool, SEARCH_LIMIT, ToolNames, ToolSource, accepted, chosen,
    search_tool as search_tool_definition,
};
#[cfg(test)]
pub(crate) use turn::STOPPED;
pub use turn::{
    BroadcastTurn, FOUND_TOOLS, MAX_STEPS, Reservation, SENT_ARGUMENTS, TurnEvents, Turns,
    run_turn, with_unanswered_calls_closed,
};

#[cfg(test)]
mod tests;
