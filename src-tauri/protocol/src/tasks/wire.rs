//! The wire forms of tasks in both eras, read into one [`Snapshot`]. rmcp 3.9 models only the
//! 2026-07-28 extension (`resultType: "task"`, `ttlMs`, `pollIntervalMs`, a `DetailedTask` with
//! `inputRequests`, `result` or `error`); a 2025-11-25 answer (`{task: {...}}` from `tools/call`,
//! a flat `Task` with `ttl` and `pollInterval` from `tasks/get`) reaches the host as whatever
//! variant of rmcp's untagged `ServerResult` happens to accept it, so it is read back from that
//! variant's JSON, accepting either spelling. (rmcp's `GetTaskResult` takes a 2025 `tasks/get` answer but
//! keeps no `pollInterval`: the follower keeps the one the task was created with.)

use rmcp::model::{DetailedTask, InputRequests, ServerResult, TaskPayload};
use serde::Deserialize;
use serde_json::{Value, json};

use super::{REQUESTED_TTL_MS, TaskState};

/// The extension id a 2026-07-28 peer declares tasks support under.
pub const EXTENSION: &str = rmcp::model::TASKS_EXTENSION_ID;

/// The `_meta` key that ties a message to a task (2025-11-25).
pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";

/// A task as one answer showed it, whichever era.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    pub task_id: String,
    pub state: TaskState,
    pub message: Option<String>,
    /// The server's suggested poll interval, in milliseconds.
    pub poll_ms: Option<u64>,
    /// 2026-07-28: what the server asks of the client while `input_required`.
    pub input_requests: Option<InputRequests>,
    /// 2026-07-28: the result of a completed task.
    pub result: Option<Value>,
    /// 2026-07-28: the JSON-RPC error of a failed task.
    pub error: Option<Value>,
}

/// A 2025-11-25 `Task` (or a 2026 one as rmcp re-serialises it).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct FlatTask {
    task_id: String,
    status: String,
    status_message: Option<String>,
    #[serde(alias = "pollIntervalMs")]
    poll_interval: Option<u64>,
}

impl FlatTask {
    fn snapshot(self) -> Option<Snapshot> {
        Some(Snapshot {
            state: TaskState::from_wire(&self.status)?,
            task_id: self.task_id,
            message: self.status_message,
            poll_ms: self.poll_interval,
            input_requests: None,
            result: None,
            error: None,
        })
    }
}

/// The params of a task-augmented 2025-11-25 `tools/call`.
pub fn task_tool_call(name: &str, arguments: Option<Value>) -> Value {
    let mut params = json!({ "name": name, "task": { "ttl": REQUESTED_TTL_MS } });
    if let Some(arguments) = arguments {
        params["arguments"] = arguments;
    }
    params
}

/// The task a 2025-11-25 `CreateTaskResult` (`{task: {...}}`) announces, if `result` is one.
pub fn created_2025(result: &ServerResult) -> Option<Snapshot> {
    let value = serde_json::to_value(result).ok()?;
    let task = value.get("task")?.clone();
    serde_json::from_value::<FlatTask>(task).ok()?.snapshot()
}

/// The task a 2025-11-25 `tasks/get` answer describes, if `result` is one.
pub fn polled_2025(result: &ServerResult) -> Option<Snapshot> {
    let value = serde_json::to_value(result).ok()?;
    serde_json::from_value::<FlatTask>(value).ok()?.snapshot()
}

/// A 2026-07-28 task, with its payload.
pub fn detailed(task: DetailedTask) -> Snapshot {
    let (input_requests, result, error) = match task.payload {
        TaskPayload::InputRequired { input_requests } => (Some(input_requests), None, None),
        TaskPayload::Completed { result } => (None, Some(Value::Object(result)), None),
        TaskPayload::Failed { error } => (None, None, Some(Value::Object(error))),
        _ => (None, None, None),
    };
    let status = serde_json::to_value(task.task.status).unwrap_or_default();
    Snapshot {
        state: status
            .as_str()
            .and_then(TaskState::from_wire)
            .unwrap_or(TaskState::Working),
        task_id: task.task.task_id,
        message: task.task.status_message,
        poll_ms: task.task.poll_interval_ms,
        input_requests,
        result,
        error,
    }
}

/// A 2026-07-28 `CreateTaskResult` (`resultType: "task"`).
pub fn created_2026(task: &rmcp::model::Task) -> Option<Snapshot> {
    let value = serde_json::to_value(task).ok()?;
    serde_json::from_value::<FlatTask>(value).ok()?.snapshot()
}

/// Whether a server's capabilities (as the summary holds them) let tools be called as tasks:
/// `tasks.requests.tools.call` (2025-11-25) or the extension (2026-07-28).
pub fn server_offers_tool_tasks(capabilities: &Value, modern: bool) -> bool {
    if modern {
        return capabilities
            .pointer(&format!("/extensions/{}", EXTENSION.replace('/', "~1")))
            .is_some_and(|v| !v.is_null());
    }
    capabilities
        .pointer("/tasks/requests/tools/call")
        .is_some_and(|v| !v.is_null())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(result: Value) -> ServerResult {
        serde_json::from_value(result).unwrap()
    }

    #[test]
    fn a_2025_create_task_result_survives_rmcps_untagged_decoding() {
        let answer = json!({"task": {
            "taskId": "t-1", "status": "working", "statusMessage": "started",
            "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:30:00Z",
            "ttl": 60000, "pollInterval": 1000
        }, "_meta": {"io.modelcontextprotocol/model-immediate-response": "soon"}});
        let result = decoded(answer);
        assert!(
            matches!(result, ServerResult::CustomResult(_)),
            "{result:?}"
        );
        let task = created_2025(&result).unwrap();
        assert_eq!(task.task_id, "t-1");
        assert_eq!(task.state, TaskState::Working);
        assert_eq!(task.poll_ms, Some(1000));
        assert_eq!(task.message.as_deref(), Some("started"));
    }

    #[test]
    fn a_2025_tasks_get_answer_is_read_whichever_variant_rmcp_picks() {
        let working = json!({"taskId": "t-1", "status": "working", "statusMessage": "Gathering",
            "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:31:00Z",
            "ttl": 60000, "pollInterval": 1000});
        // rmcp reads it as its own (2026) GetTaskResult, which has no `pollInterval`: the
        // follower keeps the interval the task was created with.
        let task = polled_2025(&decoded(working)).unwrap();
        assert_eq!(
            (task.state, task.message.as_deref(), task.poll_ms),
            (TaskState::Working, Some("Gathering"), None)
        );
        let waiting = json!({"taskId": "t-1", "status": "input_required",
            "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:31:00Z",
            "ttl": null, "pollInterval": 500});
        // Without 2026's inputRequests rmcp falls through to a custom result.
        let task = polled_2025(&decoded(waiting)).unwrap();
        assert_eq!(
            (task.state, task.poll_ms),
            (TaskState::InputRequired, Some(500))
        );
        assert_eq!(polled_2025(&decoded(json!({"content": []}))), None);
    }

    #[test]
    fn capabilities_decide_task_calls() {
        let legacy = json!({"tasks": {"requests": {"tools": {"call": {}}}}});
        assert!(server_offers_tool_tasks(&legacy, false));
        assert!(!server_offers_tool_tasks(&legacy, true));
        let modern = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
        assert!(server_offers_tool_tasks(&modern, true));
        assert!(!server_offers_tool_tasks(&json!({"tools": {}}), false));
    }
}
