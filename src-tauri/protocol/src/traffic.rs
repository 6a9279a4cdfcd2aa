//! What crossed the wire to each server: every JSON-RPC message in both directions (and for HTTP
//! the exchange's status and the headers that matter), kept in a bounded ring per server with its
//! secrets already replaced. Recording is a copy of bytes the transport holds anyway, less the
//! `_meta` run every request repeats ([`body`]); what a message is (kind, method, id) and which
//! request a response answers are worked out only when someone looks ([`shape`], [`Pairing`]).

mod body;
pub mod hidden;
pub mod kept;
pub mod shape;
pub mod trace;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use body::Body;
use hidden::Hidden;

/// Which way a message went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum Direction {
    /// From Switchboard to the server.
    Out,
    /// From the server to Switchboard.
    In,
}

impl Direction {
    fn other(self) -> Self {
        match self {
            Self::Out => Self::In,
            Self::In => Self::Out,
        }
    }
}

/// What a recorded message is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum MessageKind {
    Request,
    Response,
    Error,
    Notification,
    Batch,
    /// An HTTP exchange's status and headers, with no message of its own.
    Http,
    /// Not JSON-RPC (or cut before it said).
    #[default]
    Other,
}

/// One HTTP header as recorded (a secret value already replaced).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct HttpHeader {
    pub name: String,
    pub value: String,
}

/// The HTTP side of a message: the verb sent, or the status received, and the headers that
/// matter to MCP.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct HttpExchange {
    pub verb: String,
    pub status: Option<u16>,
    pub headers: Vec<HttpHeader>,
    /// Why the exchange failed, when it did.
    pub error: Option<String>,
}

/// One recorded message as the traffic screen lists it (its body is asked for separately).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TrafficEntry {
    /// Its place among every server's messages: later messages have larger numbers.
    #[ts(type = "number")]
    pub seq: u64,
    pub server: String,
    /// When it was recorded, in milliseconds since the Unix epoch.
    pub at_ms: f64,
    pub direction: Direction,
    pub kind: MessageKind,
    /// The method; for a response, its request's.
    pub method: Option<String>,
    /// The JSON-RPC id as written.
    pub id: Option<String>,
    /// The message's size in bytes as it crossed the wire.
    #[ts(type = "number")]
    pub size: u64,
    /// Whether only the head of the message was kept.
    pub truncated: bool,
    /// A failed request: a JSON-RPC error, a tool result marked as an error, an HTTP error.
    pub failed: bool,
    /// The response to this request, or the request this responds to.
    #[ts(type = "number | null")]
    pub paired_seq: Option<u64>,
    /// Between the request and its response, on both of them.
    pub latency_ms: Option<f64>,
    pub http: Option<HttpExchange>,
    /// The start of the body, on one line.
    pub preview: String,
}

/// Which messages to list: `after` a sequence number (0: from the start), at most `limit`.
#[derive(Debug, Clone, Default, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
#[ts(export)]
pub struct TrafficQuery {
    /// Empty: every server.
    pub servers: Vec<String>,
    /// Empty: every method.
    pub methods: Vec<String>,
    pub direction: Option<Direction>,
    pub errors_only: bool,
    /// Found anywhere in the message, ignoring case.
    pub text: String,
    #[ts(type = "number")]
    pub after: u64,
    pub limit: u32,
    /// A kept session to read ([`kept`]) instead of the live rings.
    #[ts(type = "number | null")]
    pub session: Option<i64>,
}

/// A page of messages and where the next one starts.
#[derive(Debug, Clone, Default, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TrafficPage {
    pub entries: Vec<TrafficEntry>,
    /// Pass as `after` to get what comes next.
    #[ts(type = "number")]
    pub last: u64,
    /// Messages the rings no longer hold (the oldest go first).
    #[ts(type = "number")]
    pub dropped: u64,
    /// Every method seen, for the filter.
    pub methods: Vec<String>,
}

/// One message's body, as kept (secrets replaced; the head only when truncated).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TrafficMessage {
    #[ts(type = "number")]
    pub seq: u64,
    pub server: String,
    pub body: String,
    pub truncated: bool,
    #[ts(type = "number")]
    pub size: u64,
}

