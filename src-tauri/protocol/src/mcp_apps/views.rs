//! The views the window has open: each is one tool's `ui://` resource, read from its server,
//! checked to be an MCP App, and kept here under a random id until the window closes it. The
//! shell serves a view's HTML by that id; every request the view makes names it, which binds the
//! request to the view's own server. A view is under limits as a server is: a few requests
//! waiting at once and a bounded rate ([`Views::admit`]); the excess is refused with an error the
//! view sees.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use rmcp::model::{ReadResourceResult, ResourceContents};
use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use super::csp::{AppCsp, AppPermissions};
use crate::error::{Error, ErrorCode, Result};

/// The most views open at once; opening one more closes the oldest.
pub const MAX_VIEWS: usize = 16;

/// Requests one view may have waiting at once (a tool call waits for the person's review).
pub const MAX_PENDING: usize = 4;

/// Requests one view may make in [`RATE_WINDOW`].
pub const MAX_PER_WINDOW: usize = 60;

/// The span [`MAX_PER_WINDOW`] counts over.
pub const RATE_WINDOW: Duration = Duration::from_secs(10);

/// The largest view HTML accepted.
pub const MAX_HTML_BYTES: usize = 8 * 1024 * 1024;

/// A view the window opened, as the window sees it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AppView {
    pub view_id: String,
    pub server: String,
    pub tool: String,
    pub resource_uri: String,
    /// The URL the iframe loads: the shell serves the resource's HTML there with a CSP built
    /// from its `_meta.ui.csp`.
    pub src: String,
    pub csp: AppCsp,
    pub permissions: AppPermissions,
    pub prefers_border: Option<bool>,
}

/// What the shell serves for a view.
#[derive(Debug, Clone)]
pub struct Page {
    pub html: Arc<str>,
    /// The `Content-Security-Policy` header.
    pub csp: String,
}

struct Open {
    view: AppView,
    /// Taken when the shell serves it: a view's page loads once, in its frame.
    page: Option<Page>,
    /// Opening order, to close the oldest past [`MAX_VIEWS`].
    serial: u64,
    /// Its requests admitted and not yet answered.
    pending: Arc<AtomicUsize>,
    /// When its requests in the last [`RATE_WINDOW`] were admitted (at most [`MAX_PER_WINDOW`]).
    recent: VecDeque<Instant>,
}

/// A view's request, admitted: it counts as waiting until dropped.
#[derive(Debug)]
pub struct Admitted {
    pub view: AppView,
    pending: Arc<AtomicUsize>,
}

