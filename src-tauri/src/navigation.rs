//! The window stays on the app: every navigation away from the app's own origin is refused, so
//! neither server content (a link, a refresh, a form) nor script can put another page, with the
//! app's commands beside it, in the window. Links the person follows open in the browser instead
//! (`open_external`).

use tauri::plugin::{Builder, TauriPlugin};
use tauri::{Emitter, Manager, Runtime, Url};

/// The event the window hears when the guard kept it on the app: the host the page was sent to
/// (never the whole URL, which may carry a token), so the person sees that something tried.
pub const NAVIGATION_REFUSED: &str = "navigation-refused";

/// A plugin whose navigation handler refuses, for every webview, whatever [`is_app`] does not
/// allow.
pub fn guard<R: Runtime>() -> TauriPlugin<R> {
    Builder::new("navigation-guard")
        .on_navigation(|webview, url| {
            let dev_url = tauri::is_dev()
                .then(|| webview.config().build.dev_url.clone())
                .flatten();
            let allowed = is_app(url, dev_url.as_ref()) || is_view(url);
            if !allowed {
                let host = url.host_str().unwrap_or(url.scheme()).to_owned();
                tracing::warn!(
                    scheme = url.scheme(),
                    host,
                    "refused to navigate the window away from the app"
                );
                let _ = webview.emit(NAVIGATION_REFUSED, host);
            }
            allowed
        })
        .build()
}

/// Whether `url` is the app itself: the origin Tauri serves the built UI from (`tauri://localhost`,
/// or `http(s)://tauri.localhost` where custom schemes go over http), or in a dev build the dev
/// server's origin.
pub fn is_app(url: &Url, dev_url: Option<&Url>) -> bool {
    let served = url.port().is_none()
        && match url.scheme() {
            "tauri" => url.host_str() == Some("localhost"),
            "http" | "https" => url.host_str() == Some("tauri.localhost"),
            _ => false,
        };
    let dev = dev_url.is_some_and(|dev| {
        matches!(dev.scheme(), "http" | "https")
            && dev.scheme() == url.scheme()
            && dev.host_str() == url.host_str()
            && dev.port_or_known_default() == url.port_or_known_default()
    });
    served || dev
}

/// Whether `url` is a view's page (MCP Apps), which the window frames. The handler cannot tell a
/// frame from the window, so this lets the window itself go there too; the page is served once,
/// to the frame the window made for it, so the window would find nothing.
pub fn is_view(url: &Url) -> bool {
    let scheme = switchboard_core::app::SCHEME;
    url.port().is_none()
        && match url.scheme() {
            s if s == scheme => url.host_str() == Some("localhost"),
            "http" => url.host_str() == Some(&format!("{scheme}.localhost")),
            _ => false,
        }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn only_the_apps_own_origin_is_allowed() {
        for app in [
            "tauri://localhost",
            "tauri://localhost/index.html?x=1#servers",
            "http://tauri.localhost/",
            "https://tauri.localhost/assets/index.js",
        ] {
            assert!(is_app(&url(app), None), "{app}");
        }
        for away in [
            "https://example.com/",
            "http://127.0.0.1:8080/",
            "http://localhost:1420/",
            "tauri://localhost.example.com/",
            "tauri://evil/",
            "http://tauri.localhost.example.com/",
            "http://tauri.localhost:8080/",
            "file:///etc/passwd",
            "data:text/html,<h1>hi</h1>",
            "javascript:alert(1)",
            "about:blank",
            "blob:https://example.com/1",
        ] {
            assert!(!is_app(&url(away), None), "{away}");
        }
    }

    #[test]
    fn views_are_their_own_scheme_and_nothing_else() {
        assert!(is_view(&url("mcp-app://localhost/0123abcd")));
        assert!(is_view(&url("http://mcp-app.localhost/0123abcd")));
        for other in [
            "mcp-app://evil/x",
            "mcp-app://localhost:1/x",
            "https://mcp-app.localhost/x",
            "http://mcp-app.localhost.example.com/x",
            "tauri://localhost",
        ] {
            assert!(!is_view(&url(other)), "{other}");
        }
    }

    #[test]
    fn a_dev_build_also_allows_its_dev_server_and_nothing_else() {
        let dev = url("http://localhost:1420");
        assert!(is_app(
            &url("http://localhost:1420/src/main.tsx"),
            Some(&dev)
        ));
        assert!(is_app(&url("tauri://localhost"), Some(&dev)));
        for away in [
            "http://localhost:1421/",
            "https://localhost:1420/",
            "http://127.0.0.1:1420/",
            "https://example.com/",
        ] {
            assert!(!is_app(&url(away), Some(&dev)), "{away}");
        }
    }
}