/// How much each server's ring keeps: whichever bound comes first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TrafficLimits {
    pub max_messages: u32,
    pub max_bytes: u32,
    /// A longer message keeps only its head.
    pub max_message_bytes: u32,
}

impl Default for TrafficLimits {
    fn default() -> Self {
        Self {
            max_messages: 5_000,
            max_bytes: 8 << 20,
            max_message_bytes: 64 << 10,
        }
    }
}

/// Every server's ring, and the sequence numbers they share.
#[derive(Clone, Default)]
pub struct Traffic {
    common: Arc<Common>,
    rings: Arc<Mutex<BTreeMap<String, TrafficRing>>>,
    /// Whether anything is recorded ([`Traffic::off`]: nothing).
    on: bool,
}

#[derive(Default)]
struct Common {
    seq: AtomicU64,
    limits: RwLock<TrafficLimits>,
    /// Where every record is also sent (the CLI's `--trace`).
    tap: OnceLock<trace::Tap>,
}

impl Traffic {
    /// Rings that keep up to `limits`.
    pub fn new(limits: TrafficLimits) -> Self {
        let traffic = Self {
            on: true,
            ..Self::default()
        };
        traffic.set_limits(limits);
        traffic
    }

    /// Records nothing: every ring it hands out is [`TrafficRing::off`].
    pub fn off() -> Self {
        Self::default()
    }

    /// The ring of `server`, made on first use.
    pub fn ring(&self, server: &str) -> TrafficRing {
        if !self.on {
            return TrafficRing::off();
        }
        let limits = self.limits();
        let mut rings = self.rings.lock().unwrap_or_else(|p| p.into_inner());
        rings
            .entry(server.to_owned())
            .or_insert_with(|| TrafficRing::new(server, self.common.clone(), limits))
            .clone()
    }

    /// Forgets a removed server's messages.
    pub fn forget(&self, server: &str) {
        self.rings
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(server);
    }

    /// The bounds every ring keeps to.
    pub fn limits(&self) -> TrafficLimits {
        *self.common.limits.read().unwrap_or_else(|p| p.into_inner())
    }

    /// New bounds, applied to every ring at once (the oldest messages go first).
    pub fn set_limits(&self, limits: TrafficLimits) {
        *self
            .common
            .limits
            .write()
            .unwrap_or_else(|p| p.into_inner()) = limits;
        for ring in self.all_rings() {
            ring.set_limits(limits);
        }
    }

    /// Sends every record from now on to `tap` too (once; later calls are ignored).
    pub fn tap(&self, tap: trace::Tap) {
        let _ = self.common.tap.set(tap);
    }

    fn all_rings(&self) -> Vec<TrafficRing> {
        let rings = self.rings.lock().unwrap_or_else(|p| p.into_inner());
        rings.values().cloned().collect()
    }

    fn rings_for(&self, servers: &[String]) -> Vec<TrafficRing> {
        let rings = self.rings.lock().unwrap_or_else(|p| p.into_inner());
        rings
            .iter()
            .filter(|(name, _)| servers.is_empty() || servers.contains(name))
            .map(|(_, ring)| ring.clone())
            .collect()
    }

    /// The messages `query` asks for, oldest first, from every server it names.
    pub fn query(&self, query: &TrafficQuery) -> TrafficPage {
        // Sequence numbers are taken under a ring's lock, so every record up to this one is in
        // its ring by the time that ring is read: nothing is skipped by the next `after`.
        let upto = self.common.seq.load(Ordering::SeqCst);
        let limit = (query.limit.max(1) as usize).min(5_000);
        let filter = Filter::of(query);
        let mut page = TrafficPage::default();
        let mut methods = std::collections::BTreeSet::new();
        for ring in self.rings_for(&query.servers) {
            let read = ring.read(&filter, query.after, upto, limit);
            page.entries.extend(read.entries);
            page.dropped += read.dropped;
            methods.extend(read.methods);
        }
        page.entries.sort_by_key(|e| e.seq);
        page.entries.truncate(limit);
        page.last = match page.entries.last() {
            Some(last) if page.entries.len() == limit => last.seq,
            _ => upto.max(query.after),
        };
        page.methods = methods.into_iter().collect();
        page
    }

