//! The secret values a server's traffic must never hold (its env secrets, its header values
//! from the keychain, its bearer token), replaced before a message is kept, so that neither the
//! ring, a persisted trace, an export nor `--trace` can show them.

use std::borrow::Cow;

use memchr::memmem::Finder;

/// What replaces a hidden value.
pub const REDACTED: &[u8] = b"[redacted]";

/// Values shorter than this are not hidden: "1" or "true" would redact half a message.
const MIN_HIDDEN: usize = 6;

/// A set of values to hide, each searched as written and as a JSON string would escape it.
#[derive(Default)]
pub struct Hidden {
    finders: Vec<Finder<'static>>,
    longest: usize,
}

impl Hidden {
    /// The set of `values`, the longest first (a secret that contains another is hidden whole).
    pub fn new(values: impl IntoIterator<Item = String>) -> Self {
        let mut forms: Vec<Vec<u8>> = Vec::new();
        // A line that is not JSON (stdio carries any) holds a multi-line secret a line at a time.
        for value in values.into_iter().flat_map(crate::process::with_its_lines) {
            if value.trim().len() < MIN_HIDDEN {
                continue;
            }
            let escaped = serde_json::to_string(&value).unwrap_or_default();
            let escaped = escaped.trim_matches('"');
            if escaped != value {
                forms.push(escaped.as_bytes().to_vec());
            }
            forms.push(value.into_bytes());
        }
        forms.sort_by_key(|f| std::cmp::Reverse(f.len()));
        forms.dedup();
        Self {
            longest: forms.first().map_or(0, Vec::len),
            finders: forms
                .into_iter()
                .map(|f| Finder::new(&f).into_owned())
                .collect(),
        }
    }

    /// Whether `value` is among the hidden values.
    pub fn holds(&self, value: &str) -> bool {
        self.finders.iter().any(|f| f.needle() == value.as_bytes())
    }

    /// The values, as written, for a set that adds some.
    pub fn values(&self) -> impl Iterator<Item = String> + '_ {
        self.finders
            .iter()
            .map(|f| String::from_utf8_lossy(f.needle()).into_owned())
    }

    /// The first `keep` bytes of `bytes` with every hidden value replaced. A value that crosses
    /// the cut is replaced whole before cutting, so no prefix of a secret is kept.
    pub fn cut<'a>(&self, bytes: &'a [u8], keep: usize) -> Cow<'a, [u8]> {
        let window = &bytes[..bytes.len().min(keep.saturating_add(self.longest))];
        if !self.finders.iter().any(|f| f.find(window).is_some()) {
            return Cow::Borrowed(&window[..window.len().min(keep)]);
        }
        let mut out = self.replaced(window);
        out.truncate(keep);
        Cow::Owned(out)
    }

    fn replaced(&self, bytes: &[u8]) -> Vec<u8> {
        let mut text = bytes.to_vec();
        for finder in &self.finders {
            if finder.find(&text).is_none() {
                continue;
            }
            let mut out = Vec::with_capacity(text.len());
            let mut rest = &text[..];
            while let Some(i) = finder.find(rest) {
                out.extend_from_slice(&rest[..i]);
                out.extend_from_slice(REDACTED);
                rest = &rest[i + finder.needle().len()..];
            }
            out.extend_from_slice(rest);
            text = out;
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_is_replaced_wherever_it_appears() {
        let hidden = Hidden::new(["sk-live-123456".to_owned(), "ab".to_owned()]);
        let out = hidden.cut(br#"{"a":"sk-live-123456","b":"xsk-live-123456y ab"}"#, 1000);
        assert_eq!(&*out, br#"{"a":"[redacted]","b":"x[redacted]y ab"}"#);
    }

    #[test]
    fn a_secret_escaped_in_json_is_replaced_too() {
        let hidden = Hidden::new(["pa\"ss/word\\1".to_owned()]);
        let out = hidden.cut(br#"{"p":"pa\"ss/word\\1"}"#, 1000);
        assert_eq!(&*out, br#"{"p":"[redacted]"}"#);
    }

    #[test]
    fn no_prefix_of_a_secret_survives_the_cut() {
        let hidden = Hidden::new(["supersecretvalue".to_owned()]);
        let out = hidden.cut(b"0123supersecretvalue tail", 10);
        assert_eq!(&*out, b"0123[redac");
        assert!(!String::from_utf8_lossy(&out).contains("supers"));
    }
}
