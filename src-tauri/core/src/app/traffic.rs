//! The traffic screen's commands: what crossed the wire to each server (live, or in a session the
//! person kept), a message's body, the export of a selection as JSON Lines, how much each
//! server's ring keeps, and the kept sessions.

use std::path::PathBuf;
use std::sync::Arc;

use super::App;
use super::requests::{KeptSessionId, NoArgs, TrafficExport, TrafficSeqs};
use crate::config::TrafficConfig;
use crate::store::{Store, off_thread};
use crate::traffic::kept::{Bounds, Kept, KeptSession, KeptSessions};
use crate::traffic::{Traffic, TrafficLimits, TrafficMessage, TrafficPage, TrafficQuery};
use crate::{Error, ErrorCode, Result};

/// Taps `traffic` for the sessions the person keeps (closing one a stopped host left open).
pub(super) async fn keep_sessions(store: &Arc<Store>, traffic: &Traffic) -> Result<Arc<Kept>> {
    let (store, traffic) = (store.clone(), traffic.clone());
    off_thread(move || Kept::start(store, &traffic, Bounds::default()).map(Arc::new)).await
}

/// The bounds `config` sets, each absent one at its default.
pub(super) fn limits_of(config: Option<TrafficConfig>) -> TrafficLimits {
    let defaults = TrafficLimits::default();
    let config = config.unwrap_or_default();
    TrafficLimits {
        max_messages: config.max_messages.unwrap_or(defaults.max_messages),
        max_bytes: config.max_bytes.unwrap_or(defaults.max_bytes),
        max_message_bytes: config
            .max_message_bytes
            .unwrap_or(defaults.max_message_bytes),
    }
}

/// Bounds that keep the ring useful and the host small.
fn checked(limits: TrafficLimits) -> Result<TrafficLimits> {
    let sentence = if !(100..=1_000_000).contains(&limits.max_messages) {
        "Keep from 100 to 1,000,000 messages per server."
    } else if !((1 << 20)..=(1 << 30)).contains(&limits.max_bytes) {
        "Keep from 1 MB to 1 GB per server."
    } else if !((1 << 10)..=(16 << 20)).contains(&limits.max_message_bytes)
        || limits.max_message_bytes > limits.max_bytes
    {
        "Keep from 1 KB to 16 MB of each message, and no more than the server's whole share."
    } else {
        return Ok(limits);
    };
    Err(Error::new(ErrorCode::InvalidInput, sentence))
}

impl App {
    /// The messages `query` asks for, oldest first.
    pub async fn traffic(&self, query: TrafficQuery) -> Result<TrafficPage> {
        if let Some(session) = query.session {
            let kept = self.kept()?;
            return off_thread(move || kept.query(session, &query)).await;
        }
        let traffic = self.0.traffic.clone();
        off_thread(move || Ok(traffic.query(&query))).await
    }

    /// The bodies of the messages numbered `seqs` that are still kept.
    pub async fn traffic_messages(&self, args: TrafficSeqs) -> Result<Vec<TrafficMessage>> {
        if let Some(session) = args.session {
            let kept = self.kept()?;
            return off_thread(move || kept.messages(session, &args.seqs)).await;
        }
        let traffic = self.0.traffic.clone();
        off_thread(move || Ok(traffic.messages(&args.seqs))).await
    }

    /// Starts keeping every message to and from every server, in a new session.
    pub async fn keep_traffic(&self, _: NoArgs) -> Result<KeptSession> {
        let kept = self.kept()?;
        off_thread(move || kept.keep()).await
    }

    /// Stops keeping; the session as it ended (none: none was being kept).
    pub async fn stop_keeping_traffic(&self, _: NoArgs) -> Result<Option<KeptSession>> {
        let kept = self.kept()?;
        off_thread(move || kept.stop()).await
    }

    /// The kept sessions, newest first, and which one is being kept.
    pub async fn kept_traffic_sessions(&self, _: NoArgs) -> Result<KeptSessions> {
        let kept = self.kept()?;
        off_thread(move || kept.sessions()).await
    }

    /// Deletes a kept session.
    pub async fn delete_kept_traffic(&self, args: KeptSessionId) -> Result<()> {
        let kept = self.kept()?;
        off_thread(move || kept.delete(args.session)).await
    }

    fn kept(&self) -> Result<Arc<Kept>> {
        self.0.kept.clone().ok_or_else(|| {
            Error::new(
                ErrorCode::NotSupported,
                "Traffic sessions are kept by the desktop app; use --trace on the command line.",
            )
        })
    }

    /// How much each server's ring keeps.
    pub async fn traffic_limits(&self, _: NoArgs) -> Result<TrafficLimits> {
        Ok(self.0.traffic.limits())
    }

    /// Changes how much each server's ring keeps, at once and in the configuration file.
    pub async fn set_traffic_limits(&self, limits: TrafficLimits) -> Result<()> {
        let limits = checked(limits)?;
        self.0
            .host
            .edit_config(|config| {
                config.traffic = Some(TrafficConfig {
                    max_messages: Some(limits.max_messages),
                    max_bytes: Some(limits.max_bytes),
                    max_message_bytes: Some(limits.max_message_bytes),
                });
                Ok(())
            })
            .await?;
        self.0.traffic.set_limits(limits);
        Ok(())
    }

    /// Writes the messages numbered `seqs` to `path` as JSON Lines (the format of `--trace`).
    pub async fn export_traffic(&self, path: PathBuf, args: TrafficSeqs) -> Result<TrafficExport> {
        let (traffic, kept) = (self.0.traffic.clone(), args.session.map(|_| self.kept()));
        let target = path.clone();
        let entries = off_thread(move || {
            let lines = match (kept, args.session) {
                (Some(kept), Some(session)) => kept?.export(session, &args.seqs)?,
                _ => traffic.export(&args.seqs),
            };
            let mut text = lines.join("\n");
            if !text.is_empty() {
                text.push('\n');
            }
            std::fs::write(&target, text).map_err(|e| {
                Error::new(
                    ErrorCode::Io,
                    format!("Cannot write {}: {e}.", target.display()),
                )
            })?;
            Ok(lines.len())
        })
        .await?;
        Ok(TrafficExport {
            path: path.display().to_string(),
            entries: u32::try_from(entries).unwrap_or(u32::MAX),
        })
    }
}
