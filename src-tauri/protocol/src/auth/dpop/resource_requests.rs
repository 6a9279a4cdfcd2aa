//! The HTTP client under a signed-in server's Streamable HTTP transport (the inner client of
//! rmcp's `AuthClient`, which hands it the token). A bearer token goes out as rmcp sends it; a
//! DPoP-bound one goes out with the `DPoP` scheme and a fresh proof per request (RFC 9449 §7).
//!
//! A server that refuses a proof for want of its nonce names the nonce in a `DPoP-Nonce` header,
//! which rmcp's answer to a 401 leaves out. So the refused request is sent once more, signed
//! alike and so refused alike, by this client itself, to read the header; then it is sent with
//! the nonce. Refused twice, it was taken neither time; an answer other than a refusal the
//! second time is an error and the request is not sent a third time.

use std::collections::HashMap;
use std::sync::Arc;

use futures::stream::BoxStream;
use reqwest::header::{ACCEPT, AUTHORIZATION, HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::auth::AuthError;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
};
use sse_stream::{Error as SseError, Sse};

use super::{Dpop, Side, asks_for_nonce};

type Failed = StreamableHttpError<reqwest::Error>;
type Posted = Result<StreamableHttpPostResponse, Failed>;
type Events = Result<BoxStream<'static, Result<Sse, SseError>>, Failed>;
type Headers = HashMap<HeaderName, HeaderValue>;

/// Requests to one signed-in server; DPoP-signed when its tokens are bound to `dpop`.
#[derive(Clone)]
pub struct ResourceRequests {
    http: reqwest::Client,
    dpop: Option<Arc<Dpop>>,
}

impl ResourceRequests {
    pub fn new(http: reqwest::Client, dpop: Option<Arc<Dpop>>) -> Self {
        Self { http, dpop }
    }
}

/// `custom` with the token under the DPoP scheme and a fresh proof for a `method` to `uri`.
fn signed(
    dpop: &Dpop,
    method: &str,
    uri: &str,
    token: &str,
    custom: &Headers,
) -> Result<Headers, Failed> {
    let proof = dpop
        .proof(method, uri, Some(token), Side::Resource)
        .map_err(|e| AuthError::InternalError(e.message))?;
    let sensitive = |v: String| {
        let mut v = HeaderValue::try_from(v)
            .map_err(|_| AuthError::InternalError("a token that is not a header value".into()))?;
        v.set_sensitive(true);
        Ok::<_, Failed>(v)
    };
    let mut headers = custom.clone();
    headers.insert(AUTHORIZATION, sensitive(format!("DPoP {token}"))?);
    headers.insert(HeaderName::from_static("dpop"), sensitive(proof)?);
    Ok(headers)
}

/// Whether a refusal asks for a nonce.
fn wants_nonce(e: &Failed) -> bool {
    matches!(e, StreamableHttpError::AuthRequired(c) if asks_for_nonce(&c.www_authenticate_header))
}

impl ResourceRequests {
    /// Sends `request` (a refused one again, signed alike) to read the nonce the refusal names;
    /// whether a new one was given.
    async fn nonce_from_refusal(
        &self,
        dpop: &Dpop,
        request: reqwest::RequestBuilder,
    ) -> Result<bool, Failed> {
        let answer = request.send().await.map_err(StreamableHttpError::Client)?;
        if answer.status() != reqwest::StatusCode::UNAUTHORIZED {
            return Err(StreamableHttpError::UnexpectedServerResponse(
                format!(
                    "the server refused a request for want of a DPoP nonce, then answered it \
                     ({}) when it was sent again to read the nonce; it is not sent a third time",
                    answer.status()
                )
                .into(),
            ));
        }
        Ok(dpop.learn_nonce(Side::Resource, answer.headers()))
    }

    /// Runs `attempt`; refused for want of a nonce, sends `again` (the refused request, built
    /// anew) to read the nonce, then runs `attempt` once more.
    async fn with_nonce<T, Fut>(
        &self,
        dpop: &Dpop,
        attempt: impl Fn() -> Fut,
        again: impl FnOnce() -> Result<reqwest::RequestBuilder, Failed>,
    ) -> Result<T, Failed>
    where
        Fut: Future<Output = Result<T, Failed>>,
    {
        match attempt().await {
            Err(e) if wants_nonce(&e) => {
                if self.nonce_from_refusal(dpop, again()?).await? {
                    attempt().await
                } else {
                    Err(e)
                }
            }
            other => other,
        }
    }

    fn raw(
        &self,
        method: reqwest::Method,
        uri: &str,
        session: Option<&str>,
        headers: Headers,
    ) -> reqwest::RequestBuilder {
        let mut request = self.http.request(method, uri);
        for (name, value) in headers {
            request = request.header(name, value);
        }
        match session {
            Some(id) => request.header("Mcp-Session-Id", id),
            None => request,
        }
    }
}

