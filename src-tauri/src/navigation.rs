//! The window stays on the app: every navigation away from the app's own origin is refused, so
//! neither server content (a link, a refresh, a form) nor script can put another page, with the
//! app's commands beside it, in the window. Links the person follows open in the browser instead
//! (`open_external`).
//!
//! A view's page (MCP Apps) belongs in a sandboxed frame, never in the window itself: Tauri
//! counts every scheme the app registers as its own, so a view page in the window would get the
//! app's commands. The window that starts loading one is sent back to the app, the page answers
//! with a CSP sandbox wherever it lands (an opaque origin, which no capability names), and
//! [`invoked_by_app`] refuses every command not sent by the app's own page.

use tauri::plugin::{Builder, TauriPlugin};
use tauri::webview::PageLoadEvent;
use tauri::{Emitter, Manager, Runtime, Url, Webview};

/// The event the window hears when the guard kept it on the app: the host the page was sent to
/// (never the whole URL, which may carry a token), so the person sees that something tried.
pub const NAVIGATION_REFUSED: &str = "navigation-refused";

/// A plugin whose navigation handler refuses, for every webview, whatever [`is_app`] does not
/// allow.
pub fn guard<R: Runtime>() -> TauriPlugin<R> {
    Builder::new("navigation-guard")
        .on_navigation(|webview, url| {
            let allowed = is_app(url, dev_url(webview).as_ref()) || is_view(url);
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
        .on_webview_ready(|webview| ipc_only_over_its_protocol(&webview))
        // Page loads are the window's own document, never a frame's.
        .on_page_load(|webview, payload| {
            if payload.event() == PageLoadEvent::Started && is_view(payload.url()) {
                tracing::warn!("refused a view's page in the window itself; back to the app");
                if let Some(app) = app_url(dev_url(webview)) {
                    let _ = webview.navigate(app);
                }
            }
        })
        .build()
}

/// Takes away WebKit's message handler for IPC, so that every invoke comes over Tauri's IPC
/// protocol, where WebKit itself writes the `Origin` [`invoked_by_app`] reads. Tauri's script
/// falls back to the handler when that protocol fails; the app's own page never needs it.
fn ipc_only_over_its_protocol<R: Runtime>(webview: &Webview<R>) {
    #[cfg(target_os = "linux")]
    {
        use webkit2gtk::{UserContentManagerExt, WebViewExt};
        let done = webview.with_webview(|platform| {
            if let Some(manager) = platform.inner().user_content_manager() {
                manager.unregister_script_message_handler("ipc");
            }
        });
        if let Err(e) = done {
            tracing::warn!("could not take away the window's message handler for IPC: {e}");
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = webview;
}

/// The dev server's URL in a dev build.
fn dev_url<R: Runtime>(webview: &Webview<R>) -> Option<Url> {
    tauri::is_dev()
        .then(|| webview.config().build.dev_url.clone())
        .flatten()
}

/// Where the app's own page is served from.
fn app_url(dev_url: Option<Url>) -> Option<Url> {
    let served = if cfg!(windows) {
        "http://tauri.localhost/"
    } else {
        "tauri://localhost/"
    };
    dev_url.or_else(|| Url::parse(served).ok())
}

/// Whether a command was invoked by the app's own page: the window shows the app (`page`), and
/// the request's `Origin` is the app's. That header is set by WebKit on the IPC protocol's
/// requests (a sandboxed page sends `null`); an invoke without it came by WebKit's message
/// handler, whose headers the page writes and whose page is whatever the window shows by then
/// (already the app again, while a view page sent back to it still runs), so it is refused.
pub fn invoked_by_app(page: Option<&Url>, origin: Option<&str>, dev_url: Option<&Url>) -> bool {
    let app = |u: &Url| is_app(u, dev_url);
    page.is_some_and(app) && origin.is_some_and(|o| Url::parse(o).is_ok_and(|u| app(&u)))
}

/// [`invoked_by_app`] for `invoke`; otherwise it is refused with a sentence.
pub fn admit_invoke<R: Runtime>(invoke: &tauri::ipc::Invoke<R>) -> bool {
    let webview = invoke.message.webview_ref();
    let origin = invoke
        .message
        .headers()
        .get(tauri::http::header::ORIGIN)
        .map(|v| v.to_str().unwrap_or("null"));
    let page = webview.url().ok();
    if invoked_by_app(page.as_ref(), origin, dev_url(webview).as_ref()) {
        return true;
    }
    tracing::warn!(
        command = invoke.message.command(),
        "refused a command from a page that is not the app"
    );
    invoke.resolver.clone().reject(switchboard_core::Error::new(
        switchboard_core::ErrorCode::Denied,
        "Only Switchboard's own window may do this.",
    ));
    false
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
    fn only_the_apps_own_page_may_invoke() {
        let app = url("tauri://localhost/index.html");
        assert!(invoked_by_app(Some(&app), Some("tauri://localhost"), None));
        // No `Origin`: not over the IPC protocol, so nothing says which page sent it.
        assert!(!invoked_by_app(Some(&app), None, None));
        // The window itself on a view's page (Tauri counts the scheme as the app's own).
        let view = url("mcp-app://localhost/0123abcd");
        assert!(!invoked_by_app(Some(&view), None, None));
        assert!(!invoked_by_app(
            Some(&view),
            Some("mcp-app://localhost"),
            None
        ));
        // A frame or sandboxed page inside the app's window.
        for origin in [
            "mcp-app://localhost",
            "null",
            "https://example.com",
            "not a url",
        ] {
            assert!(!invoked_by_app(Some(&app), Some(origin), None), "{origin}");
        }
        assert!(!invoked_by_app(None, None, None));
        let dev = url("http://localhost:1420");
        let page = url("http://localhost:1420/");
        assert!(invoked_by_app(
            Some(&page),
            Some("http://localhost:1420"),
            Some(&dev)
        ));
        assert!(!invoked_by_app(Some(&view), None, Some(&dev)));
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
