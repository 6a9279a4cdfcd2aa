//! What a person reads when a server cannot be reached or stops answering: the one place that
//! turns a transport's chain of causes (reqwest, hyper, rmcp) into sentences that say what
//! failed, for which server, and what to try, with what lies behind it (an HTTP status, a short
//! excerpt of the body) as the error's details. The CLI and the window print what this makes.

use rmcp::service::ClientInitializeError;

use super::{Error, ErrorCode};

/// Most characters of a server's body kept in the details.
const EXCERPT: usize = 200;

/// Why connecting to server `server` at `url` failed, from what rmcp's handshake said.
pub fn handshake(server: &str, url: &url::Url, e: &ClientInitializeError) -> Error {
    let at = format!("Server {server:?} at {}", shown(url));
    match e {
        ClientInitializeError::TransportError { error, .. } => transport(&at, url, error),
        ClientInitializeError::LegacyFallbackFailed { discover, fallback } => {
            // The first attempt says why: the second only met the same wall again.
            match (discover.as_ref(), fallback.as_ref()) {
                (first @ ClientInitializeError::TransportError { .. }, _) => {
                    handshake(server, url, first)
                }
                (_, second) => handshake(server, url, second),
            }
        }
        ClientInitializeError::ConnectionClosed(why) => Error::new(
            ErrorCode::ConnectFailed,
            format!("{at} closed the connection during the handshake."),
        )
        .with_details(excerpt(why)),
        ClientInitializeError::JsonRpcError(data) => Error::new(
            ErrorCode::ConnectFailed,
            format!("{at} refused the handshake: {}.", excerpt(&data.message)),
        ),
        ClientInitializeError::NoCompatibleProtocolVersion { .. } => Error::new(
            ErrorCode::ConnectFailed,
            format!("{at} speaks no version of MCP that Switchboard does."),
        )
        .with_details(excerpt(&e.to_string())),
        _ => Error::new(
            ErrorCode::ConnectFailed,
            format!("{at} did not answer the handshake as MCP servers do."),
        )
        .with_details(excerpt(&e.to_string())),
    }
}

