//! Tool calls that run as tasks. On 2025-11-25 a tool whose `execution.taskSupport` allows it, on
//! a server that offers `tasks.requests.tools.call`, is called with `params.task`; on 2026-07-28
//! the server may answer any `tools/call` with a task of its own accord. Either way the host then
//! polls `tasks/get` (each poll under the request timeout, the task as a whole under none), waits
//! at least as long as the server's `pollInterval` asks and never less than [`MIN_POLL`], reports
//! every change of status as a [`ServerEvent::Task`], answers what the task asks for through the
//! handler (2025: by waiting on `tasks/result`, during which the server sends its requests; 2026:
//! `inputRequests` answered with `tasks/update`), and fetches the result. A call dropped before
//! its task ends (a cancelled call, a window that went away) sends `tasks/cancel`.
//!
//! [`MIN_POLL`]: crate::tasks::MIN_POLL

use std::collections::HashSet;
use std::future::Future;
use std::pin::Pin;

use rmcp::model::{
    CallToolResult, CancelTaskParams, CancelTaskRequest, ClientRequest, CustomRequest,
    GetTaskParams, GetTaskRequest, InputRequests, InputResponses, ServerResult, UpdateTaskParams,
    UpdateTaskRequest,
};
use serde_json::{Value, json};

use super::Connection;
use super::request::Limits;
use crate::error::{Error, ErrorCode, Result};
use crate::events::ServerEvent;
use crate::tasks::wire::{self, Snapshot};
use crate::tasks::{PollSchedule, TaskState, TaskView, bounded_result};

/// What a task whose connection failed under it says.
pub const LOST: &str =
    "the connection to the server ended before the task finished; its result is lost";

/// The most polls in a row that may time out before the task counts as lost.
const MAX_FAILED_POLLS: u32 = 3;

/// Which era's task methods a task is followed with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Era {
    /// 2025-11-25: `tasks/get`, `tasks/result`, `tasks/cancel` as custom requests.
    Legacy,
    /// 2026-07-28: rmcp's `tasks/get`, `tasks/update`, `tasks/cancel`.
    Modern,
}

type Pending = Pin<Box<dyn Future<Output = Result<ServerResult>> + Send>>;

/// What one step of following a task brought.
enum Step {
    Polled(Snapshot),
    Finished(Result<CallToolResult>),
}

impl Connection {
    /// Whether `tool` is to be called as a 2025-11-25 task: the server offers task-augmented
    /// tool calls and the tool allows them. Lists the tools once when nothing is known of it.
    pub(super) async fn calls_as_task(&self, tool: &str) -> bool {
        let inner = &self.inner;
        if inner.modern || !wire::server_offers_tool_tasks(&inner.summary.capabilities, false) {
            return false;
        }
        if inner.task_fields.tool_support(tool).is_none() && !inner.task_fields.tools_seen() {
            let _ = self.list_tools().await;
        }
        matches!(
            inner.task_fields.tool_support(tool).as_deref(),
            Some("optional" | "required")
        )
    }

    /// Whether this 2025-11-25 connection's transport hides the server's task support (rmcp
    /// decodes Streamable HTTP before Switchboard sees it, dropping `capabilities.tasks` and
    /// `execution.taskSupport`).
    pub(super) fn task_support_unseen(&self) -> bool {
        let inner = &self.inner;
        !inner.modern
            && !inner.task_fields.watched()
            && inner.summary.protocol_version.as_str() >= "2025-11-25"
    }

    /// Calls `name` with `params.task` (2025-11-25) and follows the task it creates.
    pub(super) async fn call_as_task(
        &self,
        call: Option<&str>,
        name: &str,
        arguments: Option<Value>,
    ) -> Result<CallToolResult> {
        let params = wire::task_tool_call(name, arguments);
        let request = ClientRequest::CustomRequest(CustomRequest::new("tools/call", Some(params)));
        let created = self.request(request, call).await?;
        match wire::created_2025(&created) {
            Some(task) => self.follow(Era::Legacy, task, name, call).await,
            // A server may run it at once after all.
            None => call_result(created).ok_or_else(|| self.unexpected("tools/call")),
        }
    }

    /// Follows a task from its creation to its result.
    pub(super) async fn follow(
        &self,
        era: Era,
        created: Snapshot,
        tool: &str,
        call: Option<&str>,
    ) -> Result<CallToolResult> {
        let view = TaskView::new(self.server(), &created.task_id, tool, call);
        let mut unfinished = Unfinished {
            connection: self.clone(),
            view: Some(view),
        };
        let outcome = self.follow_steps(era, created, &mut unfinished).await;
        unfinished.finish(&outcome);
        outcome
    }

