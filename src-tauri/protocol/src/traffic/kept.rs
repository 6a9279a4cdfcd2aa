//! Kept sessions: the traffic a person chose to keep past the rings (the Traffic screen's
//! "Keep"), written to SQLite by the tap's writer thread as it crosses the wire, with the rings'
//! redaction and cuts, and read back page by page with the live view's filters. A session is
//! bounded ([`Bounds`]): past them it stops keeping and says so.

use std::sync::{Arc, Mutex};

use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use ts_rs::TS;

use super::trace::{self, Sink, TapSwitch};
use super::{Filter, Traffic, TrafficEntry, TrafficMessage, TrafficPage, TrafficQuery};
use crate::error::Error;
use crate::store::Store;
use crate::{ErrorCode, Result};

/// One kept session as the Traffic screen lists it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct KeptSession {
    #[ts(type = "number")]
    pub id: i64,
    /// Milliseconds since the Unix epoch.
    pub started_ms: f64,
    /// Absent while it is being kept.
    pub ended_ms: Option<f64>,
    #[ts(type = "number")]
    pub messages: u64,
    /// The bytes of the bodies it holds.
    #[ts(type = "number")]
    pub bytes: u64,
    /// Messages left out: they came faster than they could be written, or after it was full.
    #[ts(type = "number")]
    pub dropped: u64,
    /// It reached its bounds and stopped keeping.
    pub full: bool,
}

/// The kept sessions, newest first, and which one is being kept.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct KeptSessions {
    #[ts(type = "number | null")]
    pub keeping: Option<i64>,
    pub sessions: Vec<KeptSession>,
}

/// How much one session keeps before it stops.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    pub messages: u64,
    pub bytes: u64,
}

impl Default for Bounds {
    fn default() -> Self {
        Self {
            messages: 1_000_000,
            bytes: 512 << 20,
        }
    }
}

/// The app's kept sessions: the tap on every ring, switched on while one is kept.
pub struct Kept {
    store: Arc<Store>,
    switch: TapSwitch,
    /// The session being kept and the tap's dropped count when it started.
    keeping: Mutex<Option<(i64, u64)>>,
}

impl Kept {
    /// Taps `traffic` (its tap, off until [`Kept::keep`]); a session left open by a host that
    /// stopped without closing it is closed at its last message.
    pub fn start(store: Arc<Store>, traffic: &Traffic, bounds: Bounds) -> Result<Self> {
        store.with(|conn| {
            conn.execute(
                "UPDATE traffic_sessions SET ended_ms = COALESCE(
                     (SELECT CAST(MAX(at_ms) AS INTEGER) FROM traffic_kept WHERE session = id),
                     started_ms)
                 WHERE ended_ms IS NULL",
                [],
            )
        })?;
        let sink = Rows {
            store: store.clone(),
            bounds,
            session: None,
            rows: Vec::new(),
            pairs: Vec::new(),
            added: Added::default(),
        };
        let (tap, switch, _writer) = trace::spawn(sink, false).map_err(|e| {
            Error::new(ErrorCode::Io, format!("Cannot start keeping traffic: {e}."))
        })?;
        traffic.tap(tap);
        Ok(Self {
            store,
            switch,
            keeping: Mutex::new(None),
        })
    }

    /// Starts keeping every message from now on, in a new session.
    pub fn keep(&self) -> Result<KeptSession> {
        let mut keeping = self.keeping.lock().unwrap_or_else(|p| p.into_inner());
        if keeping.is_some() {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                "A session is already being kept.",
            ));
        }
        let id = self.store.with(|conn| {
            conn.execute(
                "INSERT INTO traffic_sessions (started_ms) VALUES (?1)",
                [crate::store::now_ms()],
            )?;
            Ok(conn.last_insert_rowid())
        })?;
        self.switch.turn_on(id);
        *keeping = Some((id, self.switch.dropped()));
        self.session(id)
    }

    /// Stops keeping; every message sent before is written when this returns.
    pub fn stop(&self) -> Result<Option<KeptSession>> {
        let mut keeping = self.keeping.lock().unwrap_or_else(|p| p.into_inner());
        let Some((id, dropped_before)) = keeping.take() else {
            return Ok(None);
        };
        self.switch.turn_off();
        let dropped = self.switch.dropped().saturating_sub(dropped_before);
        self.store.with(|conn| {
            conn.execute(
                "UPDATE traffic_sessions SET ended_ms = ?2, dropped = dropped + ?3 WHERE id = ?1",
                params![id, crate::store::now_ms(), dropped as i64],
            )
        })?;
        self.session(id).map(Some)
    }

    /// The session being kept, if one is.
    pub fn keeping(&self) -> Option<i64> {
        self.keeping
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .map(|(id, _)| id)
    }

    /// Every kept session, newest first.
    pub fn sessions(&self) -> Result<KeptSessions> {
        let sessions = self.store.with(|conn| {
            let mut statement = conn.prepare(&format!("{SESSION} ORDER BY id DESC"))?;
            let rows = statement.query_map([], session_of)?;
            rows.collect::<rusqlite::Result<Vec<_>>>()
        })?;
        Ok(KeptSessions {
            keeping: self.keeping(),
            sessions,
        })
    }

    fn session(&self, id: i64) -> Result<KeptSession> {
        let found = self.store.with(|conn| {
            conn.query_row(&format!("{SESSION} WHERE id = ?1"), [id], session_of)
                .optional()
        })?;
        found.ok_or_else(|| Error::new(ErrorCode::InvalidInput, "That kept session is gone."))
    }

    /// Deletes a session that is no longer being kept.
    pub fn delete(&self, id: i64) -> Result<()> {
        if self.keeping() == Some(id) {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                "Stop keeping this session before deleting it.",
            ));
        }
        self.store
            .with(|conn| conn.execute("DELETE FROM traffic_sessions WHERE id = ?1", [id]))?;
        Ok(())
    }

    /// The messages of session `id` that `query` asks for, oldest first.
    pub fn query(&self, id: i64, query: &TrafficQuery) -> Result<TrafficPage> {
        let session = self.session(id)?;
        let mut page = self.store.with(|conn| read(conn, id, query))?;
        page.dropped = session.dropped;
        Ok(page)
    }

    /// The bodies of the messages numbered `seqs` in session `id`, in that order.
    pub fn messages(&self, id: i64, seqs: &[u64]) -> Result<Vec<TrafficMessage>> {
        Ok(self
            .kept(id, seqs)?
            .into_iter()
            .map(|(entry, body)| TrafficMessage {
                seq: entry.seq,
                server: entry.server,
                body,
                truncated: entry.truncated,
                size: entry.size,
            })
            .collect())
    }

    /// The messages numbered `seqs` in session `id` as JSON Lines (the format of `--trace`).
    pub fn export(&self, id: i64, seqs: &[u64]) -> Result<Vec<String>> {
        Ok(self
            .kept(id, seqs)?
            .iter()
            .map(|(entry, body)| trace::line(entry, body))
            .collect())
    }

    fn kept(&self, id: i64, seqs: &[u64]) -> Result<Vec<(TrafficEntry, String)>> {
        let seqs = seqs.to_vec();
        self.store.with(move |conn| {
            let mut statement = conn.prepare_cached(&format!("{ROW} AND seq = ?2"))?;
            let mut out = Vec::new();
            for seq in seqs {
                let row = statement
                    .query_row(params![id, seq as i64], row_of)
                    .optional()?;
                out.extend(row.flatten().map(|(e, body)| (e, lossy(&body))));
            }
            Ok(out)
        })
    }
}

