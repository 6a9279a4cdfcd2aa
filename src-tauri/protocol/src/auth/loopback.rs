//! The person's step of signing in: the system browser opens the authorization URL, and the
//! authorization server redirects it back to a listener on 127.0.0.1 (a random port) that takes
//! one redirect carrying the `state` this sign-in sent, answers with a page saying the window can
//! be closed, and stops.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use super::Authorizer;
use crate::error::{Error, ErrorCode, Result};

/// How long the listener waits for the person to finish in the browser.
pub const SIGN_IN_TIMEOUT: Duration = Duration::from_secs(600);

/// Longest request line and headers read from the browser.
const MAX_REQUEST: usize = 16 * 1024;

/// Opens a URL in the system browser (the app: the opener plugin; the CLI: the platform's
/// opener, or printing it).
pub type Open = Box<dyn Fn(&str) -> Result<()> + Send + Sync>;

/// A loopback redirect listener with a way to open the browser.
pub struct Loopback {
    listener: TcpListener,
    port: u16,
    open: Open,
    cancel: CancellationToken,
    timeout: Duration,
}

impl Loopback {
    /// Listens on 127.0.0.1 at a port the system picks.
    pub async fn bind(open: Open, cancel: CancellationToken) -> Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let port = listener.local_addr()?.port();
        Ok(Self {
            listener,
            port,
            open,
            cancel,
            timeout: SIGN_IN_TIMEOUT,
        })
    }

    /// The same listener, giving up after `timeout` instead of [`SIGN_IN_TIMEOUT`].
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    async fn wait_for_redirect(&self, state: &str) -> Result<String> {
        loop {
            let (mut stream, _) = self.listener.accept().await?;
            let Some(target) = request_target(&mut stream).await else {
                continue;
            };
            let query = target
                .strip_prefix("/callback?")
                .map(str::to_owned)
                .unwrap_or_default();
            let params: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
                .into_owned()
                .collect();
            let param = |k: &str| params.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
            if param("state").as_deref() != Some(state) {
                // Not this sign-in's redirect (a stray request, a forged one): ignored.
                respond(
                    &mut stream,
                    400,
                    "This is not the sign-in Switchboard is waiting for.",
                )
                .await;
                continue;
            }
            if let Some(error) = param("error") {
                respond(
                    &mut stream,
                    200,
                    "Sign-in was not completed. You can close this window.",
                )
                .await;
                let why = param("error_description").unwrap_or(error);
                return Err(Error::new(
                    ErrorCode::AuthFailed,
                    format!("the authorization server refused: {why}"),
                ));
            }
            respond(
                &mut stream,
                200,
                "Signed in. You can close this window and return to Switchboard.",
            )
            .await;
            return Ok(format!("{}?{query}", self.redirect_uri()));
        }
    }
}

#[async_trait::async_trait]
impl Authorizer for Loopback {
    fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}/callback", self.port)
    }

    async fn authorize(&self, authorization_url: &str) -> Result<String> {
        let url = url::Url::parse(authorization_url)
            .map_err(|e| Error::new(ErrorCode::AuthFailed, format!("authorization URL: {e}")))?;
        if !opens_in_browser(&url) {
            return Err(Error::new(
                ErrorCode::AuthFailed,
                format!(
                    "refusing to open {url}: an authorization URL must be https (http only on this machine)"
                ),
            ));
        }
        let state = url
            .query_pairs()
            .find(|(k, _)| k == "state")
            .map(|(_, v)| v.into_owned())
            .ok_or_else(|| {
                Error::new(ErrorCode::AuthFailed, "the authorization URL has no state")
            })?;
        (self.open)(url.as_str())?;
        tokio::select! {
            done = tokio::time::timeout(self.timeout, self.wait_for_redirect(&state)) => {
                done.map_err(|_| Error::new(
                    ErrorCode::AuthFailed,
                    format!("sign-in was not finished within {} s", self.timeout.as_secs()),
                ))?
            }
            () = self.cancel.cancelled() => Err(Error::new(ErrorCode::Cancelled, "sign-in cancelled")),
        }
    }
}

/// Only https pages go to the browser; http only when it stays on this machine.
pub fn opens_in_browser(url: &url::Url) -> bool {
    match url.scheme() {
        "https" => true,
        "http" => is_loopback_host(url),
        _ => false,
    }
}