    async fn follow_steps(
        &self,
        era: Era,
        mut task: Snapshot,
        unfinished: &mut Unfinished,
    ) -> Result<CallToolResult> {
        let id = task.task_id.clone();
        let (mut schedule, mut poll_ms) = (PollSchedule::default(), None);
        let mut pending: Option<Pending> = None;
        let mut answered = HashSet::new();
        loop {
            poll_ms = task.poll_ms.or(poll_ms);
            unfinished.show(task.state, task.message.clone());
            if task.state.is_terminal() {
                return match pending {
                    Some(result) => self.finished(result.await),
                    None => self.outcome(era, task).await,
                };
            }
            if task.state == TaskState::InputRequired {
                match era {
                    Era::Legacy if pending.is_none() => pending = Some(self.result_2025(&id)),
                    Era::Legacy => {}
                    Era::Modern => {
                        let requests = task.input_requests.take().unwrap_or_default();
                        if let Err(e) = self.answer_task(&id, requests, &mut answered).await {
                            // A refused input request ends the call, as in a multi round-trip
                            // call; the server's task would otherwise wait for it.
                            let _ = self.cancel_task(&id).await;
                            return Err(e);
                        }
                    }
                }
            }
            let wait = schedule.next(poll_ms);
            let step = match pending.as_mut() {
                Some(result) => tokio::select! {
                    r = result => Step::Finished(self.finished(r)),
                    () = tokio::time::sleep(wait) => Step::Polled(self.poll(era, &id).await?),
                },
                None => {
                    tokio::time::sleep(wait).await;
                    Step::Polled(self.poll(era, &id).await?)
                }
            };
            match step {
                Step::Polled(next) => task = next,
                // `tasks/result` timed out while the task still ran: back to polling.
                Step::Finished(Err(e)) if e.code == ErrorCode::Timeout => pending = None,
                Step::Finished(done) => return done,
            }
        }
    }

    /// `tasks/get`, retried when a poll times out.
    async fn poll(&self, era: Era, id: &str) -> Result<Snapshot> {
        let mut failed = 0;
        loop {
            match self.poll_once(era, id).await {
                Err(e) if e.code == ErrorCode::Timeout && failed + 1 < MAX_FAILED_POLLS => {
                    failed += 1;
                }
                other => return other,
            }
        }
    }

    async fn poll_once(&self, era: Era, id: &str) -> Result<Snapshot> {
        let answer = match era {
            Era::Legacy => self.request(custom("tasks/get", id), None).await?,
            Era::Modern => {
                let get = GetTaskRequest::new(GetTaskParams::new(id));
                self.request(ClientRequest::GetTaskRequest(get), None)
                    .await?
            }
        };
        let task = match (era, answer) {
            (Era::Modern, ServerResult::GetTaskResult(r)) => Some(wire::detailed(r.task)),
            (Era::Legacy, answer) => wire::polled_2025(&answer),
            _ => None,
        };
        task.filter(|t| t.task_id == id)
            .ok_or_else(|| self.unexpected("tasks/get"))
    }

    /// `tasks/result` (2025-11-25): blocks until the task ends, so it runs under the maximum
    /// total time rather than the idle timeout.
    fn result_2025(&self, id: &str) -> Pending {
        let (connection, request) = (self.clone(), custom("tasks/result", id));
        Box::pin(async move {
            let limits = Limits {
                idle: None,
                total: Some(connection.inner.max_total),
            };
            connection.request_with(request, None, limits).await
        })
    }

    fn finished(&self, answer: Result<ServerResult>) -> Result<CallToolResult> {
        call_result(answer?).ok_or_else(|| self.unexpected("tasks/result"))
    }

    /// The result of a task that ended.
    async fn outcome(&self, era: Era, task: Snapshot) -> Result<CallToolResult> {
        match (era, task.state) {
            (Era::Legacy, TaskState::Completed | TaskState::Failed) => {
                let result = self.result_2025(&task.task_id).await;
                self.finished(result)
            }
            (Era::Modern, TaskState::Completed) => task
                .result
                .and_then(|r| serde_json::from_value(r).ok())
                .ok_or_else(|| self.unexpected("tasks/get")),
            (Era::Modern, TaskState::Failed) => Err(self.task_failed(task.error)),
            _ => Err(Error::new(
                ErrorCode::Cancelled,
                format!(
                    "server {:?} cancelled the task{}",
                    self.server(),
                    task.message.map(|m| format!(": {m}")).unwrap_or_default()
                ),
            )),
        }
    }

