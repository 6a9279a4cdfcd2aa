//! Records leaving the rings as they are made, for a writer thread to keep: the CLI's
//! `--trace FILE` (JSON Lines, one message a line with what the traffic screen shows of it and its
//! body; also the format of the app's export) and the app's kept sessions in SQLite
//! ([`super::kept`]). Secrets are replaced before a record gets here (see [`super::hidden`]).

use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError};

use serde_json::Value;

use super::{Pairing, Record, TrafficEntry};

/// Where a writer thread puts the records a [`Tap`] sends it, each already described and paired
/// with the messages of its own server.
pub trait Sink: Send + 'static {
    /// Keeps one message.
    fn write(&mut self, server: &str, entry: &TrafficEntry, body: &[u8]) -> std::io::Result<()>;
    /// The response `entry` pairs its request (written earlier) with.
    fn paired(&mut self, _entry: &TrafficEntry) -> std::io::Result<()> {
        Ok(())
    }
    /// The queue is empty for now: whatever is buffered goes out.
    fn flush(&mut self) -> std::io::Result<()>;
    /// The tap was turned on (`Some`, with what [`TapSwitch::turn_on`] was given) or off.
    fn mark(&mut self, _mark: Option<i64>) -> std::io::Result<()> {
        Ok(())
    }
}

/// What travels to the writer: a record with its server's name, or a turn of the switch.
enum Queued {
    Record {
        server: String,
        record: Record,
    },
    /// Acknowledged once the sink has heard of it.
    Mark(Option<i64>, SyncSender<()>),
    End,
}

/// Records on their way to a writer; when the writer falls behind, the excess is counted and
/// left out rather than held in memory. Sends only while its switch is on.
pub struct Tap {
    tx: SyncSender<Queued>,
    dropped: Arc<AtomicU64>,
    on: Arc<AtomicBool>,
}

impl Tap {
    /// Records waiting for the writer, at most.
    const BACKLOG: usize = 16_384;

    pub(super) fn send(&self, server: &str, record: &Record) {
        if !self.on.load(Ordering::Relaxed) {
            return;
        }
        let queued = Queued::Record {
            server: server.to_owned(),
            record: record.clone(),
        };
        if let Err(TrySendError::Full(_)) = self.tx.try_send(queued) {
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Turns a [`Tap`] on and off; each turn reaches the sink in order with the records.
#[derive(Clone)]
pub struct TapSwitch {
    tx: SyncSender<Queued>,
    dropped: Arc<AtomicU64>,
    on: Arc<AtomicBool>,
}

impl TapSwitch {
    /// Records are sent from now on, after `mark`; returns once the sink has heard of it.
    pub fn turn_on(&self, mark: i64) {
        self.marked(Some(mark));
        self.on.store(true, Ordering::SeqCst);
    }

    /// No record is sent from now on; returns once the sink has written every one sent before.
    pub fn turn_off(&self) {
        self.on.store(false, Ordering::SeqCst);
        self.marked(None);
    }

    fn marked(&self, mark: Option<i64>) {
        let (ack, heard) = std::sync::mpsc::sync_channel(1);
        if self.tx.send(Queued::Mark(mark, ack)).is_ok() {
            let _ = heard.recv();
        }
    }

    /// Records left out so far because the writer fell behind.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

/// A writer thread; [`Writer::finish`] writes what is still queued and stops it.
pub struct Writer {
    switch: TapSwitch,
    thread: std::thread::JoinHandle<std::io::Result<u64>>,
}

impl Writer {
    /// Writes what is queued, stops the sink, and says how many messages it wrote and how many
    /// were left out because the writer fell behind.
    pub fn finish(self) -> std::io::Result<(u64, u64)> {
        let _ = self.switch.tx.send(Queued::End);
        let written = self
            .thread
            .join()
            .map_err(|_| std::io::Error::other("the traffic writer stopped"))??;
        Ok((written, self.switch.dropped()))
    }
}

/// Starts a thread writing to `sink` what the returned tap sends (give it to
/// [`super::Traffic::tap`]); the tap starts on when `on`.
pub fn spawn(sink: impl Sink, on: bool) -> std::io::Result<(Tap, TapSwitch, Writer)> {
    let (tx, rx) = std::sync::mpsc::sync_channel(Tap::BACKLOG);
    let switch = TapSwitch {
        tx: tx.clone(),
        dropped: Arc::new(AtomicU64::new(0)),
        on: Arc::new(AtomicBool::new(on)),
    };
    let thread = std::thread::Builder::new()
        .name("traffic-writer".into())
        .spawn(move || write_all(rx, sink))?;
    let tap = Tap {
        tx,
        dropped: switch.dropped.clone(),
        on: switch.on.clone(),
    };
    let writer = Writer {
        switch: switch.clone(),
        thread,
    };
    Ok((tap, switch, writer))
}

/// A trace file being written.
pub type TraceFile = Writer;

/// Opens `path` (replacing it) and returns the tap to give [`super::Traffic::tap`], on.
pub fn to_file(path: &std::path::Path) -> std::io::Result<(Tap, TraceFile)> {
    let file = std::fs::File::create(path)?;
    let (tap, _, writer) = spawn(Lines(std::io::BufWriter::new(file)), true)?;
    Ok((tap, writer))
}

/// JSON Lines, one message a line.
struct Lines<W>(W);

impl<W: Write + Send + 'static> Sink for Lines<W> {
    fn write(&mut self, _: &str, entry: &TrafficEntry, body: &[u8]) -> std::io::Result<()> {
        writeln!(self.0, "{}", line(entry, &String::from_utf8_lossy(body)))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

fn write_all(rx: Receiver<Queued>, mut sink: impl Sink) -> std::io::Result<u64> {
    // Each server's ids are its own: a response is paired within its server only.
    let mut pairings: HashMap<String, Pairing> = HashMap::new();
    let mut written = 0u64;
    loop {
        // Flush whenever the queue is empty, so a trace of a run that crashes still holds
        // everything up to the crash.
        let next = match rx.try_recv() {
            Ok(next) => next,
            Err(_) => {
                sink.flush()?;
                rx.recv().unwrap_or(Queued::End)
            }
        };
        match next {
            Queued::Record { server, record } => {
                let pairing = pairings.entry(server.clone()).or_default();
                let entry = entry_of(&server, record.clone(), pairing);
                sink.write(&server, &entry, &record.body.bytes())?;
                if entry.paired_seq.is_some() {
                    sink.paired(&entry)?;
                }
                written += 1;
            }
            Queued::Mark(mark, ack) => {
                // A request from before the turn will never be seen answered here.
                pairings.clear();
                sink.flush()?;
                sink.mark(mark)?;
                let _ = ack.send(());
            }
            Queued::End => break,
        }
    }
    sink.flush()?;
    Ok(written)
}

fn entry_of(server: &str, mut record: Record, pairing: &mut Pairing) -> TrafficEntry {
    record.described = Some(Box::new(super::described(&record, pairing)));
    record.entry(server).0
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