const SESSION: &str =
    "SELECT id, started_ms, ended_ms, messages, bytes, dropped, full FROM traffic_sessions";

const ROW: &str = "SELECT entry, body, paired_seq, latency_ms FROM traffic_kept WHERE session = ?1";

/// Rows looked at for one page at most: a rare filter over a long session answers in steps.
const SCAN: usize = 20_000;

fn session_of(row: &rusqlite::Row) -> rusqlite::Result<KeptSession> {
    let count = |i| row.get::<_, i64>(i).map(|n| n.max(0) as u64);
    Ok(KeptSession {
        id: row.get(0)?,
        started_ms: row.get::<_, i64>(1)? as f64,
        ended_ms: row.get::<_, Option<i64>>(2)?.map(|n| n as f64),
        messages: count(3)?,
        bytes: count(4)?,
        dropped: count(5)?,
        full: row.get(6)?,
    })
}

/// A kept message: its entry with its pairing, and its body (`None`: a row this version cannot
/// read, skipped).
fn row_of(row: &rusqlite::Row) -> rusqlite::Result<Option<(TrafficEntry, Vec<u8>)>> {
    let entry: String = row.get(0)?;
    let Ok(mut entry) = serde_json::from_str::<TrafficEntry>(&entry) else {
        return Ok(None);
    };
    if let Some(paired) = row.get::<_, Option<i64>>(2)? {
        entry.paired_seq = Some(paired as u64);
        entry.latency_ms = row.get(3)?;
    }
    Ok(Some((entry, row.get(1)?)))
}

fn lossy(body: &[u8]) -> String {
    String::from_utf8_lossy(body).into_owned()
}

