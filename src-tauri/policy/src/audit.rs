//! The audit log: every tool call, sampling request and response, elicitation and approval
//! decision, step by step — who asked, what was shown, what was decided, what was sent back, and
//! how long it took. Each step is its own committed row, written *before* the flow moves on, so
//! killing the app mid-flow loses nothing that already happened. Searchable and exportable as
//! JSON Lines. A row's detail is capped at [`MAX_DETAIL_BYTES`]: a longer one is kept as its
//! beginning, its length and the SHA-256 of the whole, so no server can fill the disk through it.

use std::io::Write;
use std::sync::Arc;

use rusqlite::params;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use ts_rs::TS;

use crate::canonical::{cut, new_id};
use crate::error::{Error, ErrorCode, Result};
use crate::store::{Store, now_ms, off_thread};

/// The most a row's detail (its JSON text) takes in the database. A longer detail is stored as
/// `{"truncated": true, "bytes": N, "sha256": "…", "head": "…"}`: the byte length and SHA-256
/// (hex) of the whole JSON text, and as much of its beginning as fits.
pub const MAX_DETAIL_BYTES: usize = 64 * 1024;

/// The most a row's subject (a tool or model name, as a server or model gave it) takes.
const MAX_SUBJECT_BYTES: usize = 1024;

/// What a flow is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum FlowKind {
    /// A model (in the chat) or the user calling a server's tool.
    ToolCall,
    /// A server's `sampling/createMessage`.
    Sampling,
    /// A server's `elicitation/create`.
    Elicitation,
    /// Reviewing a server's changed tool definitions or instructions.
    Pin,
    /// A server's view (MCP Apps): opened, and what it asked of the host besides tool calls.
    View,
}

impl FlowKind {
    fn as_str(self) -> &'static str {
        match self {
            FlowKind::ToolCall => "tool_call",
            FlowKind::Sampling => "sampling",
            FlowKind::Elicitation => "elicitation",
            FlowKind::Pin => "pin",
            FlowKind::View => "view",
        }
    }
}

/// One step of a flow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum Step {
    /// The request arrived (detail: the request as received).
    Requested,
    /// It was put in front of the user (detail: exactly what was shown).
    Shown,
    /// A decision was made (by the user, a standing rule, or a timeout).
    Decided,
    /// Something was sent on (to an LLM provider or to a server).
    Sent,
    /// The answer that went back to whoever asked.
    Returned,
    /// The flow ended in an error.
    Failed,
}

impl Step {
    fn as_str(self) -> &'static str {
        match self {
            Step::Requested => "requested",
            Step::Shown => "shown",
            Step::Decided => "decided",
            Step::Sent => "sent",
            Step::Returned => "returned",
            Step::Failed => "failed",
        }
    }
}

/// A row of the audit log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct AuditEntry {
    #[ts(type = "number")]
    pub id: i64,
    /// Groups the steps of one request.
    pub flow: String,
    /// When, in milliseconds since the Unix epoch.
    #[ts(type = "number")]
    pub at_ms: i64,
    pub kind: FlowKind,
    pub step: Step,
    /// The server involved.
    pub server: String,
    /// The tool, model or item concerned.
    pub subject: Option<String>,
    /// Who acted: `server`, `model`, `user`, `policy`, `timeout`, `provider`, `host`, or the CLI's
    /// `cli_allow` / `cli_deny`.
    pub actor: String,
    /// For `decided`: `approved`, `edited`, `denied`, `declined`, `cancelled`, `timed_out`. For a
    /// `failed` row that counts a server's requests refused before admission: `refused`.
    pub decision: Option<String>,
    /// The content of the step.
    #[ts(type = "unknown")]
    pub detail: Value,
    /// Time since the flow started.
    #[ts(type = "number | null")]
    pub duration_ms: Option<i64>,
}

/// A step about to be written.
#[derive(Debug, Clone)]
pub struct Record<'a> {
    pub flow: &'a Flow,
    pub step: Step,
    pub actor: &'a str,
    pub decision: Option<&'a str>,
    pub detail: Value,
}

/// One request being followed through its steps.
#[derive(Debug, Clone)]
pub struct Flow {
    pub id: String,
    pub kind: FlowKind,
    pub server: String,
    pub subject: Option<String>,
    started: std::time::Instant,
}

impl Flow {
    /// A new flow with a fresh id.
    pub fn new(kind: FlowKind, server: impl Into<String>, subject: Option<String>) -> Self {
        Self {
            id: new_id(),
            kind,
            server: server.into(),
            subject,
            started: std::time::Instant::now(),
        }
    }

