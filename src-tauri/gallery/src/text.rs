//! Text from a registry or a bundle, made safe to show: hidden characters revealed, control
//! characters gone, lengths capped, names checked. A listing's text is never trusted to be what
//! it claims (a description can hide instructions, a name can try to be a path).

use switchboard_base::visible;

/// The longest a one-line field (a title, a version, a package name) is shown.
pub const SHORT: usize = 200;
/// The longest a description is shown.
pub const LONG: usize = 1_000;

/// `text` with hidden characters revealed and cut to `max` characters (an ellipsis says so).
pub fn shown(text: &str, max: usize) -> String {
    let revealed = visible::reveal(text);
    if revealed.chars().count() <= max {
        return revealed.into_owned();
    }
    let mut cut: String = revealed.chars().take(max).collect();
    cut.push('…');
    cut
}

/// Whether `name` is a registry server name: `namespace/name` in reverse-DNS form, as the
/// `server.json` schema says, and nothing a path could make more of.
pub fn is_server_name(name: &str) -> bool {
    let Some((namespace, rest)) = name.split_once('/') else {
        return false;
    };
    let ok = |part: &str, extra: &[char]| {
        !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-' || extra.contains(&c))
    };
    name.len() <= 200
        && ok(namespace, &[])
        && ok(rest, &['_'])
        && !namespace.split('.').any(str::is_empty)
        && rest != "."
        && rest != ".."
}

/// A local server name made from a registry name: its last part, in the characters a config key
/// and a keychain entry take.
pub fn local_name(registry_name: &str) -> String {
    let last = registry_name.rsplit('/').next().unwrap_or(registry_name);
    let name: String = last
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '-'
            }
        })
        .take(64)
        .collect();
    let name = name.trim_matches('-');
    if name.is_empty() {
        "server".to_owned()
    } else {
        name.to_owned()
    }
}

/// Whether `version` is one exact version as the schema asks (no range, no path), short enough.
pub fn is_exact_version(version: &str) -> bool {
    !version.is_empty()
        && version.len() <= 64
        && version != "latest"
        && version
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | '_'))
        && !version.contains("..")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(is_server_name(
            "io.github.modelcontextprotocol/server-everything"
        ));
        assert!(is_server_name("com.example/my_server.v2"));
        for bad in [
            "no-slash",
            "a/b/c",
            "io.x/..",
            "io.x/.",
            "../x",
            "io..x/y",
            "io.x/y z",
            "io.x/y;rm",
            "",
        ] {
            assert!(!is_server_name(bad), "{bad}");
        }
    }

    #[test]
    fn versions() {
        assert!(is_exact_version("1.2.3"));
        assert!(is_exact_version("2025.11.25-beta+build.1"));
        for bad in [
            "", "^1.2.3", "~1", ">=1", "1.x y", "latest", "../1", "1;rm -rf",
        ] {
            assert!(!is_exact_version(bad), "{bad}");
        }
    }

    #[test]
    fn shown_reveals_and_caps() {
        assert_eq!(shown("a\u{200b}b", 50), "a⟨U+200B⟩b");
        let long = "x".repeat(5_000);
        let s = shown(&long, 10);
        assert_eq!(s.chars().count(), 11);
        assert!(s.ends_with('…'));
    }

    #[test]
    fn local_names() {
        assert_eq!(
            local_name("io.github.modelcontextprotocol/server-everything"),
            "server-everything"
        );
        assert_eq!(local_name("a/b.c d"), "b-c-d");
        assert_eq!(local_name("a/.."), "server");
    }
}
