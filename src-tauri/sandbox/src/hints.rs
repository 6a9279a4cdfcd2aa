//! Recognising the box's refusals. A sandboxed server that is refused a file or a connection
//! says so in its own words (EACCES, EPERM, "permission denied", "operation not permitted"); the
//! user is told that the sandbox refused it, which path where it can be known, and where to allow
//! it. Nothing is retried unsandboxed.

/// Words servers use for a refused access.
const REFUSAL_WORDS: &[&str] = &[
    "eacces",
    "eperm",
    "permission denied",
    "operation not permitted",
];

/// The hint for `text` (a stderr line or a tool result's text) from a sandboxed server named
/// `server`; `None` when it does not read as a refusal.
pub fn refusal_hint(server: &str, text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    if !REFUSAL_WORDS.iter().any(|w| lower.contains(w)) {
        return None;
    }
    Some(match refused_path(text) {
        Some(path) => format!(
            "The sandbox refused server \"{server}\" access to {path}. If it needs it, allow it in the server's sandbox settings."
        ),
        None => format!(
            "The sandbox may have refused server \"{server}\" something it tried (a file, a connection or a system call). If it needs it, allow it in the server's sandbox settings."
        ),
    })
}

/// The first absolute path in `text`, quotes and trailing punctuation removed.
fn refused_path(text: &str) -> Option<String> {
    text.split(|c: char| c.is_whitespace() || "'\"`,()[]{}".contains(c))
        .map(|w| w.trim_end_matches([':', ';', '.']))
        .find(|w| w.starts_with('/') && w.len() > 1)
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_refusal_names_its_path() {
        let hint = refusal_hint(
            "files",
            "Error: EACCES: permission denied, open '/home/u/.ssh/id_ed25519'",
        )
        .unwrap();
        assert!(
            hint.contains("access to /home/u/.ssh/id_ed25519."),
            "{hint}"
        );
        assert!(hint.contains("sandbox settings"), "{hint}");
    }

    #[test]
    fn a_python_refusal_names_its_path() {
        let hint = refusal_hint(
            "py",
            "PermissionError: [Errno 13] Permission denied: '/data/x.db'",
        )
        .unwrap();
        assert!(hint.contains("access to /data/x.db."), "{hint}");
    }

    #[test]
    fn a_refusal_without_a_path_still_says_where_to_look() {
        let hint = refusal_hint("net", "connect EPERM").unwrap();
        assert!(hint.contains("may have refused"), "{hint}");
    }

    #[test]
    fn other_text_gets_no_hint() {
        assert_eq!(refusal_hint("s", "listening on stdio"), None);
    }
}
