//! The HTTP client a DPoP sign-in's OAuth steps go through (rmcp's `OAuthHttpClient`): every
//! request as rmcp asks for it (its redirect policy, its timeout, a bounded answer), reaching
//! only the addresses [`AddressPolicy`] allows, and every token request (a form POST with a
//! `grant_type`: the code exchange and each refresh) with a fresh proof. An authorization server
//! that answers `use_dpop_nonce` is asked once more, with its nonce.

use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::auth::{
    OAuthHttpClient, OAuthHttpClientError, OAuthHttpClientFuture, OAuthHttpRedirectPolicy,
    OAuthHttpRequest,
};

use super::addresses::AddressPolicy;
use super::{DPOP, Dpop, Side, asks_for_nonce};
use crate::error::{Error, ErrorCode, Result};

/// The largest answer read from an authorization server.
const MAX_ANSWER: usize = 1024 * 1024;
/// How long a request may take when rmcp names no bound (rmcp's own default).
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// How many redirects a request rmcp lets follow them may follow.
const MAX_REDIRECTS: usize = 10;

/// Sign-in requests for the server at one URL, token requests with DPoP proofs.
pub struct TokenRequests {
    follow: reqwest::Client,
    stop: reqwest::Client,
    policy: AddressPolicy,
    dpop: Arc<Dpop>,
}

impl TokenRequests {
    /// The client for signing in to the server at `url` with tokens bound to `dpop`.
    pub fn new(url: &url::Url, dpop: Arc<Dpop>) -> Result<Self> {
        let policy = AddressPolicy::for_server(url);
        let build = |redirect| {
            reqwest::Client::builder()
                .dns_resolver(Arc::new(policy))
                .redirect(redirect)
                .build()
                .map_err(|e| Error::new(ErrorCode::Internal, format!("HTTP client: {e}")))
        };
        let follow = reqwest::redirect::Policy::custom(move |attempt| {
            if !policy.allows_url(attempt.url()) || attempt.previous().len() > MAX_REDIRECTS {
                attempt.stop()
            } else {
                attempt.follow()
            }
        });
        Ok(Self {
            follow: build(follow)?,
            stop: build(reqwest::redirect::Policy::none())?,
            policy,
            dpop,
        })
    }

    async fn send(&self, request: OAuthHttpRequest) -> Result<oauth2::HttpResponse> {
        let OAuthHttpRequest {
            request,
            redirect_policy,
            timeout,
            ..
        } = request;
        let (parts, body) = request.into_parts();
        let url = url::Url::parse(&parts.uri.to_string()).map_err(|e| refused(&e.to_string()))?;
        if !self.policy.allows_url(&url) {
            return Err(refused(&format!("{url} is not an address it may reach")));
        }
        let client = match redirect_policy {
            OAuthHttpRedirectPolicy::Stop => &self.stop,
            _ => &self.follow,
        };
        let is_token_request = parts.method == reqwest::Method::POST && has_grant_type(&body);
        let attempt = || {
            let mut sent = client
                .request(parts.method.clone(), url.clone())
                .headers(parts.headers.clone())
                .body(body.clone())
                .timeout(timeout.unwrap_or(DEFAULT_TIMEOUT));
            if is_token_request {
                let proof = self.dpop.proof(
                    parts.method.as_str(),
                    url.as_str(),
                    None,
                    Side::TokenEndpoint,
                )?;
                sent = sent.header(DPOP, proof);
            }
            Ok::<_, Error>(sent.send())
        };
        let answer = read(attempt()?.await).await?;
        let new_nonce = self.dpop.learn_nonce(Side::TokenEndpoint, answer.headers());
        let wants_nonce = answer.status() == reqwest::StatusCode::BAD_REQUEST
            && asks_for_nonce(&String::from_utf8_lossy(answer.body()));
        if is_token_request && wants_nonce && new_nonce {
            let again = read(attempt()?.await).await?;
            self.dpop.learn_nonce(Side::TokenEndpoint, again.headers());
            return Ok(again);
        }
        Ok(answer)
    }
}

impl OAuthHttpClient for TokenRequests {
    fn execute(&self, request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        Box::pin(async move {
            self.send(request)
                .await
                .map_err(|e| OAuthHttpClientError::from(e.message))
        })
    }
}

/// Whether a request body is a form with a `grant_type`: a token request.
fn has_grant_type(body: &[u8]) -> bool {
    url::form_urlencoded::parse(body).any(|(name, _)| name == "grant_type")
}

/// `sent`'s answer as rmcp takes it, its body read to at most [`MAX_ANSWER`] bytes.
async fn read(
    sent: std::result::Result<reqwest::Response, reqwest::Error>,
) -> Result<oauth2::HttpResponse> {
    let mut response = sent.map_err(|e| refused(&crate::error::explain::causes(&e)))?;
    let mut answer = oauth2::http::Response::builder()
        .status(response.status())
        .version(response.version());
    for (name, value) in response.headers() {
        answer = answer.header(name, value);
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| refused(&e.to_string()))?
    {
        if body.len() + chunk.len() > MAX_ANSWER {
            return Err(refused(&format!(
                "an answer larger than {MAX_ANSWER} bytes"
            )));
        }
        body.extend_from_slice(&chunk);
    }
    answer.body(body).map_err(|e| refused(&e.to_string()))
}

fn refused(why: &str) -> Error {
    Error::new(
        ErrorCode::AuthFailed,
        format!("signing in failed: a request to the authorization server failed: {why}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secrets::{MemoryStore, SecretStore};

    /// A sign-in for a public server never reaches this computer, even through a name that
    /// resolves here: its clients dial only what [`AddressPolicy`] allows.
    #[tokio::test]
    async fn a_public_servers_sign_in_requests_never_reach_loopback() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let store: Arc<dyn SecretStore> = Arc::new(MemoryStore::default());
        let public = url::Url::parse("https://mcp.example.com/mcp").unwrap();
        let dpop = Dpop::stored_or_new(store, public.as_str()).await.unwrap();
        let requests = TokenRequests::new(&public, dpop.clone()).unwrap();
        for client in [&requests.follow, &requests.stop] {
            let sent = client.get(format!("http://localhost:{port}/token"));
            let sent = sent.timeout(Duration::from_secs(2)).send().await;
            assert!(sent.is_err(), "a request was answered from loopback");
        }
        let reached = tokio::time::timeout(Duration::from_millis(200), listener.accept()).await;
        assert!(reached.is_err(), "a request reached loopback");
        // The same request on behalf of a server on loopback goes through.
        let local = url::Url::parse(&format!("http://localhost:{port}/mcp")).unwrap();
        let requests = TokenRequests::new(&local, dpop).unwrap();
        let sent = requests.stop.get(format!("http://localhost:{port}/token"));
        let answered = tokio::spawn(async move { sent.send().await.is_ok() });
        let (mut stream, _) = listener.accept().await.unwrap();
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let _ = stream.read(&mut [0u8; 4096]).await;
        stream
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
            .await
            .unwrap();
        assert!(answered.await.unwrap());
    }
}