/// Whether `url`'s host is this computer's loopback (`localhost`, 127.0.0.0/8, `::1`).
pub fn is_loopback_host(url: &url::Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// The target of a `GET <target> HTTP/1.1` request, reading no more than [`MAX_REQUEST`] bytes.
async fn request_target(stream: &mut TcpStream) -> Option<String> {
    let mut buf = Vec::with_capacity(1024);
    let mut chunk = [0u8; 1024];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut chunk))
            .await
            .ok()?
            .ok()?;
        if read == 0 || buf.len() + read > MAX_REQUEST {
            return None;
        }
        buf.extend_from_slice(&chunk[..read]);
    }
    let line = std::str::from_utf8(&buf).ok()?.lines().next()?.to_owned();
    let mut parts = line.split(' ');
    (parts.next()? == "GET").then_some(())?;
    parts.next().map(str::to_owned)
}

async fn respond(stream: &mut TcpStream, status: u16, text: &str) {
    let body = format!(
        "<!doctype html><meta charset=utf-8><title>Switchboard</title>\
         <body style=\"font:16px system-ui;margin:3em\"><p>{text}</p></body>"
    );
    let reason = if status == 200 { "OK" } else { "Bad Request" };
    let response = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n\
         Content-Length: {}\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes()).await;
    let _ = stream.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn get(port: u16, target: &str) -> String {
        let mut s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        s.write_all(format!("GET {target} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
            .await
            .unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).await.unwrap();
        out
    }

    #[tokio::test]
    async fn takes_only_the_redirect_with_this_sign_ins_state() {
        let opened = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let seen = opened.clone();
        let open: Open = Box::new(move |u| {
            *seen.lock().unwrap() = u.to_owned();
            Ok(())
        });
        let loopback = Loopback::bind(open, CancellationToken::new())
            .await
            .unwrap();
        let port = loopback.port;
        let redirect = loopback.redirect_uri();
        assert_eq!(redirect, format!("http://127.0.0.1:{port}/callback"));
        let waiting = tokio::spawn(async move {
            loopback
                .authorize("https://as.example/authorize?client_id=c&state=s%201")
                .await
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        let forged = get(port, "/callback?code=evil&state=other").await;
        assert!(forged.starts_with("HTTP/1.1 400"), "{forged}");
        let ok = get(
            port,
            "/callback?code=abc&state=s+1&iss=https%3A%2F%2Fas.example",
        )
        .await;
        assert!(ok.contains("You can close this window"), "{ok}");
        let url = waiting.await.unwrap().unwrap();
        assert_eq!(
            url,
            format!("{redirect}?code=abc&state=s+1&iss=https%3A%2F%2Fas.example")
        );
        assert_eq!(
            *opened.lock().unwrap(),
            "https://as.example/authorize?client_id=c&state=s%201"
        );
        // Single use: the listener is gone once the sign-in has its redirect.
        assert!(TcpStream::connect(("127.0.0.1", port)).await.is_err());
    }

    #[tokio::test]
    async fn never_opens_a_non_https_page_and_can_be_cancelled() {
        let open: Open = Box::new(|_| panic!("must not open"));
        let cancel = CancellationToken::new();
        let loopback = Loopback::bind(open, cancel.clone()).await.unwrap();
        for url in [
            "http://as.example/authorize?state=1",
            "file:///etc/passwd?state=1",
            "javascript:alert(1)",
        ] {
            let e = loopback.authorize(url).await.unwrap_err();
            assert_eq!(e.code, ErrorCode::AuthFailed, "{url}");
        }
        let open: Open = Box::new(|_| Ok(()));
        let loopback = Loopback::bind(open, cancel.clone()).await.unwrap();
        cancel.cancel();
        let e = loopback
            .authorize("http://127.0.0.1:9/authorize?state=1")
            .await
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::Cancelled);
    }

    #[tokio::test]
    async fn an_error_redirect_is_a_clear_failure() {
        let open: Open = Box::new(|_| Ok(()));
        let loopback = Loopback::bind(open, CancellationToken::new())
            .await
            .unwrap();
        let port = loopback.port;
        let waiting =
            tokio::spawn(async move { loopback.authorize("https://as.example/a?state=xyz").await });
        tokio::time::sleep(Duration::from_millis(50)).await;
        get(
            port,
            "/callback?error=access_denied&error_description=user+said+no&state=xyz",
        )
        .await;
        let e = waiting.await.unwrap().unwrap_err();
        assert_eq!(e.code, ErrorCode::AuthFailed);
        assert!(e.message.contains("user said no"), "{}", e.message);
    }
}
