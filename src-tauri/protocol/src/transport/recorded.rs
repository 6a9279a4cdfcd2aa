//! A Streamable HTTP client that records what crosses the wire in the server's traffic ring:
//! each POST's message with the headers that matter, each answer (a 202, a JSON message, every
//! event of an SSE stream) with its status, the GET stream's events, and the session's DELETE.
//! The bearer token in use is hidden from the ring before anything is recorded.

use std::collections::HashMap;
use std::sync::Arc;

use futures::StreamExt;
use futures::stream::BoxStream;
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::auth::AuthClient;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
};
use sse_stream::{Error as SseError, Sse};

use super::session_checked::SessionChecked;
use crate::traffic::{Direction, HttpExchange, HttpHeader, TrafficRing};

/// `C`, recording in `traffic`.
#[derive(Clone)]
pub struct Recorded<C> {
    inner: C,
    traffic: TrafficRing,
}

impl<C> Recorded<C> {
    pub fn new(inner: C, traffic: &TrafficRing) -> Self {
        Self {
            inner,
            traffic: traffic.clone(),
        }
    }
}

/// The bearer token a client adds to its requests, so that the ring can hide it.
pub trait Bearer {
    fn bearer(&self) -> impl Future<Output = Option<String>> + Send;
}

impl Bearer for SessionChecked<reqwest::Client> {
    async fn bearer(&self) -> Option<String> {
        None
    }
}

impl<C: Send + Sync> Bearer for SessionChecked<AuthClient<C>> {
    async fn bearer(&self) -> Option<String> {
        self.0.get_access_token().await.ok()
    }
}

type Posted<E> = Result<StreamableHttpPostResponse, StreamableHttpError<E>>;
type Events<E> = Result<BoxStream<'static, Result<Sse, SseError>>, StreamableHttpError<E>>;

/// The headers of a request that matter to MCP, as recorded (secrets are hidden by the ring).
fn sent(
    verb: &str,
    session_id: Option<&str>,
    auth: bool,
    custom: &HashMap<HeaderName, HeaderValue>,
) -> HttpExchange {
    let mut headers: Vec<HttpHeader> = custom
        .iter()
        .map(|(name, value)| HttpHeader {
            name: name.as_str().to_owned(),
            value: if value.is_sensitive() {
                "[redacted]".to_owned()
            } else {
                String::from_utf8_lossy(value.as_bytes()).into_owned()
            },
        })
        .collect();
    headers.sort_by(|a, b| a.name.cmp(&b.name));
    if let Some(id) = session_id {
        headers.push(header("mcp-session-id", id));
    }
    if auth {
        headers.push(header("authorization", "[redacted]"));
    }
    HttpExchange {
        verb: verb.to_owned(),
        status: None,
        headers,
        error: None,
    }
}

fn header(name: &str, value: &str) -> HttpHeader {
    HttpHeader {
        name: name.to_owned(),
        value: value.to_owned(),
    }
}

fn answered(verb: &str, status: u16, content_type: &str, session_id: Option<&str>) -> HttpExchange {
    let mut headers = vec![header("content-type", content_type)];
    if let Some(id) = session_id {
        headers.push(header("mcp-session-id", id));
    }
    HttpExchange {
        verb: verb.to_owned(),
        status: Some(status),
        headers,
        error: None,
    }
}

fn refused<E: std::error::Error + Send + Sync + 'static>(
    verb: &str,
    error: &StreamableHttpError<E>,
) -> HttpExchange {
    let status = match error {
        StreamableHttpError::HttpStatus(s) => Some(s.status),
        StreamableHttpError::AuthRequired(_) => Some(401),
        StreamableHttpError::InsufficientScope(_) => Some(403),
        StreamableHttpError::ServerDoesNotSupportSse
        | StreamableHttpError::ServerDoesNotSupportDeleteSession => Some(405),
        _ => None,
    };
    HttpExchange {
        verb: verb.to_owned(),
        status,
        headers: Vec::new(),
        error: Some(error.to_string()),
    }
}

