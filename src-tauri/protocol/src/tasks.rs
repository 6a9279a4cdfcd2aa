//! MCP tasks (2025-11-25 SEP-1686 and the 2026-07-28 `io.modelcontextprotocol/tasks` extension,
//! SEP-2663) as the host sees them: the [`TaskView`] of one task the window and the CLI follow,
//! its states (the protocol's five plus [`TaskState::Lost`] for a task whose connection ended),
//! how often a task is polled, and how much of a result is kept. The wire forms of both eras live
//! in [`wire`]; following a task on a connection lives in `connection/task_call.rs`; what is kept
//! of tasks across reloads in [`log`]; the tasks a server has the client run in [`client`].

pub mod client;
pub mod log;
pub mod wire;

use std::time::Duration;

use serde_json::Value;

pub use crate::events::{TaskState, TaskView};

/// The shortest wait between two polls of a task, whatever the server suggests.
pub const MIN_POLL: Duration = Duration::from_millis(250);

/// The longest wait between two polls when the server suggests none (the backoff's cap).
pub const MAX_DEFAULT_POLL: Duration = Duration::from_secs(3);

/// The longest wait between two polls even when the server suggests more.
pub const MAX_POLL: Duration = Duration::from_secs(30);

/// The most bytes (as JSON) of a task's result or error that are kept and broadcast.
pub const MAX_RESULT_BYTES: usize = 64 * 1024;

/// The time-to-live the host asks for when it creates a task on a server: one hour.
pub const REQUESTED_TTL_MS: u64 = 60 * 60 * 1000;

/// How long to wait before the next poll of a task: the server's `pollInterval` when it gives
/// one (never under [`MIN_POLL`] nor over [`MAX_POLL`]); otherwise a backoff from [`MIN_POLL`],
/// doubling with each poll up to [`MAX_DEFAULT_POLL`].
#[derive(Debug, Default)]
pub struct PollSchedule {
    polls: u32,
}

impl PollSchedule {
    /// The wait before the next poll, given the interval the server last suggested (ms).
    pub fn next(&mut self, suggested_ms: Option<u64>) -> Duration {
        self.polls = self.polls.saturating_add(1);
        match suggested_ms {
            Some(ms) => Duration::from_millis(ms).clamp(MIN_POLL, MAX_POLL),
            None => {
                let doubled = MIN_POLL.saturating_mul(1 << (self.polls - 1).min(8));
                doubled.min(MAX_DEFAULT_POLL)
            }
        }
    }
}

/// `value` when its JSON fits in [`MAX_RESULT_BYTES`]; otherwise a note saying how large it was,
/// with the beginning of its JSON.
pub fn bounded_result(value: Value) -> Value {
    let json = value.to_string();
    if json.len() <= MAX_RESULT_BYTES {
        return value;
    }
    serde_json::json!({
        "truncated": true,
        "bytes": json.len(),
        "head": crate::canonical::cut(&json, MAX_RESULT_BYTES - 256),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polls_never_come_faster_than_the_floor_whatever_the_server_says() {
        let mut schedule = PollSchedule::default();
        assert_eq!(schedule.next(Some(0)), MIN_POLL);
        assert_eq!(schedule.next(Some(1)), MIN_POLL);
        assert_eq!(schedule.next(Some(1000)), Duration::from_secs(1));
        assert_eq!(schedule.next(Some(u64::MAX)), MAX_POLL);
    }

    #[test]
    fn without_a_suggestion_polls_back_off_to_a_cap() {
        let mut schedule = PollSchedule::default();
        let waits: Vec<Duration> = (0..12).map(|_| schedule.next(None)).collect();
        assert_eq!(waits[0], MIN_POLL);
        assert!(waits.windows(2).all(|w| w[0] <= w[1]), "{waits:?}");
        assert_eq!(waits[11], MAX_DEFAULT_POLL);
    }

    #[test]
    fn a_large_result_is_cut_to_the_bound() {
        let small = serde_json::json!({"content": []});
        assert_eq!(bounded_result(small.clone()), small);
        let big = bounded_result(Value::String("x".repeat(MAX_RESULT_BYTES * 2)));
        assert_eq!(big["truncated"], true);
        assert!(big.to_string().len() <= MAX_RESULT_BYTES + 64);
    }

    #[test]
    fn states_read_both_eras_spelling_and_lost_is_terminal() {
        assert_eq!(
            TaskState::from_wire("input_required"),
            Some(TaskState::InputRequired)
        );
        assert_eq!(TaskState::from_wire("bogus"), None);
        assert!(TaskState::Lost.is_terminal());
        assert!(!TaskState::Working.is_terminal());
    }
}