    /// Flow `id` again, for steps added after it was made (a comparison of models asked for
    /// from its dialog).
    pub fn resume(id: &str, kind: FlowKind, server: impl Into<String>) -> Self {
        Self {
            id: id.to_owned(),
            kind,
            server: server.into(),
            subject: None,
            started: std::time::Instant::now(),
        }
    }
}

/// Filters for [`Audit::search`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
#[ts(export)]
pub struct AuditQuery {
    /// Words that must all appear somewhere in the row (server, subject, decision or detail).
    pub text: Option<String>,
    pub server: Option<String>,
    pub kind: Option<FlowKind>,
    pub flow: Option<String>,
    /// Newest first, at most this many (default 200).
    #[ts(type = "number | null")]
    pub limit: Option<u32>,
    /// Only rows with an id below this (paging backwards).
    #[ts(type = "number | null")]
    pub before_id: Option<i64>,
}

/// The audit log in the store.
#[derive(Debug, Clone)]
pub struct Audit {
    store: Arc<Store>,
}

impl Audit {
    /// The audit log kept in `store`.
    pub fn new(store: Arc<Store>) -> Self {
        Self { store }
    }

    /// Appends one step and commits it before returning (on the calling thread: not for async
    /// code, which uses [`Audit::write`]).
    pub fn record(&self, r: Record<'_>) -> Result<i64> {
        let row = Row::of(&r)?;
        self.store.with(|c| row.insert(c))
    }

    /// Appends one step on a blocking thread and returns once it is committed, so the flow it
    /// records goes on only after its step is on disk.
    pub async fn write(&self, r: Record<'_>) -> Result<i64> {
        let row = Row::of(&r)?;
        self.store.run(move |c| row.insert(c)).await
    }

    /// Writes a step, logging instead of failing: an audit write error must not turn an answer
    /// the user approved into a failure, but it must be visible.
    pub async fn note(&self, r: Record<'_>) {
        if let Err(e) = self.write(r).await {
            tracing::error!(error = %e, "could not write the audit log");
        }
    }

    /// Writes a step from where nothing can wait (a `Drop`): queued for the store's worker, ahead
    /// of anything written after it.
    pub fn note_detached(&self, r: Record<'_>) {
        let row = match Row::of(&r) {
            Ok(row) => row,
            Err(e) => return tracing::error!(error = %e, "could not write the audit log"),
        };
        self.store.detach(move |c| row.insert(c).map(|_| ()));
    }

    /// Deletes the rows written more than `keep` ago (the retention setting); returns how many.
    pub fn prune(&self, keep: std::time::Duration) -> Result<usize> {
        let cutoff = now_ms().saturating_sub(i64::try_from(keep.as_millis()).unwrap_or(i64::MAX));
        self.store
            .with(|c| c.execute("DELETE FROM audit WHERE at_ms < ?1", params![cutoff]))
    }

    /// Rows matching `q`, newest first, read after every write queued before (the app's reads:
    /// a step written from a `Drop` is there when the window asks).
    pub async fn find(&self, q: AuditQuery) -> Result<Vec<AuditEntry>> {
        let audit = self.clone();
        self.store.run(move |_| Ok(())).await?;
        off_thread(move || audit.search(&q)).await
    }

    /// Rows matching `q`, newest first (on the calling thread).
    pub fn search(&self, q: &AuditQuery) -> Result<Vec<AuditEntry>> {
        let (conditions, mut args) = conditions(q);
        if let Some(b) = q.before_id {
            args.push(b.into());
        }
        let before = match q.before_id {
            Some(_) => format!(" AND id < ?{}", args.len()),
            None => String::new(),
        };
        let sql = format!(
            "{SELECT} WHERE 1=1{conditions}{before} ORDER BY id DESC LIMIT {}",
            q.limit.unwrap_or(200).min(10_000)
        );
        self.store.with(|c| {
            let mut stmt = c.prepare(&sql)?;
            let rows = stmt.query_map(rusqlite::params_from_iter(args.iter()), row_to_entry)?;
            rows.collect()
        })
    }

