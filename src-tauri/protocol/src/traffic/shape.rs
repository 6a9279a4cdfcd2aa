//! What a recorded message is, read from its bytes when someone looks: its kind, method and id.
//! A scan of the top-level object's keys, not a parse, so that it costs nothing while the
//! message is recorded and still works on the head of a truncated message.

use super::MessageKind;

/// The top-level facts of one JSON-RPC message (or batch).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Shape {
    pub kind: MessageKind,
    pub method: Option<String>,
    /// The id as it was written (a string keeps its quotes, so `1` and `"1"` stay apart).
    pub id: Option<String>,
}

/// The shape of `body`, as far as its bytes go.
pub fn of(body: &[u8]) -> Shape {
    let mut scan = Scan { bytes: body, at: 0 };
    scan.skip_space();
    match scan.peek() {
        Some(b'[') => Shape {
            kind: MessageKind::Batch,
            ..Shape::default()
        },
        Some(b'{') => {
            scan.at += 1;
            object_shape(&mut scan)
        }
        _ => Shape::default(),
    }
}

fn object_shape(scan: &mut Scan<'_>) -> Shape {
    let (mut method, mut id, mut result, mut error) = (None, None, false, false);
    while let Some(key) = scan.next_key() {
        let start = scan.at;
        let complete = scan.skip_value();
        let bytes = scan.bytes;
        let raw = &bytes[start..scan.at];
        match key {
            b"method" if complete => method = unquoted(raw),
            b"id" if complete => id = Some(String::from_utf8_lossy(raw.trim_ascii()).into_owned()),
            b"result" => result = true,
            b"error" => error = true,
            _ => {}
        }
        if !complete {
            break;
        }
    }
    let kind = match (&method, &id) {
        (Some(_), Some(_)) => MessageKind::Request,
        (Some(_), None) => MessageKind::Notification,
        (None, Some(_)) if error => MessageKind::Error,
        (None, Some(_)) if result => MessageKind::Response,
        _ => MessageKind::Other,
    };
    Shape { kind, method, id }
}

/// The text of a JSON string token (escapes kept as written: methods have none).
fn unquoted(raw: &[u8]) -> Option<String> {
    let raw = raw.trim_ascii();
    let inner = raw.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    Some(String::from_utf8_lossy(inner).into_owned())
}

struct Scan<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Scan<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    /// The next key of the current object, past its colon; `None` at its end (or the bytes').
    fn next_key(&mut self) -> Option<&'a [u8]> {
        self.skip_space();
        if self.peek() == Some(b',') {
            self.at += 1;
            self.skip_space();
        }
        if self.peek() != Some(b'"') {
            return None;
        }
        let start = self.at + 1;
        if !self.skip_string() {
            return None;
        }
        let key_end = self.at - 1;
        self.skip_space();
        if self.peek() != Some(b':') {
            return None;
        }
        self.at += 1;
        Some(&self.bytes[start..key_end])
    }

    /// Moves past one value; false when the bytes end inside it.
    fn skip_value(&mut self) -> bool {
        self.skip_space();
        match self.peek() {
            Some(b'"') => self.skip_string(),
            Some(b'{' | b'[') => self.skip_nested(),
            Some(_) => {
                while self
                    .peek()
                    .is_some_and(|b| !matches!(b, b',' | b'}' | b']'))
                {
                    self.at += 1;
                }
                self.peek().is_some()
            }
            None => false,
        }
    }

    /// Moves past a string starting at its opening quote; false when it does not end.
    fn skip_string(&mut self) -> bool {
        self.at += 1;
        while let Some(b) = self.peek() {
            self.at += 1;
            match b {
                b'\\' => self.at += 1,
                b'"' => return true,
                _ => {}
            }
        }
        false
    }

    /// Moves past an object or array, strings inside counted as strings.
    fn skip_nested(&mut self) -> bool {
        let mut depth = 0usize;
        while let Some(b) = self.peek() {
            match b {
                b'"' => {
                    if !self.skip_string() {
                        return false;
                    }
                    continue;
                }
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth -= 1;
                    if depth == 0 {
                        self.at += 1;
                        return true;
                    }
                }
                _ => {}
            }
            self.at += 1;
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_responses_errors_and_notifications_are_told_apart() {
        let request =
            of(br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"a":[1,{"b":"}"}]}}"#);
        assert_eq!(request.kind, MessageKind::Request);
        assert_eq!(request.method.as_deref(), Some("tools/call"));
        assert_eq!(request.id.as_deref(), Some("7"));
        let response = of(br#"{"result":{"x":"\"id\":1"},"jsonrpc":"2.0","id":"a"}"#);
        assert_eq!(response.kind, MessageKind::Response);
        assert_eq!(response.id.as_deref(), Some("\"a\""));
        let error = of(br#" {"jsonrpc":"2.0","id":3,"error":{"code":-32601}}"#);
        assert_eq!(error.kind, MessageKind::Error);
        let note = of(br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{}}"#);
        assert_eq!(note.kind, MessageKind::Notification);
        assert_eq!(of(br#"[{"jsonrpc":"2.0"}]"#).kind, MessageKind::Batch);
        assert_eq!(of(b"not json").kind, MessageKind::Other);
    }

    #[test]
    fn the_head_of_a_truncated_message_still_says_what_it_is() {
        let head = br#"{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"aaaa"#;
        let shape = of(head);
        assert_eq!(shape.kind, MessageKind::Response);
        assert_eq!(shape.id.as_deref(), Some("12"));
        // Cut inside the id: no id is made up.
        assert_eq!(of(br#"{"jsonrpc":"2.0","id":"ab"#).id, None);
    }
}
