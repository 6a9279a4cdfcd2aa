//! Newline-delimited JSON-RPC over a child's stdin/stdout. Unlike rmcp's reader this one closes
//! the connection with [`ErrorCode::MessageTooLarge`] as soon as a line passes the cap (a pending
//! request then fails at once instead of waiting for its timeout), and it skips lines that are not
//! JSON-RPC with a rate-limited warning, since servers that print to stdout are common. A line
//! holding a JSON-RPC batch (an array, which 2025-03-26 servers may send) is read as its messages.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::Mutex;

use super::CloseReason;
use super::answer_kinds::AnswerKinds;
use super::task_fields::{self, TaskFields};
use crate::error::{Error, ErrorCode};
use crate::traffic::{Direction, TrafficRing};

/// A client-side stdio transport over any reader/writer pair (a child's stdout/stdin in the app).
pub struct StdioTransport<R, W> {
    server: String,
    reader: BufReader<R>,
    line: Vec<u8>,
    max_message_bytes: usize,
    writer: Arc<Mutex<Option<W>>>,
    close_reason: CloseReason,
    garbage: GarbageLog,
    /// The rest of a batch whose first message was handed out.
    batch: VecDeque<RxJsonRpcMessage<RoleClient>>,
    /// What the messages say of tasks that rmcp's types drop.
    task_fields: TaskFields,
    /// The kind of result each pending request expects.
    answer_kinds: AnswerKinds,
    /// Where every line is recorded as it crossed the pipe.
    traffic: TrafficRing,
}

impl<R, W> StdioTransport<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    /// Wraps `reader`/`writer`; messages longer than `max_message_bytes` close the connection and
    /// record the reason in `close_reason`.
    pub fn new(
        server: impl Into<String>,
        reader: R,
        writer: W,
        max_message_bytes: usize,
        close_reason: CloseReason,
    ) -> Self {
        Self {
            server: server.into(),
            reader: BufReader::with_capacity(64 * 1024, reader),
            line: Vec::new(),
            max_message_bytes,
            writer: Arc::new(Mutex::new(Some(writer))),
            close_reason,
            garbage: GarbageLog::default(),
            batch: VecDeque::new(),
            task_fields: TaskFields::default(),
            answer_kinds: AnswerKinds::default(),
            traffic: TrafficRing::off(),
        }
    }

    /// Records every line written and read in `traffic`.
    pub fn with_traffic(mut self, traffic: TrafficRing) -> Self {
        self.traffic = traffic;
        self
    }

    /// Shares what this transport sees of tasks with the connection (see [`task_fields`]).
    pub fn with_task_fields(mut self, fields: TaskFields) -> Self {
        fields.watch();
        self.task_fields = fields;
        self
    }

    /// Reads one line into `self.line`. Cancel-safe: bytes are moved from the reader's buffer into
    /// `self.line` with no await in between, so a dropped call resumes where it stopped.
    async fn read_line(&mut self) -> Result<bool, Error> {
        loop {
            let (consumed, complete) = {
                let available = self.reader.fill_buf().await.map_err(|e| {
                    Error::new(ErrorCode::TransportClosed, format!("reading stdout: {e}"))
                })?;
                if available.is_empty() {
                    return Ok(false);
                }
                let newline = memchr::memchr(b'\n', available);
                let take = newline.map_or(available.len(), |i| i + 1);
                if self.line.len() + take > self.max_message_bytes + 1 {
                    return Err(Error::new(
                        ErrorCode::MessageTooLarge,
                        format!(
                            "server {:?} sent a message larger than the {} byte cap (maxMessageBytes); the connection was closed",
                            self.server, self.max_message_bytes
                        ),
                    ));
                }
                self.line.extend_from_slice(&available[..take]);
                (take, newline.is_some())
            };
            self.reader.consume(consumed);
            if complete {
                return Ok(true);
            }
        }
    }
}