    /// Writes every row `q` matches (all of them: its limit and paging do not apply), oldest
    /// first, as JSON Lines. Returns how many were written.
    pub fn export_jsonl(&self, q: &AuditQuery, out: &mut dyn Write) -> Result<usize> {
        // Page by id so the database is never held for the whole export, nor the log in memory.
        const PAGE: i64 = 1000;
        let (conditions, args) = conditions(q);
        let sql = format!(
            "{SELECT} WHERE id > ?{} {conditions} ORDER BY id LIMIT {PAGE}",
            args.len() + 1
        );
        let mut after = 0_i64;
        let mut written = 0;
        loop {
            let mut page_args = args.clone();
            page_args.push(after.into());
            let rows = self.store.with(|c| {
                let mut stmt = c.prepare_cached(&sql)?;
                let rows =
                    stmt.query_map(rusqlite::params_from_iter(page_args.iter()), row_to_entry)?;
                rows.collect::<rusqlite::Result<Vec<_>>>()
            })?;
            let Some(last) = rows.last() else {
                return Ok(written);
            };
            after = last.id;
            for row in &rows {
                let line = serde_json::to_string(row)
                    .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
                writeln!(out, "{line}")?;
            }
            written += rows.len();
        }
    }
}

/// The columns every audit query reads.
const SELECT: &str = "SELECT id, flow, at_ms, kind, step, server, subject, actor, decision, detail, duration_ms FROM audit";

/// The SQL conditions (each ` AND …`) for `q`'s server, kind, flow and words, with their
/// parameters, numbered from 1.
fn conditions(q: &AuditQuery) -> (String, Vec<rusqlite::types::Value>) {
    let mut sql = String::new();
    let mut args: Vec<rusqlite::types::Value> = Vec::new();
    // Each condition names its parameter by number; `{}` in a clause is that number.
    let mut push = |clause: &str, v: rusqlite::types::Value| {
        args.push(v);
        sql.push_str(&clause.replace("{}", &args.len().to_string()));
    };
    if let Some(s) = &q.server {
        push(" AND server = ?{}", s.clone().into());
    }
    if let Some(k) = q.kind {
        push(" AND kind = ?{}", k.as_str().to_owned().into());
    }
    if let Some(f) = &q.flow {
        push(" AND flow = ?{}", f.clone().into());
    }
    let words: Vec<&str> = q.text.as_deref().unwrap_or("").split_whitespace().collect();
    // The index matches substrings of three characters or more; shorter words are scanned
    // for among the rows the index (and the other filters) left.
    let (indexed, short): (Vec<&str>, Vec<&str>) =
        words.into_iter().partition(|w| w.chars().count() >= 3);
    if !indexed.is_empty() {
        push(
            " AND id IN (SELECT rowid FROM audit_text WHERE audit_text MATCH ?{})",
            fts_phrases(&indexed).into(),
        );
    }
    for word in short {
        let escaped = word
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_");
        push(
            " AND (server LIKE ?{} ESCAPE '\\' OR coalesce(subject,'') LIKE ?{} ESCAPE '\\' \
             OR coalesce(decision,'') LIKE ?{} ESCAPE '\\' OR detail LIKE ?{} ESCAPE '\\' \
             OR step LIKE ?{} ESCAPE '\\')",
            format!("%{escaped}%").into(),
        );
    }
    (sql, args)
}

/// Each word as an FTS5 phrase (quotes doubled), all of which must match.
fn fts_phrases(words: &[&str]) -> String {
    words
        .iter()
        .map(|w| format!("\"{}\"", w.replace('"', "\"\"")))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A step as it is stored, made before the write so the write owns everything it needs.
struct Row {
    flow: String,
    at_ms: i64,
    kind: &'static str,
    step: &'static str,
    server: String,
    subject: Option<String>,
    actor: String,
    decision: Option<String>,
    detail: String,
    duration_ms: i64,
}

impl Row {
    fn of(r: &Record<'_>) -> Result<Self> {
        let detail = serde_json::to_string(&r.detail)
            .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        Ok(Self {
            flow: r.flow.id.clone(),
            at_ms: now_ms(),
            kind: r.flow.kind.as_str(),
            step: r.step.as_str(),
            server: r.flow.server.clone(),
            subject: r.flow.subject.as_deref().map(|s| cut(s, MAX_SUBJECT_BYTES)),
            actor: r.actor.to_owned(),
            decision: r.decision.map(str::to_owned),
            detail: capped_detail(detail),
            duration_ms: r.flow.started.elapsed().as_millis() as i64,
        })
    }

    fn insert(&self, c: &rusqlite::Connection) -> rusqlite::Result<i64> {
        c.execute(
            "INSERT INTO audit (flow, at_ms, kind, step, server, subject, actor, decision, detail, duration_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                self.flow,
                self.at_ms,
                self.kind,
                self.step,
                self.server,
                self.subject,
                self.actor,
                self.decision,
                self.detail,
                self.duration_ms
            ],
        )?;
        Ok(c.last_insert_rowid())
    }
}

