//! The tasks servers run for the host, as the Tasks panel, the Tools screen and the CLI see them
//! (carried by [`ServerEvent::Task`](super::ServerEvent::Task)); what the host does with them is
//! in `crate::tasks`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::error::Error;

/// Where a task is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum TaskState {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
    /// The connection ended (or the host stopped) before the task finished: its result is gone
    /// for Switchboard.
    Lost,
}

impl TaskState {
    /// Whether the task can change no more.
    pub fn is_terminal(self) -> bool {
        !matches!(self, TaskState::Working | TaskState::InputRequired)
    }

    /// The state a protocol status names (either era's spelling), if any.
    pub fn from_wire(status: &str) -> Option<Self> {
        Some(match status {
            "working" => TaskState::Working,
            "input_required" => TaskState::InputRequired,
            "completed" => TaskState::Completed,
            "failed" => TaskState::Failed,
            "cancelled" => TaskState::Cancelled,
            _ => return None,
        })
    }

    /// The name stored in the database and sent to the window.
    pub fn as_str(self) -> &'static str {
        match self {
            TaskState::Working => "working",
            TaskState::InputRequired => "input_required",
            TaskState::Completed => "completed",
            TaskState::Failed => "failed",
            TaskState::Cancelled => "cancelled",
            TaskState::Lost => "lost",
        }
    }
}

/// One task a server runs for the host, as the Tasks panel, the Tools screen and the CLI show it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct TaskView {
    pub server: String,
    /// The server's id for the task.
    pub task_id: String,
    /// The tool whose call became this task.
    pub tool: String,
    /// The call id the window gave the call, when the window started it.
    pub call_id: Option<String>,
    pub status: TaskState,
    pub status_message: Option<String>,
    /// When the host learned of the task, in milliseconds since the Unix epoch.
    #[ts(type = "number")]
    pub created_at: i64,
    /// When its status last changed, in milliseconds since the Unix epoch.
    #[ts(type = "number")]
    pub updated_at: i64,
    /// The tool's result once completed (cut to [`MAX_RESULT_BYTES`]).
    #[ts(type = "unknown")]
    pub result: Option<Value>,
    /// Why it failed, was cancelled or was lost.
    pub error: Option<Error>,
}

impl TaskView {
    /// A task just created by `server` for a call of `tool`.
    pub fn new(server: &str, task_id: &str, tool: &str, call_id: Option<&str>) -> Self {
        let now = crate::store::now_ms();
        Self {
            server: server.to_owned(),
            task_id: task_id.to_owned(),
            tool: tool.to_owned(),
            call_id: call_id.map(str::to_owned),
            status: TaskState::Working,
            status_message: None,
            created_at: now,
            updated_at: now,
            result: None,
            error: None,
        }
    }

    /// Moves to `status` with `message`; whether anything changed.
    pub fn update(&mut self, status: TaskState, message: Option<String>) -> bool {
        let message = message.map(|m| crate::canonical::cut(&m, 1024));
        if self.status == status && self.status_message == message {
            return false;
        }
        self.status = status;
        self.status_message = message;
        self.updated_at = crate::store::now_ms();
        true
    }
}
