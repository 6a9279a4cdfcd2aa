//! Makes hidden characters visible. Anything a server sends (tool descriptions, instructions,
//! prompts, sampling messages) can carry zero-width characters, bidirectional overrides, Unicode
//! tag characters or terminal escape sequences that hide instructions from the person reviewing
//! it. Dialogs and the terminal show text through [`reveal`], which replaces each such character
//! with a visible marker such as `⟨U+200B⟩` or `␛`.

use std::borrow::Cow;

use serde_json::Value;

/// Whether `c` is invisible or able to disguise text when displayed.
pub fn is_hidden(c: char) -> bool {
    matches!(c,
        // C0 controls except tab and newline, DEL, C1 controls (ESC starts terminal sequences).
        '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}'..='\u{9f}'
        // Soft hyphen, combining grapheme joiner, Hangul fillers, Mongolian vowel separator.
        | '\u{ad}' | '\u{34f}' | '\u{115f}' | '\u{1160}' | '\u{180e}' | '\u{3164}' | '\u{ffa0}'
        // Zero-width spaces and joiners, directional marks.
        | '\u{200b}'..='\u{200f}'
        // Line/paragraph separators, bidi embeddings and overrides.
        | '\u{2028}'..='\u{202e}'
        // Word joiner, invisible operators, bidi isolates, deprecated format characters.
        | '\u{2060}'..='\u{206f}'
        // Byte order mark / zero-width no-break space, interlinear annotation, object replacement.
        | '\u{feff}' | '\u{fff9}'..='\u{fffb}'
        // Unicode tag characters (used to smuggle ASCII invisibly) and variation selectors 17–256.
        | '\u{e0000}'..='\u{e007f}' | '\u{e0100}'..='\u{e01ef}'
    )
}

/// Whether `s` contains any hidden character.
pub fn has_hidden(s: &str) -> bool {
    s.chars().any(is_hidden)
}

/// `s` with every hidden character replaced by a visible marker: `␛` for ESC, `⟨U+XXXX⟩` for the
/// rest. Returns `s` unchanged (borrowed) when there is nothing to reveal.
pub fn reveal(s: &str) -> Cow<'_, str> {
    if !has_hidden(s) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '\u{1b}' => out.push('␛'),
            c if is_hidden(c) => out.push_str(&format!("⟨U+{:04X}⟩", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A copy of `v` with [`reveal`] applied to every string, keys included.
pub fn reveal_json(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(reveal(s).into_owned()),
        Value::Array(a) => Value::Array(a.iter().map(reveal_json).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (reveal(k).into_owned(), reveal_json(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Whether any string in `v` (keys included) contains a hidden character.
pub fn json_has_hidden(v: &Value) -> bool {
    match v {
        Value::String(s) => has_hidden(s),
        Value::Array(a) => a.iter().any(json_has_hidden),
        Value::Object(o) => o.iter().any(|(k, v)| has_hidden(k) || json_has_hidden(v)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(
            reveal("read a file\n\tok — ünïcödé 🙂"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn hidden_characters_become_markers() {
        assert_eq!(reveal("a\u{200b}b"), "a⟨U+200B⟩b");
        assert_eq!(reveal("\u{1b}[2Jgone"), "␛[2Jgone");
        assert_eq!(reveal("x\u{202e}cod.exe"), "x⟨U+202E⟩cod.exe");
        // "hi" in tag characters.
        assert_eq!(reveal("\u{e0068}\u{e0069}"), "⟨U+E0068⟩⟨U+E0069⟩");
        assert_eq!(reveal("\u{feff}bom"), "⟨U+FEFF⟩bom");
    }

    #[test]
    fn json_strings_and_keys() {
        let v = json!({"desc\u{200d}": ["ok", "ig\u{2066}nore"], "n": 1});
        assert!(json_has_hidden(&v));
        assert_eq!(
            reveal_json(&v),
            json!({"desc⟨U+200D⟩": ["ok", "ig⟨U+2066⟩nore"], "n": 1})
        );
        assert!(!json_has_hidden(&json!({"a": "plain"})));
    }
}