    /// The bodies of the messages numbered `seqs` that are still kept, in that order.
    pub fn messages(&self, seqs: &[u64]) -> Vec<TrafficMessage> {
        let rings = self.all_rings();
        seqs.iter()
            .filter_map(|seq| rings.iter().find_map(|ring| ring.message(*seq)))
            .collect()
    }

    /// The messages numbered `seqs` as JSON Lines (the format of `--trace`), with their bodies.
    pub fn export(&self, seqs: &[u64]) -> Vec<String> {
        let all = TrafficQuery {
            limit: 5_000,
            ..TrafficQuery::default()
        };
        let entries: HashMap<u64, TrafficEntry> = self
            .query_all(&all)
            .into_iter()
            .map(|e| (e.seq, e))
            .collect();
        self.messages(seqs)
            .into_iter()
            .filter_map(|m| Some(trace::line(entries.get(&m.seq)?, &m.body)))
            .collect()
    }

    fn query_all(&self, query: &TrafficQuery) -> Vec<TrafficEntry> {
        let mut query = query.clone();
        let mut out = Vec::new();
        loop {
            let page = self.query(&query);
            let done = page.entries.is_empty() || page.last == query.after;
            out.extend(page.entries);
            if done {
                return out;
            }
            query.after = page.last;
        }
    }
}

/// One server's ring; a clone shares it. [`TrafficRing::off`] records nothing.
#[derive(Clone, Default)]
pub struct TrafficRing(Option<Arc<Shared>>);

struct Shared {
    server: String,
    common: Arc<Common>,
    hidden: RwLock<Arc<Hidden>>,
    max_message_bytes: AtomicUsize,
    ring: Mutex<Ring>,
}

impl TrafficRing {
    /// A ring that records nothing (the CLI without `--trace`, benchmarks with it off).
    pub fn off() -> Self {
        Self(None)
    }

    fn new(server: &str, common: Arc<Common>, limits: TrafficLimits) -> Self {
        Self(Some(Arc::new(Shared {
            server: server.to_owned(),
            common,
            hidden: RwLock::new(Arc::new(Hidden::default())),
            max_message_bytes: AtomicUsize::new(limits.max_message_bytes as usize),
            ring: Mutex::new(Ring::new(limits)),
        })))
    }

    /// Whether this ring records.
    pub fn is_on(&self) -> bool {
        self.0.is_some()
    }

    /// Hides `values` (the secrets the server was started with) from every message recorded
    /// from now on, in place of those of its previous start.
    pub fn hide(&self, values: impl IntoIterator<Item = String>) {
        if let Some(s) = &self.0 {
            *s.hidden.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(Hidden::new(values));
        }
    }

    /// Hides `value` too (a bearer token met on the way out), unless it already is.
    pub fn hide_also(&self, value: &str) {
        let Some(s) = &self.0 else { return };
        let current = s.hidden.read().unwrap_or_else(|p| p.into_inner()).clone();
        if !current.holds(value) {
            let values = current
                .values()
                .chain([value.to_owned()])
                .collect::<Vec<_>>();
            self.hide(values);
        }
    }

    /// Records one message's bytes as they crossed the wire.
    pub fn record(&self, direction: Direction, bytes: &[u8]) {
        self.push(direction, bytes, None);
    }

    /// Records a message the transport holds typed (HTTP, legacy SSE): serialized here, only
    /// when recording.
    pub fn record_message(
        &self,
        direction: Direction,
        message: &impl Serialize,
        http: Option<HttpExchange>,
    ) {
        if self.0.is_some() {
            let bytes = serde_json::to_vec(message).unwrap_or_default();
            self.push(direction, &bytes, http);
        }
    }

    /// Records an HTTP exchange that carried no message (a 202, a refused request).
    pub fn record_http(&self, direction: Direction, http: HttpExchange) {
        self.push(direction, b"", Some(http));
    }

