//! Serves the views (MCP Apps) on a scheme of their own, never the app's origin: each page once,
//! with the CSP the core built from the resource's declared origins, no caching, no sniffing, no
//! referrer. The window frames them sandboxed (scripts only), so a view runs in an opaque origin
//! with no way to the app's commands, storage or window.

use std::borrow::Cow;

use switchboard_core::app::App;
use tauri::http::{Request, Response, StatusCode, header};
use tauri::{Manager, Runtime, UriSchemeContext, UriSchemeResponder};

/// The scheme handler for [`switchboard_core::app::SCHEME`].
pub fn serve<R: Runtime>(
    ctx: UriSchemeContext<'_, R>,
    request: Request<Vec<u8>>,
    responder: UriSchemeResponder,
) {
    let view_id = request.uri().path().trim_start_matches('/').to_owned();
    let page = ctx
        .app_handle()
        .try_state::<App>()
        .and_then(|app| app.serve_app_view(&view_id));
    responder.respond(match page {
        Some(page) => page_response(page.html.as_bytes().to_vec(), &page.csp),
        None => not_found(),
    });
}

fn page_response(html: Vec<u8>, csp: &str) -> Response<Cow<'static, [u8]>> {
    Response::builder()
        .header(header::CONTENT_TYPE, "text/html; charset=utf-8")
        .header(header::CONTENT_SECURITY_POLICY, csp)
        .header(header::X_CONTENT_TYPE_OPTIONS, "nosniff")
        .header(header::CACHE_CONTROL, "no-store")
        .header(header::REFERRER_POLICY, "no-referrer")
        .body(Cow::Owned(html))
        .unwrap_or_else(|_| not_found())
}

fn not_found() -> Response<Cow<'static, [u8]>> {
    let mut response = Response::new(Cow::Borrowed(&b"this view is not open"[..]));
    *response.status_mut() = StatusCode::NOT_FOUND;
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        header::HeaderValue::from_static("default-src 'none'"),
    );
    response
}