    fn task_failed(&self, error: Option<Value>) -> Error {
        let error = error.unwrap_or_default();
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("no reason given");
        let code = error.get("code").and_then(Value::as_i64).unwrap_or(0);
        Error::new(
            ErrorCode::ServerError,
            format!("server error {code}: {message}"),
        )
    }

    /// Answers the input requests of a 2026-07-28 task not answered yet, through the handler
    /// (so through the approval door), with one `tasks/update`.
    async fn answer_task(
        &self,
        id: &str,
        requests: InputRequests,
        answered: &mut HashSet<String>,
    ) -> Result<()> {
        let fresh: Vec<_> = requests
            .into_iter()
            .filter(|(key, _)| !answered.contains(key))
            .collect();
        if fresh.is_empty() {
            return Ok(());
        }
        let answers = futures::future::try_join_all(
            fresh
                .into_iter()
                .map(|(key, request)| self.answer_input(key, request)),
        )
        .await?;
        answered.extend(answers.iter().map(|(key, _)| key.clone()));
        let responses: InputResponses = answers.into_iter().collect();
        let update = UpdateTaskRequest::new(UpdateTaskParams::new(id, responses));
        self.request(ClientRequest::UpdateTaskRequest(update), None)
            .await
            .map(|_| ())
    }

    /// Asks the server to cancel task `id` (`tasks/cancel`); whoever follows the task sees it
    /// end.
    pub async fn cancel_task(&self, id: &str) -> Result<()> {
        let request = if self.inner.modern {
            ClientRequest::CancelTaskRequest(CancelTaskRequest::new(CancelTaskParams::new(id)))
        } else {
            custom("tasks/cancel", id)
        };
        self.request(request, None).await.map(|_| ())
    }

    fn publish_task(&self, view: &TaskView) {
        self.inner.events.publish(ServerEvent::Task {
            server: self.server().to_owned(),
            task: view.clone(),
        });
    }
}

/// A task the host follows; dropped before it ends (the call was cancelled or abandoned), it asks
/// the server to cancel the task and reports it cancelled.
struct Unfinished {
    connection: Connection,
    view: Option<TaskView>,
}

impl Unfinished {
    /// Reports a change of status; the end is reported by [`Unfinished::finish`], with the
    /// result.
    fn show(&mut self, status: TaskState, message: Option<String>) {
        if let Some(view) = self.view.as_mut()
            && view.update(status, message)
            && !status.is_terminal()
        {
            self.connection.publish_task(view);
        }
    }

    /// Reports how the task ended; nothing is left to cancel.
    fn finish(&mut self, outcome: &Result<CallToolResult>) {
        let Some(mut view) = self.view.take() else {
            return;
        };
        match outcome {
            Ok(result) => {
                view.result = serde_json::to_value(result).ok().map(bounded_result);
                if !view.status.is_terminal() {
                    view.update(TaskState::Completed, view.status_message.clone());
                }
            }
            Err(e) => {
                let (status, message) = match e.code {
                    ErrorCode::Cancelled => (TaskState::Cancelled, view.status_message.clone()),
                    ErrorCode::ServerError => (TaskState::Failed, view.status_message.clone()),
                    _ => (TaskState::Lost, Some(LOST.to_owned())),
                };
                view.update(status, message);
                view.error = Some(e.clone());
            }
        }
        self.connection.publish_task(&view);
    }
}

impl Drop for Unfinished {
    fn drop(&mut self) {
        let (Some(mut view), Ok(runtime)) =
            (self.view.take(), tokio::runtime::Handle::try_current())
        else {
            return;
        };
        let connection = self.connection.clone();
        runtime.spawn(async move {
            let (status, message) = match connection.cancel_task(&view.task_id).await {
                Ok(()) => (
                    TaskState::Cancelled,
                    "the call was cancelled; the server was told".to_owned(),
                ),
                // Dropped because the connection went away (a stop, a restart, the app exiting).
                Err(_) if connection.is_closed() => (TaskState::Lost, LOST.to_owned()),
                Err(e) => (
                    TaskState::Cancelled,
                    format!("the call was cancelled; telling the server failed: {e}"),
                ),
            };
            view.update(status, Some(message));
            connection.publish_task(&view);
        });
    }
}

fn custom(method: &str, id: &str) -> ClientRequest {
    ClientRequest::CustomRequest(CustomRequest::new(method, Some(json!({ "taskId": id }))))
}

/// A tool result in whichever variant rmcp decoded it as.
fn call_result(answer: ServerResult) -> Option<CallToolResult> {
    match answer {
        ServerResult::CallToolResult(r) => Some(r),
        ServerResult::CustomResult(r) => serde_json::from_value(r.0).ok(),
        _ => None,
    }
}
