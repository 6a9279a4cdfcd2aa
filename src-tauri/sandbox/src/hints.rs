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

/// The first absolute path in `text` that is one on this computer (it exists, or the folder it
/// would be made in does), quotes and trailing punctuation removed: an API's "permission denied
/// for /repos/x" names no file the sandbox refused.
fn refused_path(text: &str) -> Option<String> {
    let on_this_computer = |w: &str| {
        let p = std::path::Path::new(w);
        p.exists()
            || p.parent()
                .is_some_and(|d| d != std::path::Path::new("/") && d.is_dir())
    };
    text.split(|c: char| c.is_whitespace() || "'\"`,()[]{}".contains(c))
        .map(|w| w.trim_end_matches([':', ';', '.']))
        .find(|w| w.starts_with('/') && w.len() > 1 && on_this_computer(w))
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_refusal_names_its_path() {
        let home = tempfile::tempdir().unwrap();
        let key = home.path().join(".ssh/id_ed25519");
        std::fs::create_dir_all(key.parent().unwrap()).unwrap();
        std::fs::write(&key, "").unwrap();
        let said = format!("Error: EACCES: permission denied, open '{}'", key.display());
        let hint = refusal_hint("files", &said).unwrap();
        assert!(
            hint.contains(&format!("access to {}.", key.display())),
            "{hint}"
        );
        assert!(hint.contains("sandbox settings"), "{hint}");
    }

    #[test]
    fn a_python_refusal_to_create_a_file_names_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("x.db");
        let said = format!(
            "PermissionError: [Errno 13] Permission denied: '{}'",
            db.display()
        );
        let hint = refusal_hint("py", &said).unwrap();
        assert!(
            hint.contains(&format!("access to {}.", db.display())),
            "{hint}"
        );
    }

    #[test]
    fn an_apis_path_is_not_called_a_file() {
        let hint = refusal_hint("gh", "403: permission denied for /repos/acme/secret").unwrap();
        assert!(hint.contains("may have refused"), "{hint}");
        assert!(!hint.contains("/repos"), "{hint}");
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
