//! Where bad input enters this crate, each with a property that must hold for any input (run
//! by `proptest` through `crate::fuzz`; `scripts/fuzz.sh` runs them long). Apart from `fuzz`, so
//! that the strategies the modules' own tests use import none of them.

// Roots are deprecated by SEP-2577 for 2026-07-28; Switchboard speaks every revision.
#![allow(deprecated)]

use proptest::prelude::*;

use crate::fuzz::{config, json, words};

const CSP_WORDS: &[&str] = &[
    "https://",
    "http://",
    "a.example",
    "*",
    ".",
    ";",
    " ",
    "'unsafe-eval'",
    "'self'",
    "script-src",
    ":443",
    "/path",
    "\n",
    "data:",
    "\"",
    "'",
    ",",
    "mcp-app:",
    "é",
];

const SCOPE_WORDS: &[&str] = &[
    "Bearer ",
    "scope=",
    "\"",
    "mcp:read",
    " ",
    ",",
    "error=",
    "insufficient_scope",
    "resource_metadata=",
    "https://a.example/prm",
    "scope",
    "=",
    "\\",
    "é",
];

const URL_WORDS: &[&str] = &[
    "https://",
    "http://",
    "javascript:",
    "file:",
    "localhost",
    "127.0.0.1",
    "[::1]",
    "localhost.example.com",
    "@",
    ":",
    "/",
    "%2F",
    "#",
    "?",
    "0x7f.1",
    "example.com",
];

proptest! {
    #![proptest_config(config(5_000))]

    /// A view's declared CSP: whatever it says, the header has exactly the directives the
    /// host writes, and what a view added is only origins (no keyword, no wildcard but `*.` for
    /// the subdomains of a name).
    #[test]
    fn a_views_csp_is_only_origins_in_fixed_directives(
        meta in json(words(CSP_WORDS, 6)),
        domains in prop::collection::vec(words(CSP_WORDS, 6), 0..6),
    ) {
        use crate::mcp_apps::AppCsp;
        let declared = serde_json::json!({
            "connectDomains": domains, "resourceDomains": meta.clone(),
            "frameDomains": meta, "baseUriDomains": ["https://a.example"],
        });
        let csp = AppCsp::from_meta(Some(&declared));
        let header = csp.header();
        prop_assert_eq!(header.split("; ").count(), 13, "{}", header);
        for origin in csp
            .connect_domains
            .iter()
            .chain(&csp.resource_domains)
            .chain(&csp.frame_domains)
        {
            // An origin: a scheme, a host (a leading `*.` for the subdomains of a name of at
            // least two labels, as MCP Apps allow) and perhaps a port; nothing else.
            let (scheme, host) = origin.split_once("://").unwrap_or(("", origin));
            prop_assert!(matches!(scheme, "https" | "wss" | "http" | "ws"), "{}", origin);
            let host = host.strip_prefix("*.").map_or(host, |h| {
                assert!(h.contains('.'), "{origin}");
                h
            });
            prop_assert!(!host.contains([' ', ';', '\'', '"', '*', ',', '\n', '/']), "{}", origin);
        }
    }

    /// A challenge's scopes and a step-up: never a panic, and the widened challenge asks for
    /// everything the server asked and everything granted.
    #[test]
    fn a_step_up_asks_for_all_it_must(
        challenge in words(SCOPE_WORDS, 12),
        granted in prop::collection::vec("[a-z:]{1,8}", 0..4),
    ) {
        let widened = crate::auth::with_scopes_kept(&challenge, &granted);
        if let Some(asked) = crate::auth::challenge_scopes(&challenge) {
            let now = crate::auth::challenge_scopes(&widened).unwrap_or_default();
            let now: Vec<&str> = now.split(' ').collect();
            // `granted` holds only valid scope tokens here (the strategy makes them so).
            for scope in asked.split(' ').chain(granted.iter().map(String::as_str)) {
                prop_assert!(now.contains(&scope), "{} lost from {:?}", scope, widened);
            }
        } else {
            prop_assert_eq!(widened, challenge);
        }
    }

    /// Sign-in opens the browser only on https, or http to this computer's loopback.
    #[test]
    fn sign_in_opens_only_https_or_loopback(text in words(URL_WORDS, 8)) {
        if let Ok(url) = url::Url::parse(&text) {
            let opens = crate::auth::loopback::opens_in_browser(&url);
            let loopback = matches!(url.host(), Some(url::Host::Domain("localhost")))
                || matches!(url.host(), Some(url::Host::Ipv4(ip)) if ip.is_loopback())
                || matches!(url.host(), Some(url::Host::Ipv6(ip)) if ip.is_loopback());
            let allowed = url.scheme() == "https" || (url.scheme() == "http" && loopback);
            prop_assert_eq!(opens, allowed, "{}", url);
        }
    }

    /// Any JSON a server sends decodes as a message or is refused; never a panic.
    #[test]
    fn any_json_rpc_envelope_decodes_or_is_refused(
        value in json(words(&["jsonrpc", "2.0", "id", "method", "result", "error", "params", "tools/call", "ping", "code", "message"], 2)),
    ) {
        let _ = serde_json::from_value::<rmcp::model::ServerJsonRpcMessage>(value.clone());
        let _ = serde_json::from_value::<rmcp::model::ClientJsonRpcMessage>(value);
    }

    /// Roots as servers get them: the URI of a path is the path, lexically normalised (no
    /// `.` or `..` left), whatever its characters; so a server and its box agree on it.
    #[test]
    fn a_root_uri_names_exactly_its_normalised_path(
        segments in prop::collection::vec(
            prop_oneof![
                Just("..".to_owned()), Just(".".to_owned()),
                "[a-zA-Z0-9 %#?;é_.-]{1,8}",
            ],
            1..6,
        ),
    ) {
        let path = std::path::PathBuf::from(format!("/{}", segments.join("/")));
        let roots = crate::handler::roots_from_paths(std::slice::from_ref(&path));
        prop_assert_eq!(roots.len(), 1);
        let back = url::Url::parse(&roots[0].uri).ok().and_then(|u| u.to_file_path().ok());
        prop_assert_eq!(back, Some(normalised(&path)));
    }
}

/// `path` with `.` and `..` resolved lexically (never above `/`).
fn normalised(path: &std::path::Path) -> std::path::PathBuf {
    let mut out = std::path::PathBuf::from("/");
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::Normal(p) => out.push(p),
            _ => {}
        }
    }
    out
}
