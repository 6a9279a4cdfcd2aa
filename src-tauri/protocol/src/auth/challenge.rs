//! The `scope` parameter of a `WWW-Authenticate` challenge, read the way RFC 9110 writes
//! auth-params (a quoted string may hold commas, spaces and `scope=`; a backslash escapes), and
//! widened for a step-up. The widened challenge is written anew, with only the parameters sign-in
//! reads (`scope`, `resource_metadata`): rmcp reads a challenge more loosely (the first `scope=`
//! anywhere, in any case), and a rewritten one reads the same both ways.

use std::ops::Range;

/// Where the first parameter `name` (in any case) has its value in `challenge` (quotes
/// included), and the value itself; `None` when there is none, or its quoted string never ends.
fn param<'a>(challenge: &'a str, name: &str) -> Option<(Range<usize>, &'a str)> {
    let key = format!("{name}=");
    let mut chars = challenge.char_indices().peekable();
    let mut previous = None;
    while let Some((i, c)) = chars.next() {
        if c == '"' {
            skip_quoted(&mut chars)?;
            previous = Some('"');
            continue;
        }
        let boundary = matches!(previous, None | Some(' ' | '\t' | ','));
        let here = challenge.get(i..i + key.len());
        if boundary && here.is_some_and(|h| h.eq_ignore_ascii_case(&key)) {
            return value_at(challenge, i + key.len());
        }
        previous = Some(c);
    }
    None
}

/// Moves past a quoted string whose opening quote was just read; `None` if it never ends.
fn skip_quoted(chars: &mut impl Iterator<Item = (usize, char)>) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in chars {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return Some(i),
            _ => {}
        }
    }
    None
}

/// The parameter value starting at `start`: a quoted string or a bare token.
fn value_at(challenge: &str, start: usize) -> Option<(Range<usize>, &str)> {
    let rest = &challenge[start..];
    if rest.starts_with('"') {
        let mut chars = rest.char_indices().skip(1);
        let close = skip_quoted(&mut chars)?;
        return Some((start..start + close + 1, &rest[1..close]));
    }
    let end = rest.find([' ', '\t', ',', '"']).unwrap_or(rest.len());
    Some((start..start + end, &rest[..end]))
}

/// A scope token as RFC 6749 §3.3 has them: visible ASCII but `"` and `\`.
fn is_scope_token(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_graphic() && c != '"' && c != '\\')
}

/// The scopes a `WWW-Authenticate` challenge names (its `scope` parameter), if any: only valid
/// scope tokens, space-separated.
pub fn challenge_scopes(challenge: &str) -> Option<String> {
    let (_, value) = param(challenge, "scope")?;
    let scopes: Vec<&str> = value
        .split_whitespace()
        .filter(|s| is_scope_token(s))
        .collect();
    (!scopes.is_empty()).then(|| scopes.join(" "))
}

/// `challenge` with its `scope` parameter widened to also hold `granted` (first, in their
/// order), so a step-up asks for the union; a challenge without one is left as it is.
pub fn with_scopes_kept(challenge: &str, granted: &[String]) -> String {
    let Some(asked) = challenge_scopes(challenge) else {
        return challenge.to_owned();
    };
    let mut union: Vec<&str> = granted
        .iter()
        .map(String::as_str)
        .filter(|s| is_scope_token(s))
        .collect();
    for scope in asked.split(' ') {
        if !union.contains(&scope) {
            union.push(scope);
        }
    }
    let mut widened = format!("Bearer scope=\"{}\"", union.join(" "));
    // The metadata's address, if it is one a quoted string can carry as it is.
    if let Some((_, at)) = param(challenge, "resource_metadata")
        && !at.contains(['"', '\\'])
        && url::Url::parse(at).is_ok()
    {
        widened.push_str(&format!(", resource_metadata=\"{at}\""));
    }
    widened
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scopes_of_a_challenge() {
        for (c, scopes) in [
            (
                r#"Bearer error="insufficient_scope", scope="a  b:c""#,
                Some("a b:c"),
            ),
            ("Bearer scope=read, realm=\"x\"", Some("read")),
            (r#"Bearer realm="x""#, None),
            (r#"Bearer xscope="a""#, None),
            (r#"Bearer scope="""#, None),
            // A `scope=` inside another parameter's quoted value is not the parameter.
            (
                r#"Bearer realm="a, scope=evil", scope="mine""#,
                Some("mine"),
            ),
            (r#"Bearer realm="never closed, scope=x"#, None),
            (r#"Bearer scope="a\"b c""#, Some("c")),
        ] {
            assert_eq!(challenge_scopes(c).as_deref(), scopes, "{c}");
        }
    }

    #[test]
    fn a_step_up_keeps_what_was_granted() {
        let granted = vec!["mcp:basic".to_owned(), "mcp:read".to_owned()];
        let c = r#"Bearer error="insufficient_scope", scope="mcp:write mcp:read", resource_metadata="https://a.example/prm""#;
        assert_eq!(
            with_scopes_kept(c, &granted),
            r#"Bearer scope="mcp:basic mcp:read mcp:write", resource_metadata="https://a.example/prm""#
        );
        assert_eq!(
            with_scopes_kept("Bearer scope=mcp:write", &granted),
            r#"Bearer scope="mcp:basic mcp:read mcp:write""#
        );
        let none = r#"Bearer resource_metadata="https://a.example/prm""#;
        assert_eq!(with_scopes_kept(none, &granted), none);
        // A `scope=` inside another parameter's value is neither read nor kept.
        let hidden = r#"Bearer realm="scope=x", Scope="a""#;
        assert_eq!(with_scopes_kept(hidden, &[]), r#"Bearer scope="a""#);
        let bad = vec!["x\"y".to_owned()];
        assert_eq!(
            with_scopes_kept("Bearer scope=a", &bad),
            r#"Bearer scope="a""#
        );
    }
}
