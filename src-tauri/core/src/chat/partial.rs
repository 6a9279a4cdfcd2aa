//! The arguments of a tool call the model is still writing, as a view may be shown them
//! (MCP Apps `ui/notifications/tool-input-partial`): the JSON so far, cut back to its last
//! complete member and closed, so that it parses. A string being written is kept as far as it
//! goes; a key without its value, a number or literal cut short, and a trailing comma are left out.

use std::time::{Duration, Instant};

use serde_json::Value;

/// The longest partial arguments (bytes of JSON) a view is shown; past it only the complete
/// arguments follow.
pub const MAX_PARTIAL_BYTES: usize = 64 * 1024;

/// How often a call's arguments so far are shown while they stream: closing them reads them
/// whole, so doing it for every delta of a long argument would be quadratic.
pub const SHOW_EVERY: Duration = Duration::from_millis(100);

/// Says when each streaming call's arguments are due to be shown again.
#[derive(Debug, Default)]
pub struct Throttle {
    last: Vec<(usize, Instant)>,
}

impl Throttle {
    /// Whether call `index` may be shown again (a call not shown yet always may).
    pub fn due(&self, index: usize) -> bool {
        self.last
            .iter()
            .find(|(i, _)| *i == index)
            .is_none_or(|(_, at)| at.elapsed() >= SHOW_EVERY)
    }

    /// Notes that call `index` was just shown.
    pub fn shown(&mut self, index: usize) {
        let now = Instant::now();
        match self.last.iter_mut().find(|(i, _)| *i == index) {
            Some((_, at)) => *at = now,
            None => self.last.push((index, now)),
        }
    }
}

/// Where the JSON so far could end: the bytes to keep, whether a string is left open there, and
/// the closers to add.
#[derive(Clone)]
struct Cut {
    at: usize,
    open_string: bool,
    closers: Vec<u8>,
}

/// One open container: its closer, and for an object whether a key comes next.
struct Open {
    closer: u8,
    key_next: bool,
}

/// `json` (a prefix of a JSON object) cut back and closed, or `None` when nothing of it parses
/// yet or it is longer than [`MAX_PARTIAL_BYTES`].
pub fn close(json: &str) -> Option<Value> {
    if json.len() > MAX_PARTIAL_BYTES {
        return None;
    }
    let cut = last_cut(json.as_bytes())?;
    let mut text = json[..cut.at].to_owned();
    if cut.open_string {
        text.push('"');
    }
    text.extend(cut.closers.iter().rev().map(|b| char::from(*b)));
    serde_json::from_str(&text).ok()
}

fn last_cut(bytes: &[u8]) -> Option<Cut> {
    let mut stack: Vec<Open> = Vec::new();
    let mut cut: Option<Cut> = None;
    let here = |stack: &[Open], at: usize, open_string: bool| Cut {
        at,
        open_string,
        closers: stack.iter().map(|o| o.closer).collect(),
    };
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' | b'[' => {
                let object = bytes[i] == b'{';
                stack.push(Open {
                    closer: if object { b'}' } else { b']' },
                    key_next: object,
                });
                i += 1;
                cut = Some(here(&stack, i, false));
            }
            b'}' | b']' => {
                stack.pop();
                i += 1;
                after_value(&mut stack);
                cut = Some(here(&stack, i, false));
            }
            b'"' => {
                let key = stack.last().is_some_and(|o| o.key_next);
                match string_end(bytes, i + 1) {
                    Some(end) => {
                        i = end + 1;
                        if key {
                            if let Some(o) = stack.last_mut() {
                                o.key_next = false;
                            }
                        } else {
                            after_value(&mut stack);
                            cut = Some(here(&stack, i, false));
                        }
                    }
                    None => {
                        if !key {
                            cut = Some(here(&stack, open_string_end(bytes, i + 1), true));
                        }
                        break;
                    }
                }
            }
            b',' => {
                if let Some(o) = stack.last_mut() {
                    o.key_next = o.closer == b'}';
                }
                i += 1;
            }
            b':' | b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            _ => {
                let end = bytes[i..]
                    .iter()
                    .position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                    .map(|n| i + n);
                // A number or literal cut short may still change (`tru`, `1.`): left out.
                let Some(end) = end else { break };
                i = end;
                after_value(&mut stack);
                cut = Some(here(&stack, i, false));
            }
        }
    }
    cut
}

/// After a complete value inside an object, the next string is a key again.
fn after_value(stack: &mut [Open]) {
    if let Some(o) = stack.last_mut() {
        o.key_next = o.closer == b'}';
    }
}

/// The index of the quote ending the string that starts at `from`, if it ends.
fn string_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut i = from;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i),
            _ => i += 1,
        }
    }
    None
}

/// How much of an unfinished string starting at `from` can be kept: not a dangling escape.
fn open_string_end(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    let mut kept = from;
    while i < bytes.len() {
        let step = match bytes[i] {
            b'\\' if bytes.get(i + 1) == Some(&b'u') => 6,
            b'\\' => 2,
            _ => 1,
        };
        if i + step > bytes.len() {
            break;
        }
        i += step;
        kept = i;
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_prefix_of_real_arguments_closes_to_what_is_complete_so_far() {
        let full = r#"{"city": "Paris \"16e\"", "days": 3, "units": ["metric", "si"], "deep": {"on": true, "n": null}}"#;
        for end in 0..=full.len() {
            let closed = close(&full[..end]);
            if let Some(v) = &closed {
                assert!(v.is_object(), "{end}: {v}");
            }
            if end == full.len() {
                assert_eq!(closed, serde_json::from_str(full).ok());
            }
        }
        assert_eq!(close(""), None);
        assert_eq!(close("{"), Some(json!({})));
        assert_eq!(close(r#"{"ci"#), Some(json!({})));
        assert_eq!(close(r#"{"city": "Par"#), Some(json!({"city": "Par"})));
        assert_eq!(
            close(r#"{"city": "Paris", "da"#),
            Some(json!({"city": "Paris"}))
        );
        assert_eq!(
            close(r#"{"city": "Paris", "days": 3"#),
            Some(json!({"city": "Paris"}))
        );
        assert_eq!(
            close(r#"{"city": "Paris", "days": 3,"#),
            Some(json!({"city": "Paris", "days": 3}))
        );
        assert_eq!(
            close(r#"{"units": ["metric", "s"#),
            Some(json!({"units": ["metric", "s"]}))
        );
        assert_eq!(close(r#"{"deep": {"on": tru"#), Some(json!({"deep": {}})));
    }

    #[test]
    fn an_escape_cut_in_half_is_left_out() {
        assert_eq!(close(r#"{"q": "a\"#), Some(json!({"q": "a"})));
        assert_eq!(close(r#"{"q": "a\u00"#), Some(json!({"q": "a"})));
        assert_eq!(close(r#"{"q": "a\u00e9"#), Some(json!({"q": "aé"})));
    }

    #[test]
    fn each_call_is_shown_at_most_every_interval() {
        let mut throttle = Throttle::default();
        assert!(throttle.due(0));
        throttle.shown(0);
        assert!(!throttle.due(0));
        assert!(throttle.due(1));
        std::thread::sleep(SHOW_EVERY);
        assert!(throttle.due(0));
    }

    #[test]
    fn long_arguments_are_not_shown_in_part() {
        let long = format!(r#"{{"text": "{}"#, "x".repeat(MAX_PARTIAL_BYTES));
        assert_eq!(close(&long), None);
    }
}
