//! Events the core publishes for the UI and the CLI, and the two buses they travel on. Each domain
//! owns one event enum ([`ServerEvent`], [`ReviewEvent`], [`ChatEvent`]) defined here, below the
//! modules that emit them, together with the types they carry, so no emitter imports a module
//! that imports it back.
//!
//! Control events (status, catalogs, reviews, chat messages) and streams (model text, progress,
//! server logs) travel on separate broadcast channels, so a flood of tokens can never push a
//! status change or a finished turn out of a listener's queue. A listener that still falls behind
//! is not left stale: it receives [`CoreEvent::Resync`], after which it re-reads current state.

pub mod chat;
pub mod reviews;
pub mod servers;
pub mod tasks;

pub use chat::{ChatEvent, ChatMessage, WithheldReason, WithheldTool};
pub use reviews::ReviewEvent;
pub use servers::{ListKind, ServerEvent, ServerStatus, ServerSummary};
pub use tasks::{TaskState, TaskView};

use std::sync::Arc;

use serde::Serialize;
use tokio::sync::broadcast;
use ts_rs::TS;

/// Anything the core publishes: one of the domain events, or the signal to re-read everything.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(untagged)]
#[ts(export)]
pub enum CoreEvent {
    Server(ServerEvent),
    Review(ReviewEvent),
    Chat(ChatEvent),
    /// `{"type": "resync"}`: events were dropped; re-read whatever is shown.
    Resync(Resync),
}

/// The one-variant enum behind [`CoreEvent::Resync`], so it serialises as `{"type":"resync"}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "type", rename_all = "camelCase")]
#[ts(export)]
pub enum Resync {
    Resync,
}

impl CoreEvent {
    /// The signal that a listener missed events.
    pub const RESYNC: CoreEvent = CoreEvent::Resync(Resync::Resync);

    /// Whether this event is part of a stream (lossy under load) rather than a state change.
    pub fn is_stream(&self) -> bool {
        match self {
            CoreEvent::Server(e) => e.is_stream(),
            CoreEvent::Review(e) => e.is_stream(),
            CoreEvent::Chat(e) => e.is_stream(),
            CoreEvent::Resync(_) => false,
        }
    }
}

impl From<ServerEvent> for CoreEvent {
    fn from(e: ServerEvent) -> Self {
        CoreEvent::Server(e)
    }
}

impl From<ReviewEvent> for CoreEvent {
    fn from(e: ReviewEvent) -> Self {
        CoreEvent::Review(e)
    }
}

impl From<ChatEvent> for CoreEvent {
    fn from(e: ChatEvent) -> Self {
        CoreEvent::Chat(e)
    }
}

/// Room for undelivered control events per listener.
pub const CONTROL_CAPACITY: usize = 4096;
/// Room for undelivered stream events per listener.
pub const STREAM_CAPACITY: usize = 4096;

/// The two channels; cloned into every emitter. Publishing never waits for listeners.
///
/// A channel makes all its slots at once, each as large as what it carries: an event behind an
/// `Arc` keeps the two channels' 8,192 slots at a few hundred KiB, where the events themselves
/// took 2.8 MiB at every start (an eighth of a CLI run's peak memory).
#[derive(Debug, Clone)]
pub struct Bus {
    control: broadcast::Sender<Arc<CoreEvent>>,
    streams: broadcast::Sender<Arc<CoreEvent>>,
}

impl Default for Bus {
    fn default() -> Self {
        Self::new(CONTROL_CAPACITY, STREAM_CAPACITY)
    }
}

impl Bus {
    /// A bus keeping up to `control` and `streams` undelivered events per listener.
    pub fn new(control: usize, streams: usize) -> Self {
        Self {
            control: broadcast::channel(control.max(1)).0,
            streams: broadcast::channel(streams.max(1)).0,
        }
    }