    fn push(&self, direction: Direction, bytes: &[u8], http: Option<HttpExchange>) {
        let Some(s) = &self.0 else { return };
        let hidden = s.hidden.read().unwrap_or_else(|p| p.into_inner()).clone();
        let keep = s.max_message_bytes.load(Ordering::Relaxed);
        let kept = hidden.cut(bytes, keep);
        let http = http.map(|h| Box::new(hide_headers(h, &hidden)));
        let at_ms = now_ms();
        let mut ring = s.ring.lock().unwrap_or_else(|p| p.into_inner());
        let body = ring.shared[direction as usize].body(&kept);
        let seq = s.common.seq.fetch_add(1, Ordering::SeqCst) + 1;
        let record = Record {
            seq,
            at_ms,
            direction,
            body,
            size: bytes.len(),
            http,
            described: None,
        };
        if let Some(tap) = s.common.tap.get() {
            tap.send(&s.server, &record);
        }
        ring.push(record);
    }

    fn set_limits(&self, limits: TrafficLimits) {
        if let Some(s) = &self.0 {
            s.max_message_bytes
                .store(limits.max_message_bytes as usize, Ordering::Relaxed);
            s.ring
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .set_limits(limits);
        }
    }

    fn read(&self, filter: &Filter, after: u64, upto: u64, limit: usize) -> Read {
        let Some(s) = &self.0 else {
            return Read::default();
        };
        let mut ring = s.ring.lock().unwrap_or_else(|p| p.into_inner());
        ring.describe();
        let entries = ring
            .records
            .iter()
            .filter(|r| r.seq > after && r.seq <= upto)
            .map(|r| r.entry(&s.server))
            .filter(|(e, body)| filter.keeps(e, body))
            .map(|(e, _)| e)
            .take(limit)
            .collect();
        Read {
            entries,
            dropped: ring.dropped,
            methods: ring.pairing.methods.iter().cloned().collect(),
        }
    }

    fn message(&self, seq: u64) -> Option<TrafficMessage> {
        let s = self.0.as_ref()?;
        let ring = s.ring.lock().unwrap_or_else(|p| p.into_inner());
        let record = ring.find(seq)?;
        Some(TrafficMessage {
            seq,
            server: s.server.clone(),
            body: String::from_utf8_lossy(&record.body.bytes()).into_owned(),
            truncated: record.truncated(),
            size: record.size as u64,
        })
    }
}

#[derive(Default)]
struct Read {
    entries: Vec<TrafficEntry>,
    dropped: u64,
    methods: Vec<String>,
}

/// Header values that hold a secret, replaced; `Authorization` and cookies whatever they hold.
fn hide_headers(mut http: HttpExchange, hidden: &Hidden) -> HttpExchange {
    for header in &mut http.headers {
        let name = header.name.to_ascii_lowercase();
        let always = matches!(
            name.as_str(),
            "authorization" | "proxy-authorization" | "cookie" | "set-cookie"
        ) || crate::config::import::looks_secret(&name);
        if always && !header.value.is_empty() {
            header.value = "[redacted]".to_owned();
        } else {
            let cut = hidden.cut(header.value.as_bytes(), usize::MAX / 2);
            header.value = String::from_utf8_lossy(&cut).into_owned();
        }
    }
    http
}

fn now_ms() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1000.0)
        .unwrap_or(0.0)
}

/// One kept message.
#[derive(Clone)]
struct Record {
    seq: u64,
    at_ms: f64,
    direction: Direction,
    body: Body,
    size: usize,
    /// Boxed, as are the others below: most records have none, and a small record keeps the ring
    /// within a few cache-friendly megabytes.
    http: Option<Box<HttpExchange>>,
    described: Option<Box<Described>>,
}

/// What [`shape`] and [`Pairing`] found, worked out once.
#[derive(Debug, Clone, Default)]
struct Described {
    shape: shape::Shape,
    method: Option<String>,
    failed: bool,
    paired: Option<(u64, f64)>,
}

impl Record {
    fn truncated(&self) -> bool {
        self.body.len() < self.size
    }

    fn footprint(&self) -> usize {
        self.body.own_len() + std::mem::size_of::<Self>()
    }

