//! The Content Security Policy a view is served with: a fixed, closed default opened only by the
//! origins the resource's `_meta.ui.csp` declares, each checked to be a plain origin (so a value
//! cannot smuggle in a directive, a keyword such as `'unsafe-eval'`, or a wildcard for every host),
//! and the browser permissions the resource declares, which the window grants only after asking.

use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

/// The most origins one list may open: enough for any real view, few enough to show.
pub const MAX_ORIGINS: usize = 32;

/// The origins a view may reach, as declared by its resource and accepted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AppCsp {
    /// `fetch`, XHR and WebSocket targets.
    pub connect_domains: Vec<String>,
    /// Scripts, styles, images, fonts and media.
    pub resource_domains: Vec<String>,
    /// Nested frames.
    pub frame_domains: Vec<String>,
    /// `<base href>` targets.
    pub base_uri_domains: Vec<String>,
}

/// The browser permissions a view declares; none is granted before the person allows it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AppPermissions {
    pub camera: bool,
    pub microphone: bool,
    pub geolocation: bool,
    pub clipboard_write: bool,
}

impl AppCsp {
    /// The accepted origins of a resource's `_meta.ui.csp`; anything else is dropped (and logged).
    pub fn from_meta(csp: Option<&Value>) -> Self {
        let list = |key: &str| origins(csp.and_then(|c| c.get(key)));
        Self {
            connect_domains: list("connectDomains"),
            resource_domains: list("resourceDomains"),
            frame_domains: list("frameDomains"),
            base_uri_domains: list("baseUriDomains"),
        }
    }

    /// The `Content-Security-Policy` header value. Inline script and style are allowed (a view is
    /// one HTML file); nothing else loads or connects unless declared.
    pub fn header(&self) -> String {
        let with = |fixed: &str, extra: &[String]| {
            let mut sources: Vec<&str> = fixed.split(' ').filter(|s| !s.is_empty()).collect();
            sources.extend(extra.iter().map(String::as_str));
            if sources.is_empty() {
                "'none'".to_owned()
            } else {
                sources.join(" ")
            }
        };
        let res = &self.resource_domains;
        [
            "default-src 'none'".to_owned(),
            format!("script-src {}", with("'unsafe-inline'", res)),
            format!("style-src {}", with("'unsafe-inline'", res)),
            format!("img-src {}", with("data: blob:", res)),
            format!("font-src {}", with("data:", res)),
            format!("media-src {}", with("data: blob:", res)),
            format!("connect-src {}", with("", &self.connect_domains)),
            format!("frame-src {}", with("", &self.frame_domains)),
            format!("base-uri {}", with("", &self.base_uri_domains)),
            "form-action 'none'".to_owned(),
            "object-src 'none'".to_owned(),
            "worker-src 'none'".to_owned(),
            // Wherever the page lands (its frame, or the window itself by some trick), it runs
            // in an opaque origin with scripts only, as the frame's own sandbox has it.
            "sandbox allow-scripts".to_owned(),
        ]
        .join("; ")
    }
}

impl AppPermissions {
    /// The permissions a resource's `_meta.ui.permissions` declares (each a present key).
    pub fn from_meta(permissions: Option<&Value>) -> Self {
        let declared = |key: &str| permissions.is_some_and(|p| p.get(key).is_some());
        Self {
            camera: declared("camera"),
            microphone: declared("microphone"),
            geolocation: declared("geolocation"),
            clipboard_write: declared("clipboardWrite"),
        }
    }
}

fn origins(list: Option<&Value>) -> Vec<String> {
    let Some(items) = list.and_then(Value::as_array) else {
        return Vec::new();
    };
    let mut accepted = Vec::new();
    for item in items {
        match item.as_str().and_then(origin) {
            Some(o) if accepted.len() < MAX_ORIGINS && !accepted.contains(&o) => accepted.push(o),
            Some(_) => {}
            None => {
                tracing::warn!(value = %item, "a view's CSP declared something that is not an origin; ignored")
            }
        }
    }
    accepted
}