impl<R, W> Transport<RoleClient> for StdioTransport<R, W>
where
    R: AsyncRead + Unpin + Send,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.answer_kinds.sent(&item);
        let writer = self.writer.clone();
        let traffic = self.traffic.clone();
        let initialize = matches!(
            &item,
            rmcp::model::JsonRpcMessage::Request(r)
                if matches!(r.request, rmcp::model::ClientRequest::InitializeRequest(_))
        );
        async move {
            let mut bytes = if initialize {
                let mut value = serde_json::to_value(&item)?;
                task_fields::outgoing(&mut value);
                serde_json::to_vec(&value)?
            } else {
                serde_json::to_vec(&item)?
            };
            traffic.record(Direction::Out, &bytes);
            bytes.push(b'\n');
            let mut guard = writer.lock().await;
            let w = guard.as_mut().ok_or_else(|| {
                std::io::Error::new(std::io::ErrorKind::NotConnected, "stdin is closed")
            })?;
            w.write_all(&bytes).await?;
            w.flush().await
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        if let Some(message) = self.batch.pop_front() {
            return Some(message);
        }
        loop {
            match self.read_line().await {
                Ok(true) => {}
                Ok(false) => return None,
                Err(e) => {
                    tracing::error!(server = %self.server, "{}", e.message);
                    self.close_reason.set(e);
                    self.line = Vec::new();
                    return None;
                }
            }
            let text = trim_line(&self.line);
            if text.is_empty() {
                self.line.clear();
                continue;
            }
            self.traffic.record(Direction::In, text);
            let parsed = parse(
                text,
                &self.task_fields,
                &mut self.answer_kinds,
                &mut self.batch,
            );
            match parsed {
                Ok(first) => {
                    self.line.clear();
                    if first.is_some() {
                        return first;
                    }
                }
                Err(e) => {
                    self.garbage.record(&self.server, text, &e);
                    self.line.clear();
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // Dropping stdin is the first step of the spec's stdio shutdown.
        if let Some(mut w) = self.writer.lock().await.take() {
            let _ = w.shutdown().await;
        }
        Ok(())
    }
}

/// The first message of a line; the rest of a batch go to `rest` (an empty batch is no message
/// at all). A message that may carry task fields is read as JSON first, so that [`TaskFields`]
/// sees them; an answer to a pending request is read as the kind of result the request expects
/// ([`AnswerKinds`]).
fn parse(
    text: &[u8],
    fields: &TaskFields,
    kinds: &mut AnswerKinds,
    rest: &mut VecDeque<RxJsonRpcMessage<RoleClient>>,
) -> serde_json::Result<Option<RxJsonRpcMessage<RoleClient>>> {
    let mut messages: VecDeque<RxJsonRpcMessage<RoleClient>> = if task_fields::mentions_tasks(text)
    {
        let value: serde_json::Value = serde_json::from_slice(text)?;
        let mut values = match value {
            serde_json::Value::Array(items) => items,
            single => vec![single],
        };
        values.iter_mut().for_each(|v| fields.incoming(v));
        values
            .into_iter()
            .map(serde_json::from_value)
            .collect::<serde_json::Result<_>>()?
    } else if text.first() == Some(&b'[') {
        serde_json::from_slice(text)?
    } else if let Some(answer) = kinds.read(text) {
        return Ok(Some(answer));
    } else {
        let message = serde_json::from_slice(text)?;
        kinds.settled(&message);
        return Ok(Some(message));
    };
    messages.iter().for_each(|m| kinds.settled(m));
    let first = messages.pop_front();
    *rest = messages;
    Ok(first)
}

fn trim_line(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line)
}

/// Logs skipped stdout lines, at most [`GarbageLog::PER_MINUTE`] a minute plus a count.
#[derive(Debug)]
struct GarbageLog {
    window: Instant,
    logged: u32,
    suppressed: u64,
}

impl Default for GarbageLog {
    fn default() -> Self {
        Self {
            window: Instant::now(),
            logged: 0,
            suppressed: 0,
        }
    }
}

impl GarbageLog {
    const PER_MINUTE: u32 = 10;

    fn record(&mut self, server: &str, line: &[u8], error: &serde_json::Error) {
        if self.window.elapsed() >= Duration::from_secs(60) {
            if self.suppressed > 0 {
                tracing::warn!(
                    server,
                    suppressed = self.suppressed,
                    "more non-JSON-RPC stdout lines were skipped"
                );
            }
            self.window = Instant::now();
            self.logged = 0;
            self.suppressed = 0;
        }
        if self.logged < Self::PER_MINUTE {
            self.logged += 1;
            let shown: String = String::from_utf8_lossy(&line[..line.len().min(200)])
                .chars()
                .map(|c| if c.is_control() { '\u{FFFD}' } else { c })
                .collect();
            tracing::warn!(
                server,
                "skipped a stdout line that is not JSON-RPC ({error}): {shown}"
            );
        } else {
            self.suppressed += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use tokio::io::AsyncReadExt;

    use super::*;

    #[tokio::test]
    async fn skips_garbage_and_reads_messages() {
        let (mut server_end, client_end) = tokio::io::duplex(1 << 16);
        let (r, w) = tokio::io::split(client_end);
        let mut t = StdioTransport::new("s", r, w, 1024, CloseReason::default());
        server_end
            .write_all(b"hello\n\x00\x01\n{bad\n\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n")
            .await
            .unwrap();
        let m = t.receive().await.expect("a message after the garbage");
        assert!(format!("{m:?}").contains("ToolListChanged"), "{m:?}");
        t.send(TxJsonRpcMessage::<RoleClient>::notification(
            rmcp::model::ClientNotification::InitializedNotification(Default::default()),
        ))
        .await
        .unwrap();
        let mut buf = vec![0u8; 256];
        let n = server_end.read(&mut buf).await.unwrap();
        assert!(String::from_utf8_lossy(&buf[..n]).contains("notifications/initialized"));
    }

    #[tokio::test]
    async fn a_batch_is_read_as_its_messages_in_order() {
        let note = |n: u32| {
            format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":1,"progress":{n}}}}}"#
            )
        };
        let stdout = format!("[{},{}]\n[]\n{}\n", note(1), note(2), note(3));
        let got = messages(transport(vec![stdout.into_bytes()], 4096)).await;
        let progress: Vec<_> = got
            .iter()
            .map(|m| m["params"]["progress"].clone())
            .collect();
        assert_eq!(progress, [1.0, 2.0, 3.0], "{got:?}");
    }

    /// A reader that hands out `chunks` one read at a time.
    struct Chunks(std::collections::VecDeque<Vec<u8>>);

    impl AsyncRead for Chunks {
        fn poll_read(
            mut self: std::pin::Pin<&mut Self>,
            _: &mut std::task::Context<'_>,
            buf: &mut tokio::io::ReadBuf<'_>,
        ) -> std::task::Poll<std::io::Result<()>> {
            if let Some(mut chunk) = self.0.pop_front() {
                let n = chunk.len().min(buf.remaining());
                buf.put_slice(&chunk[..n]);
                if n < chunk.len() {
                    self.0.push_front(chunk.split_off(n));
                }
            }
            std::task::Poll::Ready(Ok(()))
        }
    }

    fn transport(chunks: Vec<Vec<u8>>, max: usize) -> StdioTransport<Chunks, tokio::io::Sink> {
        let reader = Chunks(chunks.into());
        StdioTransport::new(
            "fuzz",
            reader,
            tokio::io::sink(),
            max,
            CloseReason::default(),
        )
    }

    /// Every message the transport reads, as JSON.
    async fn messages(mut t: StdioTransport<Chunks, tokio::io::Sink>) -> Vec<serde_json::Value> {
        let mut out = Vec::new();
        while let Some(m) = t.receive().await {
            out.push(serde_json::to_value(&m).unwrap());
        }
        out
    }

    /// One line a server may print: a log line, a blank one, a request, a notification.
    fn printed() -> impl Strategy<Value = (String, bool)> {
        let log = crate::fuzz::text(30)
            .prop_map(|t| t.replace(['{', '}'], "").trim().to_owned() + " log");
        let note = crate::fuzz::text(60).prop_map(|data| {
            serde_json::json!({
                "jsonrpc": "2.0",
                "method": "notifications/message",
                "params": {"level": "info", "data": data}
            })
            .to_string()
        });
        let ping = (0u32..1000).prop_map(|id| {
            serde_json::json!({"jsonrpc": "2.0", "id": id, "method": "ping"}).to_string()
        });
        (
            prop_oneof![log, Just(String::new()), ping, note],
            any::<bool>(),
        )
    }

    /// A stdout of `lines` (each ending in CRLF or LF) and how many messages it holds.
    fn stdout(lines: &[(String, bool)]) -> (Vec<u8>, usize) {
        let (mut bytes, mut count) = (Vec::new(), 0);
        for (line, crlf) in lines {
            count += usize::from(line.starts_with('{'));
            bytes.extend_from_slice(line.as_bytes());
            bytes.extend_from_slice(if *crlf { b"\r\n" } else { b"\n" });
        }
        (bytes, count)
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
    }

    proptest! {
        #![proptest_config(crate::fuzz::config(20_000))]

        #[test]
        fn any_chunking_of_stdout_yields_the_same_messages(
            lines in prop::collection::vec(printed(), 0..6),
            cuts in crate::fuzz::cuts(),
        ) {
            let (bytes, count) = stdout(&lines);
            let rt = runtime();
            let whole = rt.block_on(messages(transport(vec![bytes.clone()], 1 << 20)));
            prop_assert_eq!(whole.len(), count);
            let chunks = crate::fuzz::chunks(&bytes, &cuts);
            let pieces = rt.block_on(messages(transport(chunks, 1 << 20)));
            prop_assert_eq!(pieces, whole);
        }

        #[test]
        fn random_bytes_never_panic_nor_grow_past_the_cap(
            bytes in crate::fuzz::bytes(2048),
            cuts in crate::fuzz::cuts(),
        ) {
            const CAP: usize = 512;
            let mut t = transport(crate::fuzz::chunks(&bytes, &cuts), CAP);
            runtime().block_on(async {
                while t.receive().await.is_some() {
                    assert!(t.line.len() <= CAP + 1);
                }
            });
            prop_assert!(t.line.len() <= CAP + 1);
            // Reading stopped for a reason: the stream ended, or a line passed the cap.
            if let Some(e) = t.close_reason.get() {
                prop_assert_eq!(e.code, ErrorCode::MessageTooLarge);
            }
        }
    }

    #[tokio::test]
    async fn oversize_line_closes_with_reason() {
        let (mut server_end, client_end) = tokio::io::duplex(1 << 16);
        let (r, w) = tokio::io::split(client_end);
        let reason = CloseReason::default();
        let mut t = StdioTransport::new("big", r, w, 2048, reason.clone());
        tokio::spawn(async move {
            let chunk = vec![b'x'; 4096];
            for _ in 0..100 {
                if server_end.write_all(&chunk).await.is_err() {
                    break;
                }
            }
        });
        assert!(t.receive().await.is_none());
        let e = reason.get().expect("a close reason");
        assert_eq!(e.code, ErrorCode::MessageTooLarge);
        assert!(e.message.contains("2048"), "{}", e.message);
    }
}
