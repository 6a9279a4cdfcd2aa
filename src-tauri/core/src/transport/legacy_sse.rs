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
use crate::sse::SseReader;

/// How long one POST of a message may take.
const POST_TIMEOUT: Duration = Duration::from_secs(30);

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
            let mut parser = SseReader::with_limit(max_message_bytes);
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
                    match ev.event.as_str() {
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
            // A server that accepts the POST and never answers must not hold the send for ever:
            // answers come on the event stream, the POST only hands the message over.
            .timeout(POST_TIMEOUT)
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
