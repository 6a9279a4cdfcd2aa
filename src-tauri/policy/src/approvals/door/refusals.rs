//! Requests a server sent that were refused before they were admitted (over a rate limit or a
//! budget, invalid). A flood of them must not fill the audit log or the log: each server gets at
//! most one audit row and one warning a minute per kind of request for them, and the row counts
//! the refusals since the last one.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::audit::FlowKind;

/// How often a server's refusals of one kind are written down.
const EVERY: Duration = Duration::from_secs(60);

/// Refusals per server and kind since each was last written down.
#[derive(Debug, Default)]
pub(super) struct Refusals(Mutex<HashMap<(String, FlowKind), Tally>>);

#[derive(Debug)]
struct Tally {
    written: Instant,
    unwritten: u64,
}

impl Refusals {
    /// Counts one refusal of a `kind` request from `server`. Returns how many refusals a row
    /// written now reports (this one and those not written down yet), or `None` while the last
    /// row for them is less than a minute old.
    pub(super) fn count(&self, server: &str, kind: FlowKind) -> Option<u64> {
        self.count_at(server, kind, Instant::now())
    }

    fn count_at(&self, server: &str, kind: FlowKind, now: Instant) -> Option<u64> {
        let mut tallies = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        match tallies.get_mut(&(server.to_owned(), kind)) {
            Some(t) if now.duration_since(t.written) < EVERY => {
                t.unwritten += 1;
                None
            }
            Some(t) => {
                let refused = t.unwritten + 1;
                *t = Tally {
                    written: now,
                    unwritten: 0,
                };
                Some(refused)
            }
            None => {
                let tally = Tally {
                    written: now,
                    unwritten: 0,
                };
                tallies.insert((server.to_owned(), kind), tally);
                Some(1)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_row_a_minute_per_server_and_kind_counting_what_it_missed() {
        let refusals = Refusals::default();
        let start = Instant::now();
        let at = |secs: u64| start + Duration::from_secs(secs);
        let sampling = |secs| refusals.count_at("s", FlowKind::Sampling, at(secs));
        assert_eq!(sampling(0), Some(1));
        assert_eq!((1..=59).filter_map(sampling).count(), 0);
        assert_eq!(
            refusals.count_at("s", FlowKind::Elicitation, at(30)),
            Some(1),
            "each kind has its own tally"
        );
        assert_eq!(refusals.count_at("t", FlowKind::Sampling, at(30)), Some(1));
        assert_eq!(sampling(60), Some(60), "the 59 unwritten ones and this one");
        assert_eq!(sampling(61), None);
    }
}