    fn entry(&self, server: &str) -> (TrafficEntry, Cow<'_, [u8]>) {
        let body = self.body.bytes();
        let d = self.described.as_deref().cloned().unwrap_or_default();
        let kind = match (&self.http, d.shape.kind) {
            (Some(_), MessageKind::Other) => MessageKind::Http,
            (_, kind) => kind,
        };
        let entry = TrafficEntry {
            seq: self.seq,
            server: server.to_owned(),
            at_ms: self.at_ms,
            direction: self.direction,
            kind,
            method: d.method,
            id: d.shape.id,
            size: self.size as u64,
            truncated: self.truncated(),
            failed: d.failed,
            paired_seq: d.paired.map(|p| p.0),
            latency_ms: d.paired.map(|p| p.1),
            http: self.http.as_deref().cloned(),
            preview: preview(&body),
        };
        (entry, body)
    }
}

/// The first characters of `body` on one line.
fn preview(body: &[u8]) -> String {
    let head = &body[..body.len().min(480)];
    String::from_utf8_lossy(head)
        .chars()
        .take(160)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// A failed exchange: a JSON-RPC error, a tool result marked as an error, an HTTP error.
fn failed(record: &Record, body: &[u8], shape: &shape::Shape) -> bool {
    let http_error = record
        .http
        .as_deref()
        .is_some_and(|h| h.error.is_some() || h.status.is_some_and(|s| s >= 400));
    let tool_error = shape.kind == MessageKind::Response
        && memchr::memmem::find(body, br#""isError":true"#).is_some();
    http_error || tool_error || shape.kind == MessageKind::Error
}

struct Ring {
    records: VecDeque<Record>,
    bytes: usize,
    dropped: u64,
    limits: TrafficLimits,
    pairing: Pairing,
    /// The run each direction's messages repeat, held once.
    shared: [body::Shared; 2],
}

impl Ring {
    fn new(limits: TrafficLimits) -> Self {
        Self {
            records: VecDeque::new(),
            bytes: 0,
            dropped: 0,
            limits,
            pairing: Pairing::default(),
            shared: Default::default(),
        }
    }

    fn push(&mut self, record: Record) {
        // The oldest goes before the newest comes, so a full ring never outgrows its room.
        while self.records.len() >= self.max_messages() {
            self.drop_oldest();
        }
        if self.records.len() == self.records.capacity() {
            match self.room().checked_sub(self.records.len()) {
                Some(more) if more > 0 => self.records.reserve_exact(more),
                _ => self.records.reserve(1),
            }
        }
        self.bytes += record.footprint();
        self.records.push_back(record);
        self.trim();
    }

    /// How many records a full ring holds, as far as it is worth making room for at once. Room
    /// is made for all of them at the first record: grown by doubling, the ring would hold its
    /// records twice while moving them, and up to twice the room it needs for good. Pages of
    /// room no record reached take no memory.
    fn room(&self) -> usize {
        let by_bytes = self.limits.max_bytes as usize / std::mem::size_of::<Record>() + 1;
        self.max_messages().min(by_bytes).min(Self::MAX_ROOM)
    }

    /// Past this many records, room is made as it is needed.
    const MAX_ROOM: usize = 1 << 16;

    fn max_messages(&self) -> usize {
        self.limits.max_messages.max(1) as usize
    }

    fn set_limits(&mut self, limits: TrafficLimits) {
        self.limits = limits;
        self.trim();
        self.records.shrink_to(self.room());
    }

    fn trim(&mut self) {
        let bytes = self.limits.max_bytes as usize;
        while self.records.len() > self.max_messages()
            || (self.bytes > bytes && self.records.len() > 1)
        {
            self.drop_oldest();
        }
    }

    fn drop_oldest(&mut self) {
        if let Some(old) = self.records.pop_front() {
            self.bytes -= old.footprint();
            self.dropped += 1;
        }
    }

    fn find(&self, seq: u64) -> Option<&Record> {
        let i = self.records.partition_point(|r| r.seq < seq);
        self.records.get(i).filter(|r| r.seq == seq)
    }

    /// Describes the records nobody has looked at yet, in order, pairing responses.
    fn describe(&mut self) {
        let first = self.records.partition_point(|r| r.described.is_some());
        for i in first..self.records.len() {
            let described = described(&self.records[i], &mut self.pairing);
            let seq = self.records[i].seq;
            if let Some((request, latency)) = described.paired
                && let Some(r) = self.find_mut(request)
                && let Some(d) = &mut r.described
            {
                d.paired = Some((seq, latency));
            }
            self.records[i].described = Some(Box::new(described));
        }
    }

    fn find_mut(&mut self, seq: u64) -> Option<&mut Record> {
        let i = self.records.partition_point(|r| r.seq < seq);
        self.records.get_mut(i).filter(|r| r.seq == seq)
    }
}

/// What `record` is; a response is paired with its request through `pairing` and named by its
/// request's method.
fn described(record: &Record, pairing: &mut Pairing) -> Described {
    let body = record.body.bytes();
    let shape = shape::of(&body);
    let paired = pairing.see(record.direction, record.at_ms, record.seq, &shape);
    Described {
        failed: failed(record, &body, &shape),
        method: match &paired {
            Some((_, _, method)) => method.clone(),
            None => shape.method.clone(),
        },
        paired: paired.map(|(seq, latency, _)| (seq, latency)),
        shape,
    }
}

/// Requests waiting for their response, by direction and id; each response finds its request.
#[derive(Default)]
pub struct Pairing {
    open: HashMap<(Direction, String), (u64, f64, Option<String>)>,
    methods: std::collections::BTreeSet<String>,
}

impl Pairing {
    /// Requests never answered are forgotten past this many.
    const MAX_OPEN: usize = 10_000;

    /// Notes a message; for a response, returns its request's sequence number, the latency
    /// and the request's method.
    pub fn see(
        &mut self,
        direction: Direction,
        at_ms: f64,
        seq: u64,
        shape: &shape::Shape,
    ) -> Option<(u64, f64, Option<String>)> {
        if let Some(method) = &shape.method
            && self.methods.len() < 1_000
        {
            self.methods.insert(method.clone());
        }
        let id = shape.id.clone()?;
        match shape.kind {
            MessageKind::Request => {
                if self.open.len() >= Self::MAX_OPEN {
                    self.open.clear();
                }
                self.open
                    .insert((direction, id), (seq, at_ms, shape.method.clone()));
                None
            }
            MessageKind::Response | MessageKind::Error => {
                let (request, sent, method) = self.open.remove(&(direction.other(), id))?;
                Some((request, (at_ms - sent).max(0.0), method))
            }
            _ => None,
        }
    }
}

/// An HTTP exchange as one line of lower-case text, for the text filter.
fn http_text(http: &HttpExchange) -> String {
    let status = http.status.map(|s| s.to_string()).unwrap_or_default();
    let headers = http
        .headers
        .iter()
        .map(|h| format!("{}: {}", h.name, h.value));
    [http.verb.clone(), status]
        .into_iter()
        .chain(headers)
        .chain(http.error.clone())
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// A [`TrafficQuery`]'s conditions, prepared once.
struct Filter {
    methods: Vec<String>,
    direction: Option<Direction>,
    errors_only: bool,
    text: Option<memchr::memmem::Finder<'static>>,
}

impl Filter {
    fn of(query: &TrafficQuery) -> Self {
        let text = query.text.trim().to_lowercase();
        Self {
            methods: query.methods.clone(),
            direction: query.direction,
            errors_only: query.errors_only,
            text: (!text.is_empty())
                .then(|| memchr::memmem::Finder::new(text.as_bytes()).into_owned()),
        }
    }

    fn keeps(&self, entry: &TrafficEntry, body: &[u8]) -> bool {
        let method = entry.method.as_deref().unwrap_or("");
        (self.methods.is_empty() || self.methods.iter().any(|m| m == method))
            && self.direction.is_none_or(|d| d == entry.direction)
            && (!self.errors_only || entry.failed)
            && self.text.as_ref().is_none_or(|t| {
                t.find(&body.to_ascii_lowercase()).is_some()
                    || entry
                        .http
                        .as_ref()
                        .is_some_and(|h| t.find(http_text(h).as_bytes()).is_some())
            })
    }
}

#[cfg(test)]
mod tests;