/// `raw` as a CSP origin if it is one: `https://` or `wss://` with a host (optionally `*.` for its
/// subdomains) and a port, or plain `http://`/`ws://` to this machine. No path, no keyword.
pub fn origin(raw: &str) -> Option<String> {
    let (scheme, rest) = raw.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    let (host, port) = match rest.rsplit_once(':') {
        Some((h, p)) if !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()) => {
            (h, Some(p))
        }
        _ => (rest.strip_suffix('/').unwrap_or(rest), None),
    };
    let host = host.to_ascii_lowercase();
    let loopback = matches!(host.as_str(), "localhost" | "127.0.0.1");
    let secure = matches!(scheme.as_str(), "https" | "wss");
    let plain_local = matches!(scheme.as_str(), "http" | "ws") && loopback;
    if !(secure || plain_local) || !valid_host(&host) {
        return None;
    }
    Some(match port {
        Some(p) => format!("{scheme}://{host}:{p}"),
        None => format!("{scheme}://{host}"),
    })
}

fn valid_host(host: &str) -> bool {
    let name = host.strip_prefix("*.").unwrap_or(host);
    let labels: Vec<&str> = name.split('.').collect();
    // `*.com` would open a whole top-level domain.
    let too_wide = host.starts_with("*.") && labels.len() < 2;
    !too_wide
        && !name.is_empty()
        && name.len() <= 253
        && labels.iter().all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !l.starts_with('-')
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn without_declarations_nothing_loads_or_connects() {
        let header = AppCsp::from_meta(None).header();
        assert!(header.starts_with("default-src 'none'; script-src 'unsafe-inline';"));
        for closed in [
            "connect-src 'none'",
            "frame-src 'none'",
            "base-uri 'none'",
            "object-src 'none'",
            "form-action 'none'",
            "sandbox allow-scripts",
        ] {
            assert!(header.contains(closed), "{closed} missing from {header}");
        }
        assert!(!header.contains("unsafe-eval"));
        assert!(!header.contains('*'));
    }

    #[test]
    fn declared_origins_open_their_directives_only() {
        let csp = AppCsp::from_meta(Some(&json!({
            "connectDomains": ["https://api.example.com", "wss://live.example.com:8443"],
            "resourceDomains": ["https://*.tiles.example.org"],
            "frameDomains": ["https://www.youtube.com"],
        })));
        let header = csp.header();
        assert!(
            header.contains("connect-src https://api.example.com wss://live.example.com:8443;")
        );
        assert!(header.contains("script-src 'unsafe-inline' https://*.tiles.example.org;"));
        assert!(header.contains("img-src data: blob: https://*.tiles.example.org;"));
        assert!(header.contains("frame-src https://www.youtube.com;"));
        assert!(header.contains("base-uri 'none'"));
    }

    #[test]
    fn a_declaration_cannot_smuggle_in_directives_keywords_or_every_host() {
        let hostile = json!({
            "connectDomains": [
                "https://a.example; script-src *",
                "'unsafe-eval'",
                "*",
                "https://*",
                "https://*.com",
                "http://evil.example",
                "https://ok.example/path",
                "javascript://x",
                "https://a.example 'unsafe-eval'",
                "data:",
                42,
            ],
            "resourceDomains": "https://not-a-list.example",
        });
        let csp = AppCsp::from_meta(Some(&hostile));
        assert_eq!(csp.connect_domains, Vec::<String>::new());
        assert_eq!(csp.resource_domains, Vec::<String>::new());
        let header = csp.header();
        assert!(!header.contains("unsafe-eval"), "{header}");
        assert!(header.contains("connect-src 'none'"), "{header}");
        assert_eq!(header.matches("script-src").count(), 1, "{header}");
    }

    #[test]
    fn loopback_may_be_plain_http_and_lists_are_capped() {
        assert_eq!(
            origin("http://localhost:3001").as_deref(),
            Some("http://localhost:3001")
        );
        assert_eq!(
            origin("HTTPS://Example.COM/").as_deref(),
            Some("https://example.com")
        );
        let many: Vec<String> = (0..100).map(|i| format!("https://h{i}.example")).collect();
        let csp = AppCsp::from_meta(Some(&json!({ "connectDomains": many })));
        assert_eq!(csp.connect_domains.len(), MAX_ORIGINS);
    }

    #[test]
    fn permissions_are_what_is_declared() {
        let p = AppPermissions::from_meta(Some(&json!({"microphone": {}, "clipboardWrite": {}})));
        assert_eq!(
            p,
            AppPermissions {
                camera: false,
                microphone: true,
                geolocation: false,
                clipboard_write: true
            }
        );
        assert_eq!(AppPermissions::from_meta(None), AppPermissions::default());
    }
}
