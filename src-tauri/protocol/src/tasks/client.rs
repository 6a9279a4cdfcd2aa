//! The client's own tasks (2025-11-25): a server may send `sampling/createMessage` or
//! `elicitation/create` with `params.task`, and then gets a `CreateTaskResult` at once while the
//! review (the approval door, as for any such request) runs in the background; it polls
//! `tasks/get`, waits on `tasks/result`, lists with `tasks/list` and cancels with `tasks/cancel`.
//! Bounded: at most [`MAX_CLIENT_TASKS`] per server, each kept for its time-to-live (clamped to
//! [`MAX_TTL`]) and dropped once its result was fetched.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use futures::future::BoxFuture;
use rmcp::model::{ErrorCode as McpErrorCode, ErrorData as McpError};
use serde_json::{Value, json};
use tokio::sync::watch;
use tokio::time::Instant;

use super::wire::RELATED_TASK;

/// The most tasks a server may have the client run at once (finished ones count until fetched or
/// expired).
pub const MAX_CLIENT_TASKS: usize = 16;

/// The longest a client task is kept, whatever the server asks.
pub const MAX_TTL: Duration = Duration::from_secs(60 * 60);

/// How long a client task is kept when the server asks for no particular time.
pub const DEFAULT_TTL: Duration = Duration::from_secs(10 * 60);

/// The JSON-RPC error code for a server over its cap of client tasks (the host's "too many
/// requests" code, implementation-defined range).
pub const TOO_MANY_TASKS: i32 = -32000;

/// The poll interval the client suggests, in milliseconds.
pub const POLL_INTERVAL_MS: u64 = 500;

/// What a task's work ends with: the result, or the error to answer `tasks/result` with.
type Outcome = Option<Result<Value, McpError>>;

/// The tasks one server has the client run.
#[derive(Default)]
pub struct ClientTasks {
    // A plain lock: held for map operations only, never across an await.
    tasks: Mutex<Entries>,
}

#[derive(Default)]
struct Entries {
    next: u64,
    by_id: HashMap<String, Entry>,
}

struct Entry {
    status: &'static str,
    created_at: String,
    started: Instant,
    ttl: Duration,
    outcome: watch::Receiver<Outcome>,
    work: tokio::task::AbortHandle,
}

impl Entry {
    fn expired(&self, now: Instant) -> bool {
        now.duration_since(self.started) > self.ttl
    }

    /// The task as the 2025-11-25 `Task` type has it.
    fn wire(&self, id: &str) -> Value {
        let status = match &*self.outcome.borrow() {
            None => self.status,
            Some(Ok(_)) => "completed",
            Some(Err(_)) => "failed",
        };
        let message = match status {
            "working" => "waiting for the person's review",
            "cancelled" => "cancelled by the server",
            _ => "reviewed",
        };
        json!({
            "taskId": id,
            "status": status,
            "statusMessage": message,
            "createdAt": self.created_at,
            "lastUpdatedAt": self.created_at,
            "ttl": u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX),
            "pollInterval": POLL_INTERVAL_MS,
        })
    }
}

impl Drop for Entry {
    fn drop(&mut self) {
        // A task dropped (fetched, expired, its connection gone) leaves no review running.
        self.work.abort();
    }
}

impl ClientTasks {
    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.tasks.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts `work` as a task kept for `ttl_ms` (as the server asked; clamped), and answers
    /// with its `CreateTaskResult`; refused when the server already has
    /// [`MAX_CLIENT_TASKS`].
    pub fn create(
        &self,
        ttl_ms: Option<u64>,
        work: BoxFuture<'static, Result<Value, McpError>>,
    ) -> Result<Value, McpError> {
        let mut entries = self.lock();
        let now = Instant::now();
        entries.by_id.retain(|_, e| !e.expired(now));
        if entries.by_id.len() >= MAX_CLIENT_TASKS {
            return Err(McpError::new(
                McpErrorCode(TOO_MANY_TASKS),
                format!("too many tasks: this client runs at most {MAX_CLIENT_TASKS} per server"),
                None,
            ));
        }
        entries.next += 1;
        let id = format!("switchboard-{}-{}", entries.next, rand::random::<u32>());
        let (done, outcome) = watch::channel(None);
        let job = tokio::spawn(async move {
            let result = work.await;
            let _ = done.send(Some(result));
        });
        let ttl = ttl_ms
            .map_or(DEFAULT_TTL, Duration::from_millis)
            .min(MAX_TTL);
        let entry = Entry {
            status: "working",
            created_at: iso_now(),
            started: now,
            ttl,
            outcome,
            work: job.abort_handle(),
        };
        let task = entry.wire(&id);
        entries.by_id.insert(id, entry);
        Ok(json!({ "task": task }))
    }

    /// `tasks/get`.
    pub fn get(&self, id: &str) -> Result<Value, McpError> {
        let entries = self.lock();
        let entry = entries
            .by_id
            .get(id)
            .filter(|e| !e.expired(Instant::now()))
            .ok_or_else(|| unknown(id))?;
        Ok(entry.wire(id))
    }

