//! The call ids the window's own tool calls used. A call goes out once per id: the web view
//! sends a command again when the page reloads while it is in flight (Tauri falls back from its
//! aborted request to another channel), and a tool call repeated behind the person's back could
//! charge twice, write twice, or send twice.

use std::collections::{HashSet, VecDeque};
use std::sync::Mutex;

use crate::error::{Error, ErrorCode, Result};

/// How many ids are remembered: far more than calls a window has in flight or just ended.
const REMEMBERED: usize = 4096;

/// The ids already used, the oldest forgotten first.
#[derive(Default)]
pub struct CallIds(Mutex<(VecDeque<String>, HashSet<String>)>);

impl CallIds {
    /// Takes `id` for one call; an id used before is refused, saying why.
    pub fn claim(&self, id: &str) -> Result<()> {
        let mut used = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let (order, set) = &mut *used;
        if !set.insert(id.to_owned()) {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                "This call was already made (the window may have reloaded while it ran), so it \
                 is not made again.",
            ));
        }
        order.push_back(id.to_owned());
        if order.len() > REMEMBERED
            && let Some(oldest) = order.pop_front()
        {
            set.remove(&oldest);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_used_once_and_the_oldest_are_forgotten() {
        let ids = CallIds::default();
        ids.claim("a").unwrap();
        assert_eq!(ids.claim("a").unwrap_err().code, ErrorCode::InvalidInput);
        for n in 0..REMEMBERED {
            ids.claim(&n.to_string()).unwrap();
        }
        ids.claim("a").unwrap();
    }
}
