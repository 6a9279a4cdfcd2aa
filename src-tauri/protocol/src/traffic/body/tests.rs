use proptest::prelude::*;

use super::*;

/// The `_meta` Switchboard's requests carry on 2026-07-28, less the progress token.
pub(in crate::traffic) const CLIENT_META: &str = concat!(
    r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","#,
    r#""io.modelcontextprotocol/clientInfo":{"name":"switchboard","title":"Switchboard","#,
    r#""version":"0.1.0"},"io.modelcontextprotocol/clientCapabilities":{"extensions":"#,
    r#"{"io.modelcontextprotocol/tasks":{},"io.modelcontextprotocol/ui":{"mimeTypes":"#,
    r#"["text/html;profile=mcp-app"]}},"roots":{"listChanged":true},"sampling":{"tools":{}},"#,
    r#""elicitation":{"form":{},"url":{}}}"#
);

/// A 2026-07-28 `tools/call` as Switchboard sends it.
pub(in crate::traffic) fn call_2026(id: u64, message: &str) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{{CLIENT_META},"progressToken":{id}}},"name":"echo","arguments":{{"message":"{message}"}}}}}}"#
    )
    .into_bytes()
}

/// `server/discover`, whose `_meta` ends where a call's goes on with its progress token.
fn discover() -> Vec<u8> {
    format!(r#"{{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{{{CLIENT_META}}}}}}}"#)
        .into_bytes()
}

#[test]
fn a_sessions_requests_hold_their_meta_once_and_read_back_whole() {
    let mut shared = Shared::default();
    let mut sent = vec![discover()];
    sent.extend((1..=100).map(|id| call_2026(id, &format!("message {id}"))));
    let bodies: Vec<Body> = sent.iter().map(|b| shared.body(b)).collect();
    for (body, bytes) in bodies.iter().zip(&sent) {
        assert_eq!(&*body.bytes(), &bytes[..]);
        assert_eq!(body.len(), bytes.len());
    }
    let calls = &bodies[1..];
    for (body, bytes) in calls.iter().zip(&sent[1..]) {
        assert!(
            body.own_len() + 400 < bytes.len(),
            "{} of {}",
            body.own_len(),
            bytes.len()
        );
    }
    let run = calls[0].shared.as_ref().unwrap();
    assert!(
        calls
            .iter()
            .all(|b| Arc::ptr_eq(b.shared.as_ref().unwrap(), run))
    );
    assert!(run.len() > 400, "{}", run.len());
}

#[test]
fn a_message_without_a_meta_object_is_held_whole() {
    let mut shared = Shared::default();
    for bytes in [
        &br#"{"jsonrpc":"2.0","id":1,"result":{}}"#[..],
        br#"{"_meta":"not an object, though a long enough string to be worth sharing at all"}"#,
        br#"{"_meta":{"short":1}}"#,
        br#"{"_meta":{"unterminated":"a long enough value to be worth sharing, were it closed"#,
    ] {
        let body = shared.body(bytes);
        assert!(body.shared.is_none());
        assert_eq!(&*body.bytes(), bytes);
    }
}

#[test]
fn braces_inside_strings_do_not_end_the_meta() {
    let text = br#"{"a":"}\"}","b":["{"],"c":{"d":"\\"}} tail"#;
    assert_eq!(value_end(text), Some(text.len() - " tail".len()));
    assert_eq!(value_end(b"  {}"), Some(4));
    assert_eq!(value_end(b"[]"), None);
    assert_eq!(value_end(b"{\"open\":"), None);
}

/// Pieces messages are made of: the client's meta and variations of it, JSON-ish noise, and
/// anchors with nothing sensible after them.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(CLIENT_META.as_bytes().to_vec()),
        Just(format!("{CLIENT_META},\"progressToken\":7}}").into_bytes()),
        Just(CLIENT_META.replace("0.1.0", "0.2.0").into_bytes()),
        Just(ANCHOR.to_vec()),
        Just(br#""_meta":{"x":"}"}"#.to_vec()),
        prop::collection::vec(prop::sample::select(b"{}[]\":,\\ a_meta".to_vec()), 0..40),
        prop::collection::vec(any::<u8>(), 0..80),
    ]
}

proptest! {
    /// Whatever a ring is given, in whatever order, each message reads back byte for byte,
    /// however the run held changed after it was recorded.
    #[test]
    fn every_message_reads_back_as_recorded(
        messages in prop::collection::vec(prop::collection::vec(piece(), 0..5), 1..30)
    ) {
        let mut shared = Shared::default();
        let sent: Vec<Vec<u8>> = messages.into_iter().map(|m| m.concat()).collect();
        let bodies: Vec<Body> = sent.iter().map(|b| shared.body(b)).collect();
        for (body, bytes) in bodies.iter().zip(&sent) {
            prop_assert_eq!(&*body.bytes(), &bytes[..]);
            prop_assert_eq!(body.len(), bytes.len());
        }
    }
}