impl Drop for Admitted {
    fn drop(&mut self) {
        self.pending.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The open views. Cheap to clone; the lock is never held across an await.
#[derive(Clone, Default)]
pub struct Views(Arc<Mutex<State>>);

#[derive(Default)]
struct State {
    open: HashMap<String, Open>,
    serial: u64,
}

impl Views {
    /// Registers the view in `read` (the answer to `resources/read` of `uri`) for `tool`.
    pub fn open(
        &self,
        server: &str,
        tool: &str,
        uri: &str,
        read: ReadResourceResult,
    ) -> Result<AppView> {
        let (html, meta) = app_html(server, uri, read)?;
        let ui = meta.as_ref().and_then(|m| m.get("ui"));
        let csp = AppCsp::from_meta(ui.and_then(|u| u.get("csp")));
        let view_id = crate::canonical::new_id();
        let view = AppView {
            src: src(&view_id),
            view_id: view_id.clone(),
            server: server.to_owned(),
            tool: tool.to_owned(),
            resource_uri: uri.to_owned(),
            permissions: AppPermissions::from_meta(ui.and_then(|u| u.get("permissions"))),
            prefers_border: ui
                .and_then(|u| u.get("prefersBorder"))
                .and_then(Value::as_bool),
            csp: csp.clone(),
        };
        let page = Page {
            html: html.into(),
            csp: csp.header(),
        };
        let mut state = self.lock();
        state.serial += 1;
        let serial = state.serial;
        state.open.insert(
            view_id,
            Open {
                view: view.clone(),
                page: Some(page),
                serial,
                pending: Arc::default(),
                recent: VecDeque::new(),
            },
        );
        if state.open.len() > MAX_VIEWS {
            let oldest = state
                .open
                .iter()
                .min_by_key(|(_, o)| o.serial)
                .map(|(id, _)| id.clone());
            if let Some(id) = oldest {
                state.open.remove(&id);
            }
        }
        Ok(view)
    }

    /// An open view.
    pub fn get(&self, view_id: &str) -> Result<AppView> {
        self.lock()
            .open
            .get(view_id)
            .map(|o| o.view.clone())
            .ok_or_else(not_open)
    }

    /// Admits one more request from view `view_id`, if it has fewer than [`MAX_PENDING`] waiting
    /// and made fewer than [`MAX_PER_WINDOW`] in the last [`RATE_WINDOW`]; otherwise refuses it
    /// (`limit_exceeded`), and a refused request does not count.
    pub fn admit(&self, view_id: &str) -> Result<Admitted> {
        let mut state = self.lock();
        let open = state.open.get_mut(view_id).ok_or_else(not_open)?;
        let now = Instant::now();
        while open
            .recent
            .front()
            .is_some_and(|t| now.duration_since(*t) >= RATE_WINDOW)
        {
            open.recent.pop_front();
        }
        let over = if open.pending.load(Ordering::SeqCst) >= MAX_PENDING {
            Some(format!("it has {MAX_PENDING} requests waiting already"))
        } else if open.recent.len() >= MAX_PER_WINDOW {
            Some(format!(
                "it made {MAX_PER_WINDOW} in the last {} seconds",
                RATE_WINDOW.as_secs()
            ))
        } else {
            None
        };
        if let Some(why) = over {
            return Err(Error::new(
                ErrorCode::LimitExceeded,
                format!(
                    "The view of {} on {} makes too many requests ({why}); this one was refused.",
                    open.view.tool, open.view.server
                ),
            ));
        }
        open.recent.push_back(now);
        open.pending.fetch_add(1, Ordering::SeqCst);
        Ok(Admitted {
            view: open.view.clone(),
            pending: open.pending.clone(),
        })
    }

    /// What the shell serves for `view_id`, once: the frame the window made for the view loads
    /// it, and nothing that learns the view's address later (the window itself, another view)
    /// gets the page again.
    pub fn serve(&self, view_id: &str) -> Option<Page> {
        self.lock()
            .open
            .get_mut(view_id)
            .and_then(|o| o.page.take())
    }

    /// Forgets a view (its page is no longer served).
    pub fn close(&self, view_id: &str) {
        self.lock().open.remove(view_id);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding this lock leaves a map that is still consistent.
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn not_open() -> Error {
    Error::new(ErrorCode::InvalidInput, "that view is no longer open")
}

/// Where the iframe loads a view (WebKitGTK and WKWebView take custom schemes as they are; WebView2
/// reaches them as `http://<scheme>.localhost`).
fn src(view_id: &str) -> String {
    let scheme = super::SCHEME;
    if cfg!(windows) {
        format!("http://{scheme}.localhost/{view_id}")
    } else {
        format!("{scheme}://localhost/{view_id}")
    }
}

/// The HTML of the one MCP App content in `read`, and its `_meta`.
fn app_html(
    server: &str,
    uri: &str,
    read: ReadResourceResult,
) -> Result<(String, Option<serde_json::Map<String, Value>>)> {
    let bad = |why: String| {
        Error::new(
            ErrorCode::ServerError,
            format!("server {server:?} has no view at {uri}: {why}"),
        )
    };
    let content = read
        .contents
        .into_iter()
        .find(|c| content_mime(c).is_some_and(super::is_app_mime))
        .ok_or_else(|| bad(format!("no content of type {}", super::MIME_TYPE)))?;
    let (html, meta) = match content {
        ResourceContents::TextResourceContents { text, meta, .. } => (text, meta),
        ResourceContents::BlobResourceContents { blob, meta, .. } => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(blob.as_bytes())
                .map_err(|e| bad(format!("its content is not base64: {e}")))?;
            let text =
                String::from_utf8(bytes).map_err(|_| bad("its content is not UTF-8".into()))?;
            (text, meta)
        }
        _ => return Err(bad("its content is of an unknown kind".into())),
    };
    if html.len() > MAX_HTML_BYTES {
        return Err(bad(format!(
            "it is {} bytes, more than the {MAX_HTML_BYTES} a view may have",
            html.len()
        )));
    }
    Ok((html, meta.map(|m| m.0)))
}

fn content_mime(content: &ResourceContents) -> Option<&str> {
    match content {
        ResourceContents::TextResourceContents { mime_type, .. }
        | ResourceContents::BlobResourceContents { mime_type, .. } => mime_type.as_deref(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(contents: Value) -> ReadResourceResult {
        serde_json::from_value(json!({ "contents": contents })).unwrap()
    }

    fn app(text: &str, meta: Value) -> Value {
        json!([{"uri": "ui://t/app.html", "mimeType": "text/html;profile=mcp-app",
                "text": text, "_meta": meta}])
    }

    #[test]
    fn opens_an_app_with_its_declared_csp_and_serves_it_by_id() {
        let views = Views::default();
        let meta = json!({"ui": {"csp": {"connectDomains": ["https://api.example.com"]},
                                  "permissions": {"camera": {}}, "prefersBorder": false}});
        let view = views
            .open("s", "t", "ui://t/app.html", read(app("<p>hi</p>", meta)))
            .unwrap();
        assert_eq!(view.csp.connect_domains, ["https://api.example.com"]);
        assert!(view.permissions.camera && !view.permissions.microphone);
        assert_eq!(view.prefers_border, Some(false));
        assert!(view.src.ends_with(&view.view_id));
        let page = views.serve(&view.view_id).unwrap();
        assert_eq!(&*page.html, "<p>hi</p>");
        assert!(page.csp.contains("connect-src https://api.example.com;"));
        assert!(
            views.serve(&view.view_id).is_none(),
            "a page is served once"
        );
        assert!(views.get(&view.view_id).is_ok(), "the view stays open");
        views.close(&view.view_id);
        assert_eq!(
            views.get(&view.view_id).unwrap_err().code,
            ErrorCode::InvalidInput
        );
    }

    #[test]
    fn a_view_has_a_few_requests_waiting_and_a_bounded_rate() {
        let views = Views::default();
        let view = views
            .open("s", "t", "ui://t/app.html", read(app("<p>", json!({}))))
            .unwrap();
        let id = &view.view_id;
        let waiting: Vec<Admitted> = (0..MAX_PENDING).map(|_| views.admit(id).unwrap()).collect();
        let e = views.admit(id).unwrap_err();
        assert_eq!(e.code, ErrorCode::LimitExceeded, "{e}");
        assert!(e.message.contains("requests waiting"), "{e}");
        drop(waiting);
        // Answered ones make room; the rate still counts them.
        let mut admitted = MAX_PENDING;
        while views.admit(id).is_ok() {
            admitted += 1;
            assert!(admitted <= MAX_PER_WINDOW, "the rate is not bounded");
        }
        assert_eq!(admitted, MAX_PER_WINDOW);
        let e = views.admit(id).unwrap_err();
        assert!(e.message.contains("in the last 10 seconds"), "{e}");
        assert_eq!(
            views.admit("nope").unwrap_err().code,
            ErrorCode::InvalidInput
        );
    }

    #[test]
    fn refuses_content_that_is_not_an_app() {
        let views = Views::default();
        let plain = json!([{"uri": "ui://t/app.html", "mimeType": "text/html", "text": "<p>"}]);
        let e = views
            .open("s", "t", "ui://t/app.html", read(plain))
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::ServerError);
        assert!(
            e.message.contains("text/html;profile=mcp-app"),
            "{}",
            e.message
        );
        let huge = "x".repeat(MAX_HTML_BYTES + 1);
        let e = views
            .open("s", "t", "ui://t/app.html", read(app(&huge, Value::Null)))
            .unwrap_err();
        assert!(e.message.contains("more than"), "{}", e.message);
    }

    #[test]
    fn a_blob_view_is_decoded() {
        let blob = base64::engine::general_purpose::STANDARD.encode("<b>blob</b>");
        let contents =
            json!([{"uri": "ui://t/a", "mimeType": "text/html;profile=mcp-app", "blob": blob}]);
        let views = Views::default();
        let view = views.open("s", "t", "ui://t/a", read(contents)).unwrap();
        assert_eq!(&*views.serve(&view.view_id).unwrap().html, "<b>blob</b>");
    }

    #[test]
    fn opening_past_the_cap_closes_the_oldest() {
        let views = Views::default();
        let ids: Vec<String> = (0..=MAX_VIEWS)
            .map(|_| {
                views
                    .open("s", "t", "ui://t/app.html", read(app("x", Value::Null)))
                    .unwrap()
                    .view_id
            })
            .collect();
        assert!(views.get(&ids[0]).is_err());
        assert!(ids[1..].iter().all(|id| views.get(id).is_ok()));
    }
}
