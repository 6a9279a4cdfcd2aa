//! The HTTP+SSE transport of protocol revision 2024-11-05, which rmcp no longer ships: the client
//! opens an SSE stream with GET, the server's first `endpoint` event names the URL to POST
//! messages to, and every server message arrives as a `message` event. Events larger than the
//! size cap close the connection, like stdio lines.

use std::time::Duration;

use futures::StreamExt;
use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::mpsc;
use url::Url;

use super::CloseReason;
use crate::error::{Error, ErrorCode, Result};

/// How long the server has to send its `endpoint` event.
const ENDPOINT_TIMEOUT: Duration = Duration::from_secs(10);

/// A connected legacy SSE session.
pub struct LegacySseTransport {
    client: reqwest::Client,
    post_url: Url,
    headers: reqwest::header::HeaderMap,
    incoming: mpsc::Receiver<RxJsonRpcMessage<RoleClient>>,
    reader: tokio::task::JoinHandle<()>,
}

/// One parsed server-sent event.
#[derive(Debug, Default, PartialEq, Eq)]
struct Event {
    name: String,
    data: String,
}

/// Incremental SSE parser with a cap on one event's size.
#[derive(Debug)]
struct Parser {
    buf: Vec<u8>,
    event: Event,
    max: usize,
}

impl Parser {
    fn new(max: usize) -> Self {
        Self {
            buf: Vec::new(),
            event: Event::default(),
            max,
        }
    }

    /// Feeds bytes; returns complete events, or an error when an event passes the cap.
    fn feed(&mut self, bytes: &[u8]) -> std::result::Result<Vec<Event>, ()> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        while let Some(i) = self.buf.iter().position(|b| *b == b'\n') {
            let raw: Vec<u8> = self.buf.drain(..=i).collect();
            let line = String::from_utf8_lossy(&raw);
            let line = line.trim_end_matches(['\n', '\r']);
            if line.is_empty() {
                let ev = std::mem::take(&mut self.event);
                if !ev.data.is_empty() || !ev.name.is_empty() {
                    out.push(ev);
                }
                continue;
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = line.split_once(':').unwrap_or((line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "event" => self.event.name = value.to_owned(),
                "data" => {
                    if !self.event.data.is_empty() {
                        self.event.data.push('\n');
                    }
                    self.event.data.push_str(value);
                }
                _ => {}
            }
            if self.event.data.len() > self.max {
                return Err(());
            }
        }
        if self.buf.len() + self.event.data.len() > self.max {
            return Err(());
        }
        Ok(out)
    }
}

impl LegacySseTransport {
    /// Opens the SSE stream at `url` and waits for the server's `endpoint` event.
    pub async fn connect(
        server: &str,
        url: Url,
        headers: reqwest::header::HeaderMap,
        max_message_bytes: usize,
        close_reason: CloseReason,
    ) -> Result<Self> {
        let client = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        let response = client
            .get(url.clone())
            .headers(headers.clone())
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .send()
            .await
            .map_err(|e| {
                Error::new(
                    ErrorCode::ConnectFailed,
                    format!("server {server:?}: GET {url}: {e}"),
                )
            })?;
        if !response.status().is_success() {
            return Err(Error::new(
                ErrorCode::ConnectFailed,
                format!(
                    "server {server:?}: GET {url} answered {}",
                    response.status()
                ),
            ));
        }
        let (endpoint_tx, endpoint_rx) = tokio::sync::oneshot::channel::<String>();
        let (tx, incoming) = mpsc::channel(64);
        let name = server.to_owned();
        let reader = tokio::spawn(async move {
            let mut stream = response.bytes_stream();
            let mut parser = Parser::new(max_message_bytes);
            let mut endpoint_tx = Some(endpoint_tx);
            while let Some(chunk) = stream.next().await {
                let Ok(chunk) = chunk else { break };
                let Ok(events) = parser.feed(&chunk) else {
                    let e = Error::new(
                        ErrorCode::MessageTooLarge,
                        format!(
                            "server {name:?} sent an event larger than the {max_message_bytes} byte cap (maxMessageBytes); the connection was closed"
                        ),
                    );
                    tracing::error!(server = %name, "{}", e.message);
                    close_reason.set(e);
                    break;
                };
                for ev in events {
                    match ev.name.as_str() {
                        "endpoint" => {
                            if let Some(tx) = endpoint_tx.take() {
                                let _ = tx.send(ev.data);
                            }
                        }
                        "" | "message" => match serde_json::from_str(&ev.data) {
                            Ok(message) => {
                                if tx.send(message).await.is_err() {
                                    return;
                                }
                            }
                            Err(e) => {
                                tracing::warn!(server = %name, "skipped an SSE event that is not JSON-RPC: {e}")
                            }
                        },
                        _ => {}
                    }
                }
            }
        });
        let endpoint = match tokio::time::timeout(ENDPOINT_TIMEOUT, endpoint_rx).await {
            Ok(Ok(e)) => e,
            _ => {
                reader.abort();
                return Err(Error::new(
                    ErrorCode::ConnectFailed,
                    format!("server {server:?}: no `endpoint` event on the SSE stream at {url}"),
                ));
            }
        };
        let post_url = url.join(&endpoint).map_err(|e| {
            Error::new(
                ErrorCode::ConnectFailed,
                format!("server {server:?}: bad endpoint {endpoint:?}: {e}"),
            )
        })?;
        if post_url.origin() != url.origin() {
            reader.abort();
            return Err(Error::new(
                ErrorCode::ConnectFailed,
                format!("server {server:?}: endpoint {post_url} is on another origin than {url}"),
            ));
        }
        Ok(Self {
            client,
            post_url,
            headers,
            incoming,
            reader,
        })
    }
}

impl Transport<RoleClient> for LegacySseTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = std::result::Result<(), Self::Error>> + Send + 'static {
        let request = self
            .client
            .post(self.post_url.clone())
            .headers(self.headers.clone())
            .json(&item);
        async move {
            let response = request.send().await.map_err(std::io::Error::other)?;
            if response.status().is_success() {
                Ok(())
            } else {
                Err(std::io::Error::other(format!(
                    "POST answered {}",
                    response.status()
                )))
            }
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        self.incoming.recv().await
    }

    async fn close(&mut self) -> std::result::Result<(), Self::Error> {
        self.reader.abort();
        Ok(())
    }
}

impl Drop for LegacySseTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_events_across_chunks() {
        let mut p = Parser::new(1024);
        assert!(p.feed(b"event: endpoint\nda").unwrap().is_empty());
        let evs = p
            .feed(b"ta: /messages?id=1\n\n: comment\ndata: {\"a\":1}\n\n")
            .unwrap();
        assert_eq!(
            evs,
            vec![
                Event {
                    name: "endpoint".into(),
                    data: "/messages?id=1".into()
                },
                Event {
                    name: String::new(),
                    data: "{\"a\":1}".into()
                },
            ]
        );
    }

    #[test]
    fn oversize_event_is_an_error() {
        let mut p = Parser::new(16);
        assert!(p.feed(b"data: 0123456789abcdefghij").is_err());
    }
}
