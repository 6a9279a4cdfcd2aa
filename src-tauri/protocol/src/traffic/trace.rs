//! The traffic as JSON Lines, one message a line with what the traffic screen shows of it and its
//! body: what the CLI's `--trace FILE` writes as messages cross the wire, and what the app's
//! export writes. Secrets are replaced before a record gets here (see [`super::hidden`]).

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError};

use serde_json::Value;

use super::{Pairing, Record, TrafficEntry};

/// Records on their way to a trace file; when the writer falls behind, the excess is counted
/// and left out rather than held in memory.
pub struct Tap {
    tx: SyncSender<Option<Tapped>>,
    dropped: Arc<AtomicU64>,
}

/// A record on its way to the file, with its server's name.
struct Tapped {
    server: String,
    record: Record,
}

impl Tap {
    /// Records waiting for the writer, at most.
    const BACKLOG: usize = 16_384;

    pub(super) fn send(&self, server: &str, record: &Record) {
        let tapped = Tapped {
            server: server.to_owned(),
            record: record.clone(),
        };
        if let Err(TrySendError::Full(_)) = self.tx.try_send(Some(tapped)) {
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// A trace file being written; [`TraceFile::finish`] writes what is still queued and closes it.
pub struct TraceFile {
    stop: SyncSender<Option<Tapped>>,
    writer: std::thread::JoinHandle<std::io::Result<u64>>,
    dropped: Arc<AtomicU64>,
}

/// Opens `path` (replacing it) and returns the tap to give [`super::Traffic::tap`].
pub fn to_file(path: &std::path::Path) -> std::io::Result<(Tap, TraceFile)> {
    let file = std::fs::File::create(path)?;
    let (tx, rx) = std::sync::mpsc::sync_channel(Tap::BACKLOG);
    let dropped = Arc::new(AtomicU64::new(0));
    let writer = std::thread::Builder::new()
        .name("trace-file".into())
        .spawn(move || write_all(rx, std::io::BufWriter::new(file)))?;
    let tap = Tap {
        tx: tx.clone(),
        dropped: dropped.clone(),
    };
    Ok((
        tap,
        TraceFile {
            stop: tx,
            writer,
            dropped,
        },
    ))
}

impl TraceFile {
    /// Writes what is queued, closes the file, and says how many lines it holds and how many
    /// records were left out because the writer fell behind.
    pub fn finish(self) -> std::io::Result<(u64, u64)> {
        let _ = self.stop.send(None);
        let lines = self
            .writer
            .join()
            .map_err(|_| std::io::Error::other("the trace writer stopped"))??;
        Ok((lines, self.dropped.load(Ordering::Relaxed)))
    }
}

fn write_all(rx: Receiver<Option<Tapped>>, mut out: impl Write) -> std::io::Result<u64> {
    let mut pairing = Pairing::default();
    let mut lines = 0u64;
    loop {
        // Flush whenever the queue is empty, so a trace of a run that crashes still holds
        // everything up to the crash.
        let next = match rx.try_recv() {
            Ok(next) => next,
            Err(_) => {
                out.flush()?;
                rx.recv().unwrap_or_default()
            }
        };
        let Some(tapped) = next else { break };
        let entry = entry_of(&tapped, &mut pairing);
        writeln!(
            out,
            "{}",
            line(&entry, &String::from_utf8_lossy(&tapped.record.body))
        )?;
        lines += 1;
    }
    out.flush()?;
    Ok(lines)
}

fn entry_of(t: &Tapped, pairing: &mut Pairing) -> TrafficEntry {
    let mut record = t.record.clone();
    record.described = Some(Box::new(super::described(&record, pairing)));
    record.entry(&t.server).0
}

/// One line of a trace: the entry's fields, and the body as JSON where it is whole JSON (as text
/// where it was cut or is not JSON).
pub fn line(entry: &TrafficEntry, body: &str) -> String {
    let mut value = serde_json::to_value(entry).unwrap_or(Value::Null);
    if let Value::Object(fields) = &mut value {
        fields.remove("preview");
        let parsed = (!entry.truncated)
            .then(|| serde_json::from_str::<Value>(body).ok())
            .flatten();
        let body = match parsed {
            Some(json) => json,
            None if body.is_empty() => Value::Null,
            None => Value::String(body.to_owned()),
        };
        fields.insert("body".into(), body);
    }
    value.to_string()
}
