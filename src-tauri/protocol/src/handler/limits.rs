//! What a server's notifications may cost the host: log data and progress messages are cut to a
//! size before they are broadcast (the bus keeps thousands of events for a slow window), and each
//! server gets a budget of log messages a second, the rest counted and reported once.

use std::time::{Duration, Instant};

use serde_json::Value;

/// The most bytes of a log message's data, as JSON, that are broadcast.
pub const MAX_LOG_BYTES: usize = 8 * 1024;

/// The most bytes of a progress message that are broadcast.
pub const MAX_PROGRESS_MESSAGE: usize = 1024;

/// The most log messages of one server broadcast in a second.
pub const LOGS_PER_SECOND: u32 = 100;

/// `data` itself when its JSON fits in [`MAX_LOG_BYTES`]; otherwise the start of its JSON as a
/// string, saying how long the whole was.
pub fn bounded_log_data(data: Value) -> Value {
    let json = data.to_string();
    if json.len() <= MAX_LOG_BYTES {
        return data;
    }
    Value::String(format!(
        "{}… [cut: {} bytes in all]",
        prefix(&json, MAX_LOG_BYTES),
        json.len()
    ))
}

/// `text` cut to at most `max` bytes (on a character boundary), marked when cut.
pub fn bounded_text(text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    format!("{}…", prefix(&text, max))
}

fn prefix(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// One server's log budget for the current second.
#[derive(Debug)]
pub struct LogBudget {
    since: Instant,
    used: u32,
    dropped: u64,
}

impl Default for LogBudget {
    fn default() -> Self {
        Self {
            since: Instant::now(),
            used: 0,
            dropped: 0,
        }
    }
}

/// What to do with one log message.
#[derive(Debug, PartialEq, Eq)]
pub enum LogAdmission {
    /// Broadcast it; `dropped` messages were dropped since the last one broadcast.
    Pass { dropped: u64 },
    /// Over the budget: count it and drop it.
    Drop,
}

impl LogBudget {
    /// Admits one message arriving at `now`.
    pub fn admit(&mut self, now: Instant) -> LogAdmission {
        if now.duration_since(self.since) >= Duration::from_secs(1) {
            self.since = now;
            self.used = 0;
        }
        if self.used >= LOGS_PER_SECOND {
            self.dropped += 1;
            return LogAdmission::Drop;
        }
        self.used += 1;
        LogAdmission::Pass {
            dropped: std::mem::take(&mut self.dropped),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_data_and_progress_messages_are_cut_on_character_boundaries() {
        let small = serde_json::json!({"ok": true});
        assert_eq!(bounded_log_data(small.clone()), small);
        let big = bounded_log_data(Value::String("é".repeat(MAX_LOG_BYTES)));
        let Value::String(cut) = big else {
            panic!("a cut log is a string")
        };
        assert!(cut.len() < MAX_LOG_BYTES + 64, "{}", cut.len());
        assert!(cut.ends_with(&format!("[cut: {} bytes in all]", 2 * MAX_LOG_BYTES + 2)));
        let message = bounded_text("ü".repeat(MAX_PROGRESS_MESSAGE), MAX_PROGRESS_MESSAGE);
        assert!(message.len() <= MAX_PROGRESS_MESSAGE + "…".len());
        assert_eq!(bounded_text("short".into(), 10), "short");
    }

    #[test]
    fn a_server_gets_its_budget_a_second_and_the_rest_is_counted() {
        let mut budget = LogBudget::default();
        let start = Instant::now();
        for _ in 0..LOGS_PER_SECOND {
            assert_eq!(budget.admit(start), LogAdmission::Pass { dropped: 0 });
        }
        for _ in 0..5 {
            assert_eq!(budget.admit(start), LogAdmission::Drop);
        }
        let later = start + Duration::from_secs(1);
        assert_eq!(budget.admit(later), LogAdmission::Pass { dropped: 5 });
        assert_eq!(budget.admit(later), LogAdmission::Pass { dropped: 0 });
    }
}
