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
            .redirect(super::same_origin_redirects())
            .build()
            .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        let response = open_stream(server, &client, &url, &headers).await?;
        // Where the stream really is, after (same-origin) redirects: the endpoint is relative
        // to it.
        let stream_url = response.url().clone();
        let (endpoint_tx, endpoint_rx) = tokio::sync::oneshot::channel::<String>();
        let (tx, incoming) = mpsc::channel(64);
        let name = server.to_owned();
        let reader = tokio::spawn(read_stream(
            response,
            name,
            max_message_bytes,
            close_reason,
            endpoint_tx,
            tx,
        ));
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
        let post_url = match endpoint_on_origin(&stream_url, &endpoint) {
            Ok(post_url) => post_url,
            Err(why) => {
                reader.abort();
                return Err(Error::new(
                    ErrorCode::ConnectFailed,
                    format!("server {server:?}: {why}"),
                ));
            }
        };
        Ok(Self {
            client,
            post_url,
            headers,
            incoming,
            reader,
        })
    }
}

/// The GET that opens the server's event stream, refused unless it answers with success.
async fn open_stream(
    server: &str,
    client: &reqwest::Client,
    url: &Url,
    headers: &reqwest::header::HeaderMap,
) -> Result<reqwest::Response> {
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
    Ok(response)
}

/// Reads the event stream until it ends: the first `endpoint` event goes to `endpoint_tx`,
/// each message to `tx`; an event over the size cap closes the connection, saying why.
async fn read_stream(
    response: reqwest::Response,
    name: String,
    max_message_bytes: usize,
    close_reason: CloseReason,
    endpoint_tx: tokio::sync::oneshot::Sender<String>,
    tx: mpsc::Sender<RxJsonRpcMessage<RoleClient>>,
) {
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
}

/// The URL to POST to, from the `endpoint` event of the stream at `stream_url`: only on the
/// stream's own origin (messages carry the same headers as the stream).
fn endpoint_on_origin(stream_url: &Url, endpoint: &str) -> std::result::Result<Url, String> {
    let post_url = stream_url
        .join(endpoint)
        .map_err(|e| format!("bad endpoint {endpoint:?}: {e}"))?;
    if post_url.origin() != stream_url.origin() {
        return Err(format!(
            "endpoint {post_url} is on another origin than {stream_url}"
        ));
    }
    Ok(post_url)
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

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use super::*;

    /// A loopback HTTP server answering each request with `respond(request line)`, holding the
    /// connection open a while after (an event stream stays open); returns its base URL.
    fn serve(respond: impl Fn(&str, u16) -> String + Send + Sync + 'static) -> String {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let respond = std::sync::Arc::new(respond);
        std::thread::spawn(move || {
            for mut stream in listener.incoming().flatten() {
                let respond = respond.clone();
                std::thread::spawn(move || {
                    let mut buf = [0u8; 4096];
                    let n = stream.read(&mut buf).unwrap_or(0);
                    let request = String::from_utf8_lossy(&buf[..n]).to_string();
                    let line = request.lines().next().unwrap_or_default().to_owned();
                    let _ = stream.write_all(respond(&line, port).as_bytes());
                    std::thread::sleep(Duration::from_secs(3));
                });
            }
        });
        format!("http://127.0.0.1:{port}")
    }

    fn redirect(to: &str) -> String {
        format!(
            "HTTP/1.1 302 Found\r\nLocation: {to}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
    }

    fn endpoint_event(endpoint: &str) -> String {
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\nevent: endpoint\ndata: {endpoint}\n\n"
        )
    }

    async fn connect(url: &str) -> Result<LegacySseTransport> {
        let url = Url::parse(url).unwrap();
        LegacySseTransport::connect(
            "s",
            url,
            Default::default(),
            1 << 20,
            CloseReason::default(),
        )
        .await
    }

    #[tokio::test]
    async fn the_stream_is_not_followed_to_another_origin() {
        let elsewhere = serve(|_, _| endpoint_event("/messages"));
        let server = serve(move |_, _| redirect(&format!("{elsewhere}/sse")));
        let e = connect(&format!("{server}/sse"))
            .await
            .err()
            .expect("refused");
        assert_eq!(e.code, ErrorCode::ConnectFailed);
        assert!(e.message.contains("302"), "{}", e.message);
    }

    #[tokio::test]
    async fn an_endpoint_on_another_origin_is_refused() {
        let elsewhere = serve(|_, _| "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n".into());
        let server = serve(move |_, _| endpoint_event(&format!("{elsewhere}/messages")));
        let e = connect(&format!("{server}/sse"))
            .await
            .err()
            .expect("refused");
        assert!(e.message.contains("another origin"), "{}", e.message);
    }

    #[tokio::test]
    async fn a_same_origin_redirect_is_followed_and_the_endpoint_is_relative_to_where_it_led() {
        let server = serve(|line, port| {
            if line.starts_with("GET /old") {
                redirect(&format!("http://127.0.0.1:{port}/v2/sse"))
            } else {
                endpoint_event("messages?session=1")
            }
        });
        let transport = connect(&format!("{server}/old/sse")).await.unwrap();
        assert_eq!(
            transport.post_url.as_str(),
            format!("{server}/v2/messages?session=1")
        );
    }
}
