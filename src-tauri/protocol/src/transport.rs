//! Transports to servers. rmcp supplies Streamable HTTP; what it lacks is written here: a stdio
//! transport with a hard cap on message size that closes the connection instead of growing memory,
//! the legacy HTTP+SSE transport of 2024-11-05, and the 2025-11-25 task fields rmcp's types drop.

mod answer_kinds;
pub mod legacy_sse;
pub mod recorded;
pub mod session_checked;
pub mod stdio;
pub mod task_fields;

use std::sync::{Arc, OnceLock};

use crate::error::Error;
use crate::traffic::{Direction, TrafficRing};

/// The redirects an MCP server's own HTTP requests may follow: within the server's origin, at
/// most ten. A redirect to another origin would carry its headers (tokens, keys) and its session
/// elsewhere, so the request stops there and its caller sees the 3xx.
pub fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        if attempt.previous().len() > 10 || !same_origin {
            attempt.stop()
        } else {
            attempt.follow()
        }
    })
}

/// Why a transport closed on its own, set once by the transport and read by the supervisor.
#[derive(Debug, Clone, Default)]
pub struct CloseReason(Arc<OnceLock<Error>>);

impl CloseReason {
    /// Records the reason; later calls keep the first one.
    pub fn set(&self, error: Error) {
        let _ = self.0.set(error);
    }

    /// The recorded reason, if any.
    pub fn get(&self) -> Option<Error> {
        self.0.get().cloned()
    }
}

/// Wraps a transport and cancels `closed` when the connection ends, whichever side ends it, so
/// the supervisor learns about a dead server without polling. For a transport that cannot record
/// its own traffic (legacy HTTP+SSE), it records the messages too.
pub struct Monitored<T> {
    inner: T,
    closed: tokio_util::sync::CancellationToken,
    traffic: TrafficRing,
}

impl<T> Monitored<T> {
    /// Wraps `inner`; `closed` is cancelled when it stops delivering messages.
    pub fn new(inner: T, closed: tokio_util::sync::CancellationToken) -> Self {
        Self {
            inner,
            closed,
            traffic: TrafficRing::off(),
        }
    }

    /// Records every message sent and received in `traffic`.
    pub fn recording(mut self, traffic: TrafficRing) -> Self {
        self.traffic = traffic;
        self
    }
}

impl<T> rmcp::transport::Transport<rmcp::RoleClient> for Monitored<T>
where
    T: rmcp::transport::Transport<rmcp::RoleClient>,
{
    type Error = T::Error;

    fn send(
        &mut self,
        item: rmcp::service::TxJsonRpcMessage<rmcp::RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.traffic.record_message(Direction::Out, &item, None);
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<rmcp::service::RxJsonRpcMessage<rmcp::RoleClient>> {
        let message = self.inner.receive().await;
        match &message {
            Some(m) => self.traffic.record_message(Direction::In, m, None),
            None => self.closed.cancel(),
        }
        message
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.closed.cancel();
        self.inner.close().await
    }
}

impl<T> Drop for Monitored<T> {
    fn drop(&mut self) {
        self.closed.cancel();
    }
}
