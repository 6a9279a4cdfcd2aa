//! A recorded message's bytes, with the run every request of a session repeats held once. On
//! 2026-07-28 each request carries the client's protocol version, info and capabilities in its
//! `_meta`: the same few hundred bytes, most of a small request. A ring keeps that run once
//! ([`Shared`]) and each message only the bytes around it; reading a message joins them again,
//! byte for byte.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

/// Where the repeated run starts.
const ANCHOR: &[u8] = br#""_meta":"#;
/// A shorter run is not worth sharing.
const MIN_RUN: usize = 64;
/// A longer `_meta` is not taken as a run to share (it is not the client's own).
const MAX_RUN: usize = 16 << 10;

/// One message's bytes: `own`, with `shared` put back in at `at` when there is one.
#[derive(Clone)]
pub(super) struct Body {
    own: Arc<[u8]>,
    shared: Option<Arc<[u8]>>,
    at: u32,
}

impl Body {
    /// The message's bytes as recorded.
    pub(super) fn bytes(&self) -> Cow<'_, [u8]> {
        let Some(shared) = &self.shared else {
            return Cow::Borrowed(&self.own);
        };
        let at = self.at as usize;
        let mut joined = Vec::with_capacity(self.len());
        joined.extend_from_slice(&self.own[..at]);
        joined.extend_from_slice(shared);
        joined.extend_from_slice(&self.own[at..]);
        Cow::Owned(joined)
    }

    /// How many bytes the message has as recorded.
    pub(super) fn len(&self) -> usize {
        self.own.len() + self.shared.as_ref().map_or(0, |s| s.len())
    }

    /// The bytes this body holds alone (the shared run is counted once, by nobody).
    pub(super) fn own_len(&self) -> usize {
        self.own.len()
    }
}

/// The run a ring's messages share: the `_meta` the last request carried.
#[derive(Default)]
pub(super) struct Shared(Option<Arc<[u8]>>);

impl Shared {
    /// `bytes` as a body, sharing the run it has in common with the messages before it.
    pub(super) fn body(&mut self, bytes: &[u8]) -> Body {
        let whole = || Body {
            own: Arc::from(bytes),
            shared: None,
            at: 0,
        };
        // Built once: a searcher made for each message cost more than the search.
        static FINDER: OnceLock<memchr::memmem::Finder<'static>> = OnceLock::new();
        let finder = FINDER.get_or_init(|| memchr::memmem::Finder::new(ANCHOR));
        let Some(at) = finder.find(bytes) else {
            return whole();
        };
        let Ok(at32) = u32::try_from(at) else {
            return whole();
        };
        let Some(run) = self.run_at(&bytes[at..]) else {
            return whole();
        };
        let mut own = Vec::with_capacity(bytes.len() - run.len());
        own.extend_from_slice(&bytes[..at]);
        own.extend_from_slice(&bytes[at + run.len()..]);
        Body {
            own: Arc::from(own),
            shared: Some(run),
            at: at32,
        }
    }

    /// The run `from` starts with: the one held if `from` repeats enough of it (cut to what it
    /// repeats), or else this message's own `_meta`, held from now on.
    fn run_at(&mut self, from: &[u8]) -> Option<Arc<[u8]>> {
        if let Some(held) = &self.0 {
            if from.starts_with(held) {
                return Some(held.clone());
            }
            let common = common_prefix(held, from);
            if common >= MIN_RUN {
                // What every message repeats ends earlier than this run: the first request's
                // `_meta` closed where the next ones go on with their own progress token.
                let run: Arc<[u8]> = Arc::from(&held[..common]);
                self.0 = Some(run.clone());
                return Some(run);
            }
        }
        let end = value_end(&from[ANCHOR.len()..])? + ANCHOR.len();
        if !(MIN_RUN..=MAX_RUN).contains(&end) {
            return None;
        }
        let run: Arc<[u8]> = Arc::from(&from[..end]);
        self.0 = Some(run.clone());
        Some(run)
    }
}

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// The length of the JSON object `text` starts with (after any white space), if it is one and
/// it ends within `MAX_RUN` bytes.
fn value_end(text: &[u8]) -> Option<usize> {
    let start = text.iter().position(|b| !b.is_ascii_whitespace())?;
    if text[start] != b'{' {
        return None;
    }
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, &b) in text.iter().enumerate().skip(start).take(MAX_RUN) {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
pub(super) mod tests;