impl StreamableHttpClient for ResourceRequests {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Posted {
        self.post_message_with_max_sse_event_size(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            usize::MAX,
        )
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: Headers,
        max: usize,
    ) -> Posted {
        let (Some(dpop), Some(token)) = (&self.dpop, auth_header.clone()) else {
            return self
                .http
                .post_message_with_max_sse_event_size(
                    uri,
                    message,
                    session_id,
                    auth_header,
                    custom_headers,
                    max,
                )
                .await;
        };
        let send = || async {
            let headers = signed(dpop, "POST", &uri, &token, &custom_headers)?;
            self.http
                .post_message_with_max_sse_event_size(
                    uri.clone(),
                    message.clone(),
                    session_id.clone(),
                    None,
                    headers,
                    max,
                )
                .await
        };
        let again = || {
            let headers = signed(dpop, "POST", &uri, &token, &custom_headers)?;
            Ok(self
                .raw(reqwest::Method::POST, &uri, session_id.as_deref(), headers)
                .header(ACCEPT, "text/event-stream, application/json")
                .json(&message))
        };
        self.with_nonce(dpop, send, again).await
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Result<(), Failed> {
        let (Some(dpop), Some(token)) = (&self.dpop, auth_header.clone()) else {
            return self
                .http
                .delete_session(uri, session_id, auth_header, custom_headers)
                .await;
        };
        let headers = signed(dpop, "DELETE", &uri, &token, &custom_headers)?;
        self.http
            .delete_session(uri, session_id, None, headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: Headers,
    ) -> Events {
        self.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth_header,
            custom_headers,
            usize::MAX,
        )
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: Headers,
        max: usize,
    ) -> Events {
        let (Some(dpop), Some(token)) = (&self.dpop, auth_header.clone()) else {
            return self
                .http
                .get_stream_with_max_sse_event_size(
                    uri,
                    session_id,
                    last_event_id,
                    auth_header,
                    custom_headers,
                    max,
                )
                .await;
        };
        let open = || async {
            let headers = signed(dpop, "GET", &uri, &token, &custom_headers)?;
            self.http
                .get_stream_with_max_sse_event_size(
                    uri.clone(),
                    session_id.clone(),
                    last_event_id.clone(),
                    None,
                    headers,
                    max,
                )
                .await
        };
        // Opening the stream again has no effect a first opening would not have had.
        let again = || {
            let headers = signed(dpop, "GET", &uri, &token, &custom_headers)?;
            Ok(self
                .raw(reqwest::Method::GET, &uri, session_id.as_deref(), headers)
                .header(ACCEPT, "text/event-stream"))
        };
        self.with_nonce(dpop, open, again).await
    }
}

#[cfg(test)]
mod tests {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::sync::Mutex;

    use super::*;
    use crate::secrets::MemoryStore;

    /// A loopback server answering the n-th request with `answers[n]`; it keeps each request's
    /// `DPoP` header.
    fn serve(answers: Vec<&'static str>) -> (String, Arc<Mutex<Vec<String>>>) {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let proofs = Arc::new(Mutex::new(Vec::new()));
        let seen = proofs.clone();
        std::thread::spawn(move || {
            for (stream, answer) in listener.incoming().flatten().zip(answers) {
                let mut reader = BufReader::new(stream);
                let (mut length, mut proof) = (0, String::new());
                loop {
                    let mut line = String::new();
                    reader.read_line(&mut line).unwrap();
                    let lower = line.to_ascii_lowercase();
                    if let Some(v) = lower.strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap();
                    }
                    if lower.starts_with("dpop:") {
                        proof = line[5..].trim().to_owned();
                    }
                    if line == "\r\n" {
                        break;
                    }
                }
                reader.read_exact(&mut vec![0; length]).unwrap();
                seen.lock().unwrap().push(proof);
                reader.get_mut().write_all(answer.as_bytes()).unwrap();
            }
        });
        (url, proofs)
    }

    const NONCE: &str = "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: DPoP error=\"use_dpop_nonce\"\r\nDPoP-Nonce: n-1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    const ANSWER: &str = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 36\r\nConnection: close\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}";

    async fn post(url: &str) -> Posted {
        let store: Arc<dyn crate::secrets::SecretStore> = Arc::new(MemoryStore::default());
        let dpop = Dpop::stored_or_new(store, url).await.unwrap();
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(0)
            .build()
            .unwrap();
        let message: ClientJsonRpcMessage = serde_json::from_value(serde_json::json!({
            "jsonrpc": "2.0", "id": 1, "method": "tools/list"
        }))
        .unwrap();
        ResourceRequests::new(http, Some(dpop))
            .post_message(url.into(), message, None, Some("t".into()), HashMap::new())
            .await
    }

    fn nonce_of(proof: &str) -> Option<String> {
        use base64::Engine;
        let claims = proof.split('.').nth(1).unwrap();
        let claims: serde_json::Value =
            serde_json::from_slice(&super::super::B64.decode(claims).unwrap()).unwrap();
        claims["nonce"].as_str().map(str::to_owned)
    }

    #[tokio::test]
    async fn a_request_refused_for_a_nonce_goes_again_with_it() {
        let (url, proofs) = serve(vec![NONCE, NONCE, ANSWER]);
        let posted = post(&url).await;
        assert!(
            matches!(posted, Ok(StreamableHttpPostResponse::Json(..))),
            "{posted:?}"
        );
        let proofs = proofs.lock().unwrap();
        assert_eq!(proofs.len(), 3);
        assert_eq!(nonce_of(&proofs[0]), None);
        assert_eq!(nonce_of(&proofs[2]).as_deref(), Some("n-1"));
    }

    #[tokio::test]
    async fn a_server_that_takes_the_request_it_refused_is_not_sent_it_a_third_time() {
        let (url, proofs) = serve(vec![NONCE, ANSWER, ANSWER]);
        let posted = post(&url).await;
        let Err(StreamableHttpError::UnexpectedServerResponse(why)) = posted else {
            panic!("{posted:?}");
        };
        assert!(why.contains("not sent a third time"), "{why}");
        assert_eq!(proofs.lock().unwrap().len(), 2);
    }
}
