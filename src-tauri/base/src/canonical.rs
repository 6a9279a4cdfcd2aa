//! The bottom of the core's graph: the canonical JSON a digest is taken of, the digest itself,
//! fresh random ids, and text cut to a bound. Pins, trust, reviews, imports, tasks and views all
//! need these, and none of them should need the module of another to get them.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// `v` as canonical JSON: object keys sorted, no insignificant whitespace.
pub fn canonical(v: &Value) -> String {
    fn write(v: &Value, out: &mut String) {
        match v {
            Value::Object(o) => {
                let mut keys: Vec<&String> = o.keys().collect();
                keys.sort();
                out.push('{');
                for (i, k) in keys.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String(k.clone()).to_string());
                    out.push(':');
                    write(&o[k], out);
                }
                out.push('}');
            }
            Value::Array(a) => {
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(x, out);
                }
                out.push(']');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut out = String::new();
    write(v, &mut out);
    out
}

/// Hex SHA-256 of the canonical form of `v`.
pub fn digest(v: &Value) -> String {
    let hash = Sha256::digest(canonical(v).as_bytes());
    hash.iter().map(|b| format!("{b:02x}")).collect()
}

/// A random 128-bit id as hex.
pub fn new_id() -> String {
    format!("{:032x}", random_u128())
}

/// 128 random bits from the kernel in one system call. `rand`'s thread generator is not used:
/// its first use in a process (the CLI's one start of a server, whose spawn token is an id) sets
/// up and seeds a ChaCha generator, about 80 µs of every start on the development VM.
fn random_u128() -> u128 {
    #[cfg(target_os = "linux")]
    {
        let mut bytes = [0u8; 16];
        // SAFETY: the kernel writes at most `bytes.len()` bytes into `bytes`.
        let n = unsafe { libc::getrandom(bytes.as_mut_ptr().cast(), bytes.len(), 0) };
        if usize::try_from(n).is_ok_and(|n| n == bytes.len()) {
            return u128::from_ne_bytes(bytes);
        }
    }
    rand::random()
}

/// `text` cut to at most `max` bytes (on a character boundary), marked with `…` when cut.
pub fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_are_128_random_bits_in_hex() {
        let ids: std::collections::HashSet<String> = (0..64).map(|_| new_id()).collect();
        assert_eq!(ids.len(), 64, "no id repeats");
        for id in &ids {
            assert_eq!(id.len(), 32);
            assert!(id.bytes().all(|b| b.is_ascii_hexdigit()));
        }
    }

    #[test]
    fn canonical_form_ignores_key_order() {
        let a = json!({"b": 1, "a": {"y": [1, {"d": 2, "c": 3}], "x": "s"}});
        let b = json!({"a": {"x": "s", "y": [1, {"c": 3, "d": 2}]}, "b": 1});
        assert_eq!(
            canonical(&a),
            r#"{"a":{"x":"s","y":[1,{"c":3,"d":2}]},"b":1}"#
        );
        assert_eq!(digest(&a), digest(&b));
        assert_ne!(digest(&a), digest(&json!({"b": 2})));
    }

    #[test]
    fn a_cut_text_ends_on_a_character_and_says_so() {
        assert_eq!(cut("héllo", 2), "h…");
        assert_eq!(cut("short", 10), "short");
        assert_eq!(new_id().len(), 32);
    }
}