/// `detail` as stored: itself when it fits in [`MAX_DETAIL_BYTES`], else its beginning with the
/// length and SHA-256 of the whole.
fn capped_detail(detail: String) -> String {
    if detail.len() <= MAX_DETAIL_BYTES {
        return detail;
    }
    truncated(&detail, MAX_DETAIL_BYTES).to_string()
}

/// `detail` itself when its JSON takes at most `max` bytes (at least 512), else its beginning
/// with the length and SHA-256 of the whole: for notes a sender can make many of.
pub fn capped(detail: Value, max: usize) -> Value {
    let text = detail.to_string();
    if text.len() <= max {
        return detail;
    }
    truncated(&text, max.max(512))
}

/// The beginning of `detail` that fits in `max` bytes, with its length and SHA-256.
fn truncated(detail: &str, max: usize) -> Value {
    let sha256: String = Sha256::digest(detail.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    // Room for the keys, the length and the hash around the head.
    let head = escaped_prefix(detail, max - 256);
    json!({"truncated": true, "bytes": detail.len(), "sha256": sha256, "head": head})
}

/// The longest beginning of `text` whose JSON string escape takes at most `budget` bytes.
fn escaped_prefix(text: &str, budget: usize) -> &str {
    let mut used = 0;
    for (i, c) in text.char_indices() {
        used += match c {
            '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
            c if u32::from(c) < 0x20 => 6,
            c => c.len_utf8(),
        };
        if used > budget {
            return &text[..i];
        }
    }
    text
}

fn row_to_entry(r: &rusqlite::Row<'_>) -> rusqlite::Result<AuditEntry> {
    let text = |i: usize| -> rusqlite::Result<String> { r.get(i) };
    let parse = |s: String| -> Value { serde_json::from_str(&s).unwrap_or(Value::String(s)) };
    Ok(AuditEntry {
        id: r.get(0)?,
        flow: text(1)?,
        at_ms: r.get(2)?,
        kind: serde_json::from_value(Value::String(text(3)?)).unwrap_or(FlowKind::ToolCall),
        step: serde_json::from_value(Value::String(text(4)?)).unwrap_or(Step::Failed),
        server: text(5)?,
        subject: r.get(6)?,
        actor: text(7)?,
        decision: r.get(8)?,
        detail: parse(text(9)?),
        duration_ms: r.get(10)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn audit() -> Audit {
        Audit::new(Arc::new(Store::in_memory().unwrap()))
    }

    /// How many rows `export_jsonl` says it wrote for `q`, and the `n` in each one's detail.
    fn exported_ns(a: &Audit, q: &AuditQuery) -> (usize, Vec<i64>) {
        let mut out = Vec::new();
        let written = a.export_jsonl(q, &mut out).unwrap();
        let ns = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| {
                serde_json::from_str::<AuditEntry>(l).unwrap().detail["n"]
                    .as_i64()
                    .unwrap()
            })
            .collect();
        (written, ns)
    }

    /// The disk fills while a step is written (SQLite's page limit stands in for the disk): a
    /// clear error, nothing half-written (the row and its search index, or neither), and once
    /// there is room again the log goes on.
    #[test]
    fn a_full_disk_fails_one_write_cleanly_and_the_log_goes_on() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(dir.path()).unwrap());
        let a = Audit::new(store.clone());
        let flow = Flow::new(FlowKind::ToolCall, "fs", Some("read_file".into()));
        let step = |text: &str| Record {
            flow: &flow,
            step: Step::Requested,
            actor: "model",
            decision: None,
            detail: json!({"text": text}),
        };
        a.record(step("before")).unwrap();
        let pages: i64 = store
            .with(|c| c.query_row("PRAGMA page_count", [], |r| r.get(0)))
            .unwrap();
        store
            .with(|c| c.pragma_update(None, "max_page_count", pages))
            .unwrap();
        let big = "x".repeat(256 * 1024);
        let e = a.record(step(&big)).unwrap_err();
        assert_eq!(e.code, ErrorCode::Storage);
        assert!(e.message.contains("disk is full"), "{}", e.message);
        assert!(!e.message.contains("::"), "{}", e.message);
        let count = |q: &str| -> i64 { store.with(|c| c.query_row(q, [], |r| r.get(0))).unwrap() };
        assert_eq!(count("SELECT COUNT(*) FROM audit"), 1, "a half-written row");
        let ok: String = store
            .with(|c| c.query_row("PRAGMA integrity_check", [], |r| r.get(0)))
            .unwrap();
        assert_eq!(ok, "ok");
        store
            .with(|c| c.pragma_update(None, "max_page_count", 1_073_741_823))
            .unwrap();
        a.record(step(&big)).unwrap();
        let found = a
            .search(&AuditQuery {
                text: Some("before".into()),
                ..AuditQuery::default()
            })
            .unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(count("SELECT COUNT(*) FROM audit"), 2);
    }

    #[test]
    fn records_search_and_export() {
        let a = audit();
        let flow = Flow::new(FlowKind::Sampling, "everything", Some("gpt".into()));
        a.record(Record {
            flow: &flow,
            step: Step::Requested,
            actor: "server",
            decision: None,
            detail: json!({"messages": [{"text": "write a haiku"}]}),
        })
        .unwrap();
        a.record(Record {
            flow: &flow,
            step: Step::Decided,
            actor: "user",
            decision: Some("edited"),
            detail: json!({"text": "write a limerick"}),
        })
        .unwrap();
        let other = Flow::new(FlowKind::ToolCall, "fs", Some("read_file".into()));
        a.record(Record {
            flow: &other,
            step: Step::Requested,
            actor: "model",
            decision: None,
            detail: json!({"path": "/tmp/x_y"}),
        })
        .unwrap();

        let all = a.search(&AuditQuery::default()).unwrap();
        assert_eq!(all.len(), 3);
        assert_eq!(all[0].server, "fs", "newest first");

        let hits = a
            .search(&AuditQuery {
                text: Some("limerick edited".into()),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].decision.as_deref(), Some("edited"));

        let by_flow = a
            .search(&AuditQuery {
                flow: Some(flow.id.clone()),
                kind: Some(FlowKind::Sampling),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(by_flow.len(), 2);

        // LIKE wildcards in the search text are taken literally, not as patterns.
        let literal = |t: &str| {
            a.search(&AuditQuery {
                text: Some(t.into()),
                ..Default::default()
            })
            .unwrap()
            .len()
        };
        assert_eq!(literal("x_y"), 1);
        assert_eq!(literal("x%y"), 0);
        assert_eq!(literal("w_ite"), 0);

        let mut out = Vec::new();
        assert_eq!(a.export_jsonl(&AuditQuery::default(), &mut out).unwrap(), 3);
        let lines: Vec<AuditEntry> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines[0].step, Step::Requested);
        assert_eq!(lines[1].detail, json!({"text": "write a limerick"}));
    }

    #[test]
    fn search_goes_through_the_index_and_prune_removes_old_rows_from_it() {
        let a = audit();
        let flow = Flow::new(FlowKind::ToolCall, "files", Some("read_file".into()));
        for word in ["alpha", "beta", "Quotes \"inside\""] {
            a.record(Record {
                flow: &flow,
                step: Step::Requested,
                actor: "model",
                decision: None,
                detail: json!({"note": word}),
            })
            .unwrap();
        }
        let hits = |t: &str| {
            a.search(&AuditQuery {
                text: Some(t.into()),
                ..Default::default()
            })
            .unwrap()
            .len()
        };
        assert_eq!(hits("lph"), 1, "substrings match, as before");
        assert_eq!(hits("ALPHA"), 1, "case does not matter");
        assert_eq!(hits("\"inside"), 1, "quotes are text, not FTS syntax");
        assert_eq!(hits("NEAR(alpha"), 0, "FTS operators are text too");
        assert_eq!(hits("read_file beta"), 1);
        assert_eq!(hits("be"), 1, "short words are still found");
        let plan: String = a
            .store
            .with(|c| {
                let mut stmt = c.prepare(
                    "EXPLAIN QUERY PLAN SELECT id FROM audit WHERE id IN (SELECT rowid FROM audit_text WHERE audit_text MATCH '\"alpha\"')",
                )?;
                let rows = stmt.query_map([], |r| r.get::<_, String>(3))?;
                rows.collect::<rusqlite::Result<Vec<_>>>().map(|v| v.join("; "))
            })
            .unwrap();
        // Rows are fetched by id from what the full-text index matched, never by a scan.
        assert!(
            plan.contains("SEARCH audit USING INTEGER PRIMARY KEY")
                && plan.contains("audit_text VIRTUAL TABLE INDEX"),
            "{plan}"
        );
        a.store
            .with(|c| c.execute("UPDATE audit SET at_ms = 0 WHERE detail LIKE '%alpha%'", []))
            .unwrap();
        assert_eq!(a.prune(std::time::Duration::from_secs(86_400)).unwrap(), 1);
        assert_eq!(hits("alpha"), 0, "pruned rows leave the index");
        assert_eq!(hits("beta"), 1);
    }

    #[test]
    fn a_long_detail_is_kept_as_its_head_length_and_hash() {
        let a = audit();
        let flow = Flow::new(FlowKind::Sampling, "s", Some("m".repeat(100_000)));
        // Quotes double when escaped, control characters take six bytes: the worst cases.
        for text in [
            "x".repeat(1 << 20),
            "\"".repeat(200_000),
            "\u{1}".repeat(100_000),
        ] {
            let detail = json!({"text": text});
            let full = serde_json::to_string(&detail).unwrap();
            a.record(Record {
                flow: &flow,
                step: Step::Requested,
                actor: "server",
                decision: None,
                detail,
            })
            .unwrap();
            let stored: String = a
                .store
                .with(|c| {
                    c.query_row("SELECT detail FROM audit ORDER BY id DESC", [], |r| {
                        r.get(0)
                    })
                })
                .unwrap();
            assert!(stored.len() <= MAX_DETAIL_BYTES, "{} bytes", stored.len());
            let row = a.search(&AuditQuery::default()).unwrap().remove(0);
            assert_eq!(row.detail["truncated"], true);
            assert_eq!(row.detail["bytes"], full.len());
            let sha: String = Sha256::digest(full.as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect();
            assert_eq!(row.detail["sha256"], sha);
            let head = row.detail["head"].as_str().unwrap();
            assert!(full.starts_with(head) && head.len() > MAX_DETAIL_BYTES / 8);
            assert!(row.subject.unwrap().len() <= MAX_SUBJECT_BYTES + '…'.len_utf8());
        }
        let mut out = Vec::new();
        assert_eq!(a.export_jsonl(&AuditQuery::default(), &mut out).unwrap(), 3);
        for line in String::from_utf8(out).unwrap().lines() {
            let entry: AuditEntry = serde_json::from_str(line).unwrap();
            assert_eq!(entry.detail["truncated"], true);
        }
        // A detail that fits is kept as it is.
        a.record(Record {
            flow: &flow,
            step: Step::Returned,
            actor: "host",
            decision: None,
            detail: json!({"text": "short"}),
        })
        .unwrap();
        let row = a.search(&AuditQuery::default()).unwrap().remove(0);
        assert_eq!(row.detail, json!({"text": "short"}));
    }

    #[test]
    fn export_is_the_whole_log_in_order_across_pages() {
        let a = audit();
        let flow = Flow::new(FlowKind::ToolCall, "files", Some("read".into()));
        for i in 0..2_345 {
            a.record(Record {
                flow: &flow,
                step: Step::Requested,
                actor: "user",
                decision: None,
                detail: json!({"n": i}),
            })
            .unwrap();
        }
        let (written, ns) = exported_ns(&a, &AuditQuery::default());
        assert_eq!(written, 2_345);
        assert_eq!(ns, (0..2_345).collect::<Vec<_>>());
    }

    #[test]
    fn export_takes_only_what_the_search_shows_across_pages() {
        let a = audit();
        let files = Flow::new(FlowKind::ToolCall, "files", Some("read".into()));
        let web = Flow::new(FlowKind::ToolCall, "web", Some("fetch".into()));
        for i in 0..1_500 {
            let flow = if i % 3 == 0 { &web } else { &files };
            let word = if i % 2 == 0 { "even" } else { "odd" };
            a.record(Record {
                flow,
                step: Step::Requested,
                actor: "user",
                decision: None,
                detail: json!({"n": i, "w": word}),
            })
            .unwrap();
        }
        let query = AuditQuery {
            server: Some("web".into()),
            text: Some("even".into()),
            limit: Some(5),
            ..Default::default()
        };
        let (written, ns) = exported_ns(&a, &query);
        assert_eq!(written, 250);
        assert_eq!(ns, (0..1_500).filter(|i| i % 6 == 0).collect::<Vec<_>>());
    }
}