/// Why a request to a connected server could not be sent (no server or URL at hand).
pub fn request(cause: &(dyn std::error::Error + 'static)) -> Error {
    // Where the request went comes from the HTTP error itself ([`unreachable`]); this stands in
    // only where the cause names none.
    match url::Url::parse("http://server.invalid/") {
        Ok(unnamed) => transport("The server", &unnamed, cause),
        Err(_) => Error::new(ErrorCode::TransportClosed, "The request could not be sent."),
    }
}

/// The Streamable HTTP transport's own error, with the reqwest client both of ours use.
type HttpError = rmcp::transport::streamable_http_client::StreamableHttpError<reqwest::Error>;

/// A transport's failure, for `at` (who, where).
fn transport(at: &str, url: &url::Url, cause: &(dyn std::error::Error + 'static)) -> Error {
    if let Some(e) = first::<HttpError>(cause) {
        return http(at, url, e);
    }
    if let Some(e) = first::<reqwest::Error>(cause) {
        return unreachable(at, url, e);
    }
    Error::new(
        ErrorCode::ConnectFailed,
        format!("{at} could not be reached."),
    )
    .with_details(excerpt(&innermost(cause)))
}

fn http(at: &str, url: &url::Url, e: &HttpError) -> Error {
    match e {
        HttpError::Client(e) => unreachable(at, url, e),
        HttpError::HttpStatus(e) => status(at, e.status, ""),
        HttpError::UnexpectedServerResponse(said) => {
            match said.strip_prefix("HTTP ").and_then(|rest| {
                let (code, body) = rest.split_once(':').unwrap_or((rest, ""));
                let number = code.split_whitespace().next()?.parse().ok()?;
                Some((number, body.trim()))
            }) {
                Some((number, body)) => status(at, number, body),
                None => not_mcp(at, "what it answered is not JSON-RPC", said),
            }
        }
        HttpError::Deserialize(e) => {
            not_mcp(at, "what it answered is not JSON-RPC", &e.to_string())
        }
        HttpError::UnexpectedContentType(kind) => not_mcp(
            at,
            "it answered with a web page or a file",
            &format!("content type {}", kind.as_deref().unwrap_or("(none)")),
        ),
        HttpError::SessionExpired => Error::new(
            ErrorCode::TransportClosed,
            format!("{at} ended the session (it may have restarted): reconnect to go on."),
        ),
        other => Error::new(
            ErrorCode::ConnectFailed,
            format!("{at} could not be reached."),
        )
        .with_details(excerpt(&causes(other))),
    }
}

fn unreachable(at: &str, url: &url::Url, e: &reqwest::Error) -> Error {
    // The URL the request went to, as the error knows it, before the one the caller had.
    let url = e.url().unwrap_or(url);
    let chain = causes(e).to_lowercase();
    let host = url.host_str().unwrap_or("the server");
    let (code, message) = if e.is_timeout() {
        (ErrorCode::Timeout, format!("{at} did not answer in time."))
    } else if chain.contains("connection refused") {
        (
            ErrorCode::ConnectFailed,
            format!(
                "{at} refused the connection: check that it is running and listening on that port."
            ),
        )
    } else if chain.contains("dns error") || chain.contains("lookup address") {
        (
            ErrorCode::ConnectFailed,
            format!("{at}: the host {host} could not be found; check the URL and the network."),
        )
    } else if url.scheme() == "https" && e.is_connect() {
        (
            ErrorCode::ConnectFailed,
            format!(
                "{at}: the secure connection (TLS) failed; check that the URL is right (https or \
                 http) and that the server's certificate is valid for {host}."
            ),
        )
    } else {
        (
            ErrorCode::ConnectFailed,
            format!("{at} could not be reached."),
        )
    };
    Error::new(code, message).with_details(excerpt(&causes(e)))
}

/// An HTTP status where an MCP answer should have been.
fn status(at: &str, status: u16, body: &str) -> Error {
    let (code, message) = match status {
        401 => (
            ErrorCode::AuthRequired,
            format!(
                "{at} requires sign-in but does not say how (no WWW-Authenticate challenge): give \
                 it a token in a header, e.g. Authorization: Bearer ${{secret:NAME}}."
            ),
        ),
        403 => (
            ErrorCode::ConnectFailed,
            format!("{at} refused access (HTTP 403): check the credentials in its headers."),
        ),
        404 | 405 => (
            ErrorCode::ConnectFailed,
            format!(
                "{at} has no MCP endpoint at this URL (HTTP {status}): check the path, often /mcp."
            ),
        ),
        429 => (
            ErrorCode::ConnectFailed,
            format!("{at} is limiting requests (HTTP 429): try again later."),
        ),
        500..=599 => (
            ErrorCode::ConnectFailed,
            format!(
                "{at} failed inside (HTTP {status}): try again later, or tell its maintainers."
            ),
        ),
        _ => (
            ErrorCode::ConnectFailed,
            format!("{at} answered HTTP {status} instead of MCP."),
        ),
    };
    let details = match text_of(body) {
        Some(body) => format!("HTTP {status}: {}", excerpt(&body)),
        None => format!("HTTP {status}"),
    };
    Error::new(code, message).with_details(details)
}

fn not_mcp(at: &str, why: &str, said: &str) -> Error {
    Error::new(
        ErrorCode::ConnectFailed,
        format!("{at} answered, but not MCP: {why}. Is this the server's MCP endpoint?"),
    )
    .with_details(excerpt(said))
}

/// The first cause of type `T` in `e`'s chain.
fn first<'a, T: std::error::Error + 'static>(
    e: &'a (dyn std::error::Error + 'static),
) -> Option<&'a T> {
    let mut cause = Some(e);
    while let Some(current) = cause {
        if let Some(found) = current.downcast_ref::<T>() {
            return Some(found);
        }
        cause = current.source();
    }
    None
}

