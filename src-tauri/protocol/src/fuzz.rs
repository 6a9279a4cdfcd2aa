//! What this crate's property tests share: the runner's configuration and word-built text from
//! the base layer (`switchboard_base::fuzzing`), and the inputs framing cares about: byte streams
//! cut anywhere, text that exercises UTF-8, bytes with line ends more often than chance, any JSON.

use proptest::prelude::*;
pub use switchboard_base::fuzzing::{config, words};

/// Where to cut a stream: piece lengths, mostly small.
pub fn cuts() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(prop_oneof![9 => 1usize..=16, 1 => 17usize..=4096], 0..64)
}

/// `bytes` cut into pieces of the lengths in `cuts` (the last piece holds what is left).
pub fn chunks(bytes: &[u8], cuts: &[usize]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut rest = bytes;
    for &n in cuts {
        if rest.is_empty() {
            break;
        }
        let (head, tail) = rest.split_at(n.min(rest.len()));
        out.push(head.to_vec());
        rest = tail;
    }
    if !rest.is_empty() {
        out.push(rest.to_vec());
    }
    out
}

/// Text of up to `max` characters with no line ends: ASCII, quotes, backslashes, colons,
/// multi-byte characters and separators that are not line ends.
pub fn text(max: usize) -> impl Strategy<Value = String> {
    const POOL: &[char] = &[
        'a', 'z', 'Q', '0', ' ', ':', '"', '\\', '{', '}', 'é', 'ß', '😀', '\u{2028}', '\u{feff}',
        '\t', '\u{7f}',
    ];
    prop::collection::vec(prop::sample::select(POOL), 0..=max)
        .prop_map(|chars| chars.into_iter().collect())
}

/// Bytes of up to `max`, with line ends more often than chance would put them.
pub fn bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![6 => any::<u8>(), 1 => Just(b'\n'), 1 => Just(b'\r')],
        0..=max,
    )
}

/// Any JSON value, up to a few levels deep, its strings drawn from `text`.
pub fn json(
    text: impl Strategy<Value = String> + Clone + 'static,
) -> impl Strategy<Value = serde_json::Value> {
    use serde_json::Value;
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        text.clone().prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 8, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::btree_map(text.clone(), inner, 0..8)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}