    /// Publishes on the channel the event belongs to. No listener is fine (the CLI often has none).
    pub fn publish(&self, event: impl Into<CoreEvent>) {
        let event = event.into();
        let channel = if event.is_stream() {
            &self.streams
        } else {
            &self.control
        };
        let _ = channel.send(Arc::new(event));
    }

    /// A listener for state changes, from now on.
    pub fn control(&self) -> Listener {
        Listener(self.control.subscribe())
    }

    /// A listener for streamed text, progress and logs, from now on.
    pub fn streams(&self) -> Listener {
        Listener(self.streams.subscribe())
    }
}

/// One listener on one channel.
#[derive(Debug)]
pub struct Listener(broadcast::Receiver<Arc<CoreEvent>>);

impl Listener {
    /// The next event; [`CoreEvent::RESYNC`] in place of any that were dropped because this
    /// listener fell behind; `None` once the bus is gone.
    pub async fn recv(&mut self) -> Option<CoreEvent> {
        match self.0.recv().await {
            Ok(event) => Some(Arc::unwrap_or_clone(event)),
            Err(broadcast::error::RecvError::Lagged(missed)) => {
                tracing::debug!(missed, "an event listener fell behind; resync");
                Some(CoreEvent::RESYNC)
            }
            Err(broadcast::error::RecvError::Closed) => None,
        }
    }

    /// The next event if one is waiting (same lag rule as [`Listener::recv`]).
    pub fn try_recv(&mut self) -> Option<CoreEvent> {
        match self.0.try_recv() {
            Ok(event) => Some(Arc::unwrap_or_clone(event)),
            Err(broadcast::error::TryRecvError::Lagged(_)) => Some(CoreEvent::RESYNC),
            Err(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(n: usize) -> ChatEvent {
        ChatEvent::ChatText {
            conversation: "c".into(),
            text: n.to_string(),
        }
    }

    #[tokio::test]
    async fn a_token_flood_never_displaces_a_state_change() {
        let bus = Bus::new(16, 16);
        let mut control = bus.control();
        let mut streams = bus.streams();
        bus.publish(ReviewEvent::ReviewsChanged { pending: 1 });
        for n in 0..10_000 {
            bus.publish(text(n));
        }
        bus.publish(ChatEvent::ChatDone {
            conversation: "c".into(),
            error: None,
        });
        assert_eq!(
            control.recv().await,
            Some(ReviewEvent::ReviewsChanged { pending: 1 }.into())
        );
        assert!(matches!(
            control.recv().await,
            Some(CoreEvent::Chat(ChatEvent::ChatDone { .. }))
        ));
        // The slow stream listener is told it missed text, then gets the newest.
        assert_eq!(streams.recv().await, Some(CoreEvent::RESYNC));
        assert!(matches!(
            streams.recv().await,
            Some(CoreEvent::Chat(ChatEvent::ChatText { .. }))
        ));
    }

    #[tokio::test]
    async fn a_lagging_control_listener_is_told_to_resync() {
        let bus = Bus::new(4, 4);
        let mut control = bus.control();
        for pending in 0..10 {
            bus.publish(ReviewEvent::ReviewsChanged { pending });
        }
        assert_eq!(control.recv().await, Some(CoreEvent::RESYNC));
        // After the resync the listener sees the newest events, ending at the current state.
        let mut last = None;
        while let Some(e) = control.try_recv() {
            last = Some(e);
        }
        assert_eq!(
            last,
            Some(ReviewEvent::ReviewsChanged { pending: 9 }.into())
        );
    }

    #[test]
    fn resync_serialises_as_its_own_type() {
        assert_eq!(
            serde_json::to_value(CoreEvent::RESYNC).unwrap(),
            serde_json::json!({"type": "resync"})
        );
        let status = ServerEvent::Status {
            server: "s".into(),
            status: ServerStatus::Stopping,
        };
        assert_eq!(
            serde_json::to_value(CoreEvent::from(status)).unwrap(),
            serde_json::json!({"type": "status", "server": "s", "status": {"state": "stopping"}})
        );
    }
}