/// What the deepest cause that says something in words said.
fn innermost(e: &(dyn std::error::Error + 'static)) -> String {
    let mut said = e.to_string();
    let mut cause = e.source();
    while let Some(current) = cause {
        said = current.to_string();
        cause = current.source();
    }
    said
}

/// Every cause's own words, outermost first, each once (the `-vv` log line).
pub fn causes(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut cause = Some(e);
    while let Some(current) = cause {
        let said = current.to_string();
        if !out.iter().any(|earlier| earlier.contains(&said)) {
            out.push(said);
        }
        cause = current.source();
    }
    out.join(": ")
}

/// A body's text, if it has any worth showing: a page's tags and spacing are dropped.
fn text_of(body: &str) -> Option<String> {
    let mut text = String::with_capacity(body.len().min(4 * EXCERPT));
    let mut in_tag = false;
    for c in body.chars() {
        match c {
            '<' => in_tag = true,
            '>' => {
                in_tag = false;
                text.push(' ');
            }
            _ if !in_tag => text.push(c),
            _ => {}
        }
        if text.len() > 4 * EXCERPT {
            break;
        }
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    (!words.is_empty()).then(|| words.join(" "))
}

/// At most [`EXCERPT`] characters of `text` on one line, Rust's type names taken out, and
/// anything that looks like a credential redacted.
pub fn excerpt(text: &str) -> String {
    let words: Vec<String> = text
        .split_whitespace()
        .filter(|w| !w.contains("::"))
        .map(redacted)
        .collect();
    let line = words.join(" ");
    match line.char_indices().nth(EXCERPT) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}

/// A word that may be a credential (a bearer token, a key) is never shown.
fn redacted(word: &str) -> String {
    let long_secret = word.len() >= 24
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
        && word.chars().any(|c| c.is_ascii_digit());
    let keyish = ["sk-", "ghp_", "xox", "eyJ"]
        .iter()
        .any(|p| word.starts_with(p));
    match long_secret || keyish {
        true => "[redacted]".to_owned(),
        false => word.to_owned(),
    }
}

/// The URL without its query or credentials (either may carry a token).
fn shown(url: &url::Url) -> String {
    let mut shown = url.clone();
    shown.set_query(None);
    let _ = shown.set_password(None);
    let _ = shown.set_username("");
    shown.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_excerpt_is_short_one_line_and_without_secrets_or_type_names() {
        let long = format!("{} Bearer sk-abcdef123 ghp_x", "word ".repeat(100));
        let e = excerpt(&format!(
            "Transport [rmcp::transport::Worker<X>] {long}\nmore"
        ));
        assert!(e.chars().count() <= EXCERPT + 1, "{e}");
        assert!(!e.contains("::") && !e.contains('\n'), "{e}");
        let tail = excerpt("Bearer sk-abcdef123 and eyJhbGciOiJIUzI1NiJ9");
        assert_eq!(tail, "Bearer [redacted] and [redacted]");
    }

    #[test]
    fn a_page_shows_as_its_words() {
        let page = "<!DOCTYPE html><html><body><h1>Bad gateway</h1>\n<p>nginx</p></body></html>";
        assert_eq!(text_of(page).as_deref(), Some("Bad gateway nginx"));
        assert_eq!(text_of("   "), None);
    }

    /// A request to a connected server that fails names the host it went to, which only the
    /// HTTP error inside the transport's error knows.
    #[tokio::test]
    async fn a_failed_request_names_the_host_it_went_to() {
        let e = reqwest::get("http://no-such-host.invalid/mcp")
            .await
            .unwrap_err();
        let wrapped = HttpError::Client(e);
        let error = request(&wrapped);
        assert!(
            error.message.contains("no-such-host.invalid"),
            "{}",
            error.message
        );
    }

    #[test]
    fn a_url_is_shown_without_its_query_or_credentials() {
        let url = url::Url::parse("https://me:pw@example.com/mcp?key=secret").unwrap();
        assert_eq!(shown(&url), "https://example.com/mcp");
    }
}
