//! Per-server rate limits over a sliding minute: how many requests of one kind a server may have
//! admitted (sampling's `requestsPerMinute`, elicitations). A window keeps at most its limit of
//! instants, so counting a flood costs no memory.

use std::collections::{HashMap, VecDeque};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use rmcp::model::{ErrorCode, ErrorData as McpError};

/// The JSON-RPC error code of a request refused for being over a limit.
pub const OVER_LIMIT: i32 = -32000;

/// The span a limit counts over.
const WINDOW: Duration = Duration::from_secs(60);

/// The requests admitted per server in the last minute.
#[derive(Debug, Default)]
pub struct PerMinute(Mutex<HashMap<String, VecDeque<Instant>>>);

impl PerMinute {
    /// Admits one more request from `server` if fewer than `limit` were admitted in the last
    /// minute; a refused request does not count.
    pub fn admit(&self, server: &str, limit: u32) -> bool {
        // The windows stay consistent whatever panicked while one was held.
        let mut windows = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let window = windows.entry(server.to_owned()).or_default();
        let now = Instant::now();
        while window
            .front()
            .is_some_and(|t| now.duration_since(*t) >= WINDOW)
        {
            window.pop_front();
        }
        if window.len() >= limit as usize {
            return false;
        }
        window.push_back(now);
        true
    }
}

/// The error for a server's request over one of its limits, saying which.
pub fn over_limit(message: String) -> McpError {
    McpError::new(ErrorCode(OVER_LIMIT), message, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn admits_up_to_the_limit_per_server() {
        let rate = PerMinute::default();
        assert!((0..3).all(|_| rate.admit("a", 3)));
        assert!(!rate.admit("a", 3));
        assert!(rate.admit("b", 3), "each server has its own window");
        assert!(!rate.admit("c", 0));
    }
}