fn read(conn: &Connection, id: i64, query: &TrafficQuery) -> rusqlite::Result<TrafficPage> {
    let limit = (query.limit.max(1) as usize).min(5_000);
    let filter = Filter::of(query);
    let mut statement =
        conn.prepare_cached(&format!("{ROW} AND seq > ?2 ORDER BY seq LIMIT ?3"))?;
    let mut rows = statement.query(params![id, query.after as i64, SCAN as i64])?;
    let mut page = TrafficPage {
        last: query.after,
        ..TrafficPage::default()
    };
    while let Some(row) = rows.next()? {
        let Some((entry, body)) = row_of(row)? else {
            continue;
        };
        page.last = entry.seq;
        let server_kept = query.servers.is_empty() || query.servers.contains(&entry.server);
        if server_kept && filter.keeps(&entry, &body) {
            page.entries.push(entry);
            if page.entries.len() == limit {
                break;
            }
        }
    }
    let mut methods =
        conn.prepare_cached("SELECT method FROM traffic_session_methods WHERE session = ?1")?;
    page.methods = methods
        .query_map([id], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    Ok(page)
}

/// One message on its way to the database.
struct Row {
    seq: u64,
    server: String,
    at_ms: f64,
    method: Option<String>,
    entry: String,
    body: Vec<u8>,
}

/// What a session gained (since the last write, or in all).
#[derive(Default)]
struct Added {
    messages: u64,
    bytes: u64,
    refused: u64,
    full: bool,
}

/// The writer thread's end: rows buffered and written a batch at a time.
struct Rows {
    store: Arc<Store>,
    bounds: Bounds,
    session: Option<(i64, Added)>,
    rows: Vec<Row>,
    pairs: Vec<(u64, u64, Option<f64>)>,
    /// The session's totals so far, for its bounds.
    added: Added,
}

impl Rows {
    const BATCH: usize = 512;

    fn write_batch(&mut self) -> Result<()> {
        let (rows, pairs) = (
            std::mem::take(&mut self.rows),
            std::mem::take(&mut self.pairs),
        );
        let Some((id, pending)) = &mut self.session else {
            return Ok(());
        };
        let pending = std::mem::take(pending);
        if rows.is_empty() && pairs.is_empty() && pending.refused == 0 {
            return Ok(());
        }
        let id = *id;
        self.store.with(|conn| {
            let tx = conn.transaction()?;
            insert(&tx, id, &rows, &pairs, &pending)?;
            tx.commit()
        })
    }
}

fn insert(
    tx: &rusqlite::Transaction,
    id: i64,
    rows: &[Row],
    pairs: &[(u64, u64, Option<f64>)],
    added: &Added,
) -> rusqlite::Result<()> {
    let mut put = tx.prepare_cached(
        "INSERT OR IGNORE INTO traffic_kept (session, seq, server, at_ms, entry, body)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    let mut method =
        tx.prepare_cached("INSERT OR IGNORE INTO traffic_session_methods VALUES (?1, ?2)")?;
    for row in rows {
        put.execute(params![
            id,
            row.seq as i64,
            row.server,
            row.at_ms,
            row.entry,
            row.body
        ])?;
        if let Some(m) = &row.method {
            method.execute(params![id, m])?;
        }
    }
    let mut pair = tx.prepare_cached(
        "UPDATE traffic_kept SET paired_seq = ?3, latency_ms = ?4 WHERE session = ?1 AND seq = ?2",
    )?;
    for (request, response, latency) in pairs {
        pair.execute(params![id, *request as i64, *response as i64, latency])?;
    }
    tx.execute(
        "UPDATE traffic_sessions SET messages = messages + ?2, bytes = bytes + ?3,
             dropped = dropped + ?4, full = full OR ?5
         WHERE id = ?1",
        params![
            id,
            added.messages as i64,
            added.bytes as i64,
            added.refused as i64,
            added.full
        ],
    )?;
    Ok(())
}

impl Sink for Rows {
    fn write(&mut self, server: &str, entry: &TrafficEntry, body: &[u8]) -> std::io::Result<()> {
        let Some((_, pending)) = &mut self.session else {
            return Ok(());
        };
        let total = &mut self.added;
        if total.messages >= self.bounds.messages
            || total.bytes + body.len() as u64 > self.bounds.bytes
        {
            pending.refused += 1;
            pending.full = true;
            return Ok(());
        }
        total.messages += 1;
        total.bytes += body.len() as u64;
        pending.messages += 1;
        pending.bytes += body.len() as u64;
        // A response's entry holds its pairing; a request's is filled in when it is answered.
        self.rows.push(Row {
            seq: entry.seq,
            server: server.to_owned(),
            at_ms: entry.at_ms,
            method: entry.method.clone(),
            entry: serde_json::to_string(entry).unwrap_or_default(),
            body: body.to_vec(),
        });
        if self.rows.len() >= Self::BATCH {
            self.flush()?;
        }
        Ok(())
    }

    fn paired(&mut self, entry: &TrafficEntry) -> std::io::Result<()> {
        if let (Some(request), Some(_)) = (entry.paired_seq, &self.session) {
            self.pairs.push((request, entry.seq, entry.latency_ms));
        }
        Ok(())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        // A failed write loses this batch, not the session: the writer goes on.
        if let Err(e) = self.write_batch() {
            tracing::warn!(error = %e, "a batch of kept traffic could not be written");
        }
        Ok(())
    }

    fn mark(&mut self, mark: Option<i64>) -> std::io::Result<()> {
        self.session = mark.map(|id| (id, Added::default()));
        self.added = Added::default();
        Ok(())
    }
}

#[cfg(test)]
mod tests;