impl<C> Recorded<C>
where
    C: StreamableHttpClient + Bearer + Sync,
{
    async fn record_post(
        &self,
        message: &ClientJsonRpcMessage,
        session_id: Option<&str>,
        auth_header: Option<&str>,
        custom: &HashMap<HeaderName, HeaderValue>,
    ) {
        let bearer = self.inner.bearer().await;
        for token in bearer.iter().map(String::as_str).chain(auth_header) {
            self.traffic.hide_also(token);
        }
        let auth = bearer.is_some() || auth_header.is_some();
        let http = sent("POST", session_id, auth, custom);
        self.traffic
            .record_message(Direction::Out, message, Some(http));
    }

    fn record_answer(&self, posted: Posted<C::Error>) -> Posted<C::Error> {
        match posted {
            Ok(StreamableHttpPostResponse::Accepted) => {
                let http = answered("POST", 202, "", None);
                self.traffic.record_http(Direction::In, http);
                Ok(StreamableHttpPostResponse::Accepted)
            }
            Ok(StreamableHttpPostResponse::Json(message, id)) => {
                let http = answered("POST", 200, "application/json", id.as_deref());
                self.traffic
                    .record_message(Direction::In, &message, Some(http));
                Ok(StreamableHttpPostResponse::Json(message, id))
            }
            Ok(StreamableHttpPostResponse::Sse(events, id)) => {
                let http = answered("POST", 200, "text/event-stream", id.as_deref());
                self.traffic.record_http(Direction::In, http);
                Ok(StreamableHttpPostResponse::Sse(self.events(events), id))
            }
            Err(e) => {
                self.traffic.record_http(Direction::In, refused("POST", &e));
                Err(e)
            }
            // A kind of answer added to rmcp later: passed on as it came.
            other => other,
        }
    }

    /// `events`, each message recorded as it arrives.
    fn events(
        &self,
        events: BoxStream<'static, Result<Sse, SseError>>,
    ) -> BoxStream<'static, Result<Sse, SseError>> {
        let traffic = self.traffic.clone();
        events
            .inspect(move |event| {
                if let Ok(Sse {
                    data: Some(data), ..
                }) = event
                    && !data.is_empty()
                {
                    traffic.record(Direction::In, data.as_bytes());
                }
            })
            .boxed()
    }

    fn record_stream(&self, opened: Events<C::Error>) -> Events<C::Error> {
        match opened {
            Ok(events) => {
                let http = answered("GET", 200, "text/event-stream", None);
                self.traffic.record_http(Direction::In, http);
                Ok(self.events(events))
            }
            Err(e) => {
                self.traffic.record_http(Direction::In, refused("GET", &e));
                Err(e)
            }
        }
    }
}

impl<C> StreamableHttpClient for Recorded<C>
where
    C: StreamableHttpClient + Bearer + Sync,
{
    type Error = C::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Posted<Self::Error> {
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
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Posted<Self::Error> {
        if !self.traffic.is_on() {
            return self
                .inner
                .post_message_with_max_sse_event_size(
                    uri,
                    message,
                    session_id,
                    auth_header,
                    custom_headers,
                    max_sse_event_size,
                )
                .await;
        }
        let (session, auth) = (session_id.as_deref(), auth_header.as_deref());
        self.record_post(&message, session, auth, &custom_headers)
            .await;
        let posted = self
            .inner
            .post_message_with_max_sse_event_size(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await;
        self.record_answer(posted)
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        let http = sent(
            "DELETE",
            Some(&session_id),
            auth_header.is_some(),
            &custom_headers,
        );
        self.traffic.record_http(Direction::Out, http);
        let deleted = self
            .inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await;
        if let Err(e) = &deleted {
            self.traffic
                .record_http(Direction::In, refused("DELETE", e));
        }
        deleted
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Events<Self::Error> {
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
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Events<Self::Error> {
        let http = sent(
            "GET",
            session_id.as_deref(),
            auth_header.is_some(),
            &custom_headers,
        );
        self.traffic.record_http(Direction::Out, http);
        let opened = self
            .inner
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await;
        self.record_stream(opened)
    }
}
