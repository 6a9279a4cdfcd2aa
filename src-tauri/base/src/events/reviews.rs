//! What happens in the review queue: the number of reviews waiting changed, or a sampling answer
//! under review streamed more text. Emitted by the desktop's review queue.

use serde::Serialize;
use ts_rs::TS;

/// Something that happened to the reviews waiting for the user.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[ts(export)]
pub enum ReviewEvent {
    /// The number of reviews waiting for the user changed (sampling, elicitation, tool calls).
    ReviewsChanged { pending: u32 },
    /// A piece of a sampling completion as it streams from the provider (a stream).
    SamplingText { flow: String, text: String },
    /// A piece of one column of a comparison of models as it streams (a stream).
    ComparedText {
        flow: String,
        column: u32,
        text: String,
    },
}

impl ReviewEvent {
    /// Streamed text is a stream; a queue change is state.
    pub fn is_stream(&self) -> bool {
        matches!(
            self,
            ReviewEvent::SamplingText { .. } | ReviewEvent::ComparedText { .. }
        )
    }
}