    /// `tasks/list` (one page: there are never more than [`MAX_CLIENT_TASKS`]).
    pub fn list(&self) -> Value {
        let mut entries = self.lock();
        let now = Instant::now();
        entries.by_id.retain(|_, e| !e.expired(now));
        let tasks: Vec<Value> = entries.by_id.iter().map(|(id, e)| e.wire(id)).collect();
        json!({ "tasks": tasks })
    }

    /// `tasks/cancel`: stops the review of a task that has not ended.
    pub fn cancel(&self, id: &str) -> Result<Value, McpError> {
        let mut entries = self.lock();
        let entry = entries.by_id.get_mut(id).ok_or_else(|| unknown(id))?;
        if entry.status != "working" || entry.outcome.borrow().is_some() {
            return Err(McpError::invalid_params(
                format!("task {id} has already ended"),
                None,
            ));
        }
        entry.work.abort();
        entry.status = "cancelled";
        Ok(entry.wire(id))
    }

    /// `tasks/result`: waits until the task ends, answers with its result (or error), and
    /// forgets it.
    pub async fn result(&self, id: &str) -> Result<Value, McpError> {
        let mut outcome = {
            let entries = self.lock();
            let entry = entries.by_id.get(id).ok_or_else(|| unknown(id))?;
            if entry.status == "cancelled" {
                return Err(McpError::new(
                    McpErrorCode(-32800),
                    "the task was cancelled",
                    None,
                ));
            }
            entry.outcome.clone()
        };
        let ended = outcome
            .wait_for(Option::is_some)
            .await
            .map(|o| o.clone())
            .ok()
            .flatten()
            .unwrap_or_else(|| Err(McpError::internal_error("the task's work stopped", None)));
        self.lock().by_id.remove(id);
        ended.map(|mut result| {
            if let Some(object) = result.as_object_mut() {
                let meta = object.entry("_meta").or_insert_with(|| json!({}));
                meta[RELATED_TASK] = json!({ "taskId": id });
            }
            result
        })
    }

    /// How many tasks are kept now.
    pub fn len(&self) -> usize {
        self.lock().by_id.len()
    }

    /// Whether no task is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn unknown(id: &str) -> McpError {
    McpError::invalid_params(format!("no task {id}"), None)
}

/// Now as an ISO 8601 timestamp (UTC, seconds).
fn iso_now() -> String {
    let secs = crate::store::now_ms() / 1000;
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(value: Value) -> BoxFuture<'static, Result<Value, McpError>> {
        Box::pin(async move { Ok(value) })
    }

    fn never() -> BoxFuture<'static, Result<Value, McpError>> {
        Box::pin(std::future::pending())
    }

    fn id_of(created: &Value) -> String {
        created["task"]["taskId"].as_str().unwrap().to_owned()
    }

    #[tokio::test]
    async fn a_task_answers_at_once_then_its_result_once() {
        let tasks = ClientTasks::default();
        let created = tasks
            .create(Some(5000), answer(json!({"action": "accept"})))
            .unwrap();
        assert_eq!(created["task"]["status"], "working");
        assert_eq!(created["task"]["ttl"], 5000);
        let id = id_of(&created);
        let result = tasks.result(&id).await.unwrap();
        assert_eq!(result["action"], "accept");
        assert_eq!(result["_meta"][RELATED_TASK]["taskId"], id.as_str());
        // Fetched results are dropped.
        assert!(tasks.get(&id).is_err());
        assert!(tasks.is_empty());
    }

    #[tokio::test]
    async fn a_server_gets_at_most_the_cap_and_cancel_frees_nothing_twice() {
        let tasks = ClientTasks::default();
        let ids: Vec<String> = (0..MAX_CLIENT_TASKS)
            .map(|_| id_of(&tasks.create(None, never()).unwrap()))
            .collect();
        let refused = tasks.create(None, never()).unwrap_err();
        assert_eq!(refused.code.0, TOO_MANY_TASKS);
        let cancelled = tasks.cancel(&ids[0]).unwrap();
        assert_eq!(cancelled["status"], "cancelled");
        assert_eq!(tasks.cancel(&ids[0]).unwrap_err().code.0, -32602);
        assert_eq!(
            tasks.list()["tasks"].as_array().unwrap().len(),
            MAX_CLIENT_TASKS
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_task_past_its_ttl_is_dropped() {
        let tasks = ClientTasks::default();
        let id = id_of(&tasks.create(Some(1000), never()).unwrap());
        assert!(tasks.get(&id).is_ok());
        tokio::time::advance(Duration::from_millis(1500)).await;
        assert_eq!(tasks.list()["tasks"], json!([]));
        assert!(tasks.get(&id).is_err());
        // The server asking for forever gets the cap.
        let created = tasks.create(Some(u64::MAX), never()).unwrap();
        assert_eq!(
            created["task"]["ttl"],
            u64::try_from(MAX_TTL.as_millis()).unwrap()
        );
    }

    #[test]
    fn timestamps_are_iso_8601() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(20_000), (2024, 10, 4));
        assert!(iso_now().ends_with('Z'));
    }
}
