//! MCP tasks against server-everything (2025-11-25, SEP-1686): tools that must run as tasks, their
//! live status, input they ask for through the approval door, cancellation, the client's own
//! tasks for task-augmented sampling and elicitation, and what the app keeps of tasks.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationAction, ErrorData as McpError,
};
use serde_json::{Value, json};
use switchboard_base::events::{CoreEvent, Listener, ServerEvent};
use switchboard_base::paths::Paths;
use switchboard_core::ErrorCode;
use switchboard_core::app::requests::{CallId, CallTool, NoArgs, ServerName};
use switchboard_core::app::{App, AppBuilder};
use switchboard_policy::approvals::{Approver, Origin};
use switchboard_protocol::tasks::{TaskState, TaskView};

use crate::support::{Harness, first_text, npm_bin, stdio};

fn everything() -> switchboard_base::config::ServerConfig {
    stdio(&npm_bin("mcp-server-everything"), &["stdio"])
}

/// Accepts every elicitation with `answer` as its content and answers sampling with a fixed
/// message, remembering what it was asked.
#[derive(Default)]
struct Answering {
    answer: Value,
    asked: Mutex<Vec<String>>,
}

impl Approver for Answering {
    fn sampling(
        &self,
        _origin: Origin,
        _params: CreateMessageRequestParams,
    ) -> BoxFuture<'static, Result<CreateMessageResult, McpError>> {
        self.asked.lock().unwrap().push("sampling".into());
        Box::pin(async {
            Ok(
                serde_json::from_value(json!({"role": "assistant", "model": "test-model",
                "content": {"type": "text", "text": "sampled by the test"}}))
                .unwrap(),
            )
        })
    }

    fn elicitation(
        &self,
        _origin: Origin,
        params: ElicitRequestParams,
    ) -> BoxFuture<'static, Result<ElicitResult, McpError>> {
        let message = serde_json::to_value(&params).unwrap()["message"].to_string();
        self.asked.lock().unwrap().push(message);
        let mut result = ElicitResult::new(ElicitationAction::Accept);
        result.content = Some(self.answer.clone());
        Box::pin(async move { Ok(result) })
    }
}

/// Every task event on `events` so far.
fn task_events(events: &mut Listener) -> Vec<TaskView> {
    std::iter::from_fn(|| events.try_recv())
        .filter_map(|e| match e {
            CoreEvent::Server(ServerEvent::Task { task, .. }) => Some(task),
            _ => None,
        })
        .collect()
}

/// Waits for a task event that `wanted` accepts.
async fn task_event(events: &mut Listener, wanted: impl Fn(&TaskView) -> bool) -> TaskView {
    let found = tokio::time::timeout(Duration::from_secs(30), async {
        while let Some(event) = events.recv().await {
            if let CoreEvent::Server(ServerEvent::Task { task, .. }) = event
                && wanted(&task)
            {
                return Some(task);
            }
        }
        None
    })
    .await;
    found.ok().flatten().expect("the task event came")
}

#[tokio::test]
async fn a_required_task_tool_runs_as_a_task_with_live_status() {
    let h = Harness::new();
    let mut events = h.events.control();
    let live = h.connect("everything", everything()).await;
    let c = &live.connection;
    assert!(
        c.summary().capabilities["tasks"]["requests"]["tools"]["call"].is_object(),
        "the server's tasks capability reached the summary: {}",
        c.summary().capabilities
    );
    let r = c
        .call_tool_for(
            Some("call-1"),
            "simulate-research-query",
            Some(json!({"topic": "tides"})),
        )
        .await
        .unwrap();
    assert!(first_text(&r).contains("Research Report: tides"), "{r:?}");
    let seen = task_events(&mut events);
    let messages: Vec<_> = seen
        .iter()
        .filter_map(|t| t.status_message.as_deref())
        .collect();
    assert!(messages.contains(&"Gathering sources..."), "{messages:?}");
    assert!(messages.contains(&"Generating report..."), "{messages:?}");
    let last = seen.last().unwrap();
    assert_eq!(last.status, TaskState::Completed);
    assert_eq!(last.call_id.as_deref(), Some("call-1"));
    assert_eq!(last.tool, "simulate-research-query");
    assert!(last.result.as_ref().unwrap().to_string().contains("tides"));
    // Several polls, never faster than the server's pollInterval (1 s) asks.
    let working = seen
        .iter()
        .filter(|t| t.status == TaskState::Working)
        .count();
    assert!((2..=8).contains(&working), "{working} working updates");
    live.shutdown().await;
}

#[tokio::test]
async fn an_ambiguous_query_asks_through_the_approver_and_the_answer_shapes_the_report() {
    let mut h = Harness::new();
    let approver = Arc::new(Answering {
        answer: json!({"interpretation": "historical"}),
        ..Default::default()
    });
    h.approver = approver.clone();
    let mut events = h.events.control();
    let live = h.connect("everything", everything()).await;
    let r = live
        .connection
        .call_tool(
            "simulate-research-query",
            Some(json!({"topic": "tides", "ambiguous": true})),
        )
        .await
        .unwrap();
    let report = first_text(&r);
    assert!(report.contains("Clarification**: historical"), "{report}");
    let asked = approver.asked.lock().unwrap().clone();
    assert!(
        asked.iter().any(|m| m.contains("multiple interpretations")),
        "{asked:?}"
    );
    let seen = task_events(&mut events);
    assert!(
        seen.iter().any(|t| t.status == TaskState::InputRequired),
        "{seen:?}"
    );
    live.shutdown().await;
}

#[tokio::test]
async fn a_cancelled_task_call_cancels_the_task_on_the_server() {
    let h = Harness::new();
    let mut events = h.events.control();
    let live = h.connect("everything", everything()).await;
    let c = live.connection.clone();
    let call = tokio::spawn(async move {
        c.call_tool("simulate-research-query", Some(json!({"topic": "tides"})))
            .await
    });
    let running = task_event(&mut events, |t| t.status == TaskState::Working).await;
    call.abort();
    let cancelled = task_event(&mut events, |t| t.status == TaskState::Cancelled).await;
    assert_eq!(cancelled.task_id, running.task_id);
    assert!(
        cancelled
            .status_message
            .as_deref()
            .is_some_and(|m| m.contains("the server was told")),
        "{cancelled:?}"
    );
    // The server cancelled it: a cancelled task cannot be cancelled again (-32602).
    let again = live
        .connection
        .cancel_task(&running.task_id)
        .await
        .unwrap_err();
    assert_eq!(again.code, ErrorCode::ServerError, "{again}");
    assert!(again.message.contains("-32602"), "{again}");
    live.shutdown().await;
}

async fn app_on(dir: &std::path::Path) -> App {
    let config = json!({ "mcpServers": { "everything": {
        "command": npm_bin("mcp-server-everything"), "args": ["stdio"] } } });
    std::fs::write(dir.join("config.json"), config.to_string()).unwrap();
    let paths = Paths {
        config_file: dir.join("config.json"),
        data_dir: dir.join("data"),
    };
    let app = AppBuilder::new(paths)
        .secrets(Arc::new(switchboard_base::secrets::MemoryStore::default()))
        .base_env(switchboard_protocol::process::BaseEnv::from_current())
        .build()
        .await
        .unwrap();
    let yes: switchboard_core::app::Confirm = Box::new(|_| Box::pin(async { true }));
    let server = ServerName {
        server: "everything".into(),
    };
    app.trust_server(server, yes).await.unwrap();
    // Trusted, it starts (a moment later on the first run).
    for _ in 0..150 {
        let handle = app.host().servers().get("everything").unwrap();
        if handle.wait_running(Duration::from_secs(30)).await.is_ok() {
            return app;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    panic!("server everything did not start")
}

fn research(call_id: &str) -> CallTool {
    serde_json::from_value(
        json!({"server": "everything", "name": "simulate-research-query",
        "args": {"topic": "tides"}, "callId": call_id}),
    )
    .unwrap()
}

/// The app's tasks once `wanted` holds of them (they are written in the background).
async fn tasks_once(app: &App, wanted: impl Fn(&[TaskView]) -> bool) -> Vec<TaskView> {
    for _ in 0..100 {
        let tasks = app.list_tasks(NoArgs {}).await.unwrap();
        if wanted(&tasks) {
            return tasks;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{:?}", app.list_tasks(NoArgs {}).await.unwrap())
}

#[tokio::test]
async fn tasks_survive_a_new_app_and_a_restart_loses_the_running_ones() {
    let dir = tempfile::tempdir().unwrap();
    let app = app_on(dir.path()).await;
    let done = app.call_tool(research("first"), |_| true).await.unwrap();
    assert!(first_text(&done).contains("tides"));
    tasks_once(&app, |t| {
        t.iter()
            .any(|t| t.call_id.as_deref() == Some("first") && t.status == TaskState::Completed)
    })
    .await;

    // A restart in the middle of a task: the task is lost, and says why.
    let mut events = app.events().control();
    let running = {
        let app = app.clone();
        tokio::spawn(async move { app.call_tool(research("second"), |_| true).await })
    };
    task_event(&mut events, |t| t.status == TaskState::Working).await;
    let server = ServerName {
        server: "everything".into(),
    };
    app.restart_server(server).await.unwrap();
    let e = running.await.unwrap().unwrap_err();
    assert_ne!(e.code, ErrorCode::Cancelled, "{e}");
    let lost = task_event(&mut events, |t| t.status == TaskState::Lost).await;
    assert!(
        lost.status_message
            .as_deref()
            .is_some_and(|m| m.contains("result is lost")),
        "{lost:?}"
    );
    tasks_once(&app, |t| {
        t.iter()
            .any(|t| t.call_id.as_deref() == Some("second") && t.status == TaskState::Lost)
    })
    .await;
    app.shutdown().await;
    drop(app);

    // A new app over the same data directory still has both.
    let again = app_on(dir.path()).await;
    let tasks = again.list_tasks(NoArgs {}).await.unwrap();
    let first = tasks
        .iter()
        .find(|t| t.call_id.as_deref() == Some("first"))
        .unwrap();
    assert_eq!(first.status, TaskState::Completed);
    assert!(first.result.as_ref().unwrap().to_string().contains("tides"));
    assert!(
        tasks
            .iter()
            .any(|t| t.call_id.as_deref() == Some("second") && t.status == TaskState::Lost)
    );
    again.shutdown().await;
}

#[tokio::test]
async fn the_apps_cancel_call_cancels_a_task_backed_call_on_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let app = app_on(dir.path()).await;
    let mut events = app.events().control();
    let running = {
        let app = app.clone();
        tokio::spawn(async move { app.call_tool(research("to-cancel"), |_| true).await })
    };
    let task = task_event(&mut events, |t| {
        t.call_id.as_deref() == Some("to-cancel") && t.status == TaskState::Working
    })
    .await;
    app.cancel_call(CallId {
        call_id: "to-cancel".into(),
    })
    .await
    .unwrap();
    let e = running.await.unwrap().unwrap_err();
    assert_eq!(e.code, ErrorCode::Cancelled, "{e}");
    let cancelled = task_event(&mut events, |t| t.status == TaskState::Cancelled).await;
    assert_eq!(cancelled.task_id, task.task_id);
    // The server's task is cancelled: cancelling it again is refused as for any ended task.
    let again = app
        .host()
        .servers()
        .get("everything")
        .unwrap()
        .connection()
        .unwrap()
        .cancel_task(&task.task_id)
        .await
        .unwrap_err();
    assert!(again.message.contains("-32602"), "{again}");
    tasks_once(&app, |t| {
        t.iter()
            .any(|t| t.task_id == task.task_id && t.status == TaskState::Cancelled)
    })
    .await;
    app.shutdown().await;
}

#[tokio::test]
async fn tasks_a_previous_run_left_unfinished_are_lost_when_the_app_starts() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = switchboard_base::store::Store::open(&dir.path().join("data")).unwrap();
        let log = switchboard_protocol::tasks::log::TaskLog::new(Arc::new(store));
        log.record(TaskView::new("everything", "left-over", "slow", None));
        assert_eq!(log.list().await.unwrap().len(), 1);
    }
    let app = app_on(dir.path()).await;
    let tasks = app.list_tasks(NoArgs {}).await.unwrap();
    assert_eq!(tasks.len(), 1);
    assert_eq!(tasks[0].status, TaskState::Lost);
    assert_eq!(
        tasks[0].status_message.as_deref(),
        Some(switchboard_protocol::tasks::log::LOST_WITH_HOST)
    );
    app.shutdown().await;
}

#[tokio::test]
async fn task_augmented_sampling_and_elicitation_run_as_client_tasks() {
    let mut h = Harness::new();
    let approver = Arc::new(Answering {
        answer: json!({"name": "Ada"}),
        ..Default::default()
    });
    h.approver = approver.clone();
    let live = h.connect("everything", everything()).await;
    let c = &live.connection;
    let r = c
        .call_tool(
            "trigger-sampling-request-async",
            Some(json!({"prompt": "hi"})),
        )
        .await
        .unwrap();
    let all = serde_json::to_string(&r.content).unwrap();
    assert!(!all.contains("[SYNC]"), "{all}");
    assert!(all.contains("[COMPLETED]"), "{all}");
    assert!(all.contains("sampled by the test"), "{all}");

    let r = c
        .call_tool("trigger-elicitation-request-async", None)
        .await
        .unwrap();
    let all = serde_json::to_string(&r.content).unwrap();
    assert!(!all.contains("[SYNC]"), "{all}");
    assert!(all.contains("[COMPLETED]"), "{all}");
    assert!(all.contains("Name: Ada"), "{all}");
    let asked = approver.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 2, "both went through the approver: {asked:?}");
    live.shutdown().await;
}

/// Over Streamable HTTP rmcp decodes messages before Switchboard sees them, so a tool's
/// `execution.taskSupport` is unknown; a tool that must run as a task is called again as one
/// when the server refuses it (method not found, before it ran), and followed to its result.
#[tokio::test]
async fn over_streamable_http_a_tool_that_needs_a_task_runs_as_one() {
    let (mut child, port, log) = crate::everything::http_everything("streamableHttp").await;
    let url = format!("http://127.0.0.1:{port}/mcp");
    let h = Harness::new();
    let mut events = h.events.control();
    let live = h
        .connect(
            "http",
            switchboard_base::config::ServerConfig::remote(
                url,
                switchboard_base::config::RemoteTransport::StreamableHttp,
            ),
        )
        .await;
    let r = live
        .connection
        .call_tool_for(
            Some("call-http"),
            "simulate-research-query",
            Some(json!({"topic": "tides"})),
        )
        .await
        .unwrap();
    assert!(first_text(&r).contains("Research Report: tides"), "{r:?}");
    let last = task_events(&mut events).pop().expect("task events");
    assert_eq!(last.status, TaskState::Completed);
    assert_eq!(last.call_id.as_deref(), Some("call-http"));
    // A plain tool is called as before, with no task.
    let echo = live
        .connection
        .call_tool("echo", Some(json!({"message": "plain"})))
        .await
        .unwrap();
    assert_eq!(first_text(&echo), "Echo: plain");
    assert!(task_events(&mut events).is_empty());
    live.shutdown().await;
    let _ = child.kill().await;
    let _ = std::fs::remove_file(log);
}

/// A call id is made once: the window sends a call again when it reloads while the call is in
/// flight, and the second is refused without reaching the server (one request in the audit log).
#[tokio::test]
async fn a_call_sent_again_with_its_id_is_not_made_twice() {
    let dir = tempfile::tempdir().unwrap();
    let app = app_on(dir.path()).await;
    let call = |id: &str| -> CallTool {
        serde_json::from_value(json!({"server": "everything", "name": "echo",
            "args": {"message": "once"}, "callId": id}))
        .unwrap()
    };
    app.call_tool(call("only-once"), |_| true).await.unwrap();
    let again = app
        .call_tool(call("only-once"), |_| true)
        .await
        .unwrap_err();
    assert_eq!(again.code, ErrorCode::InvalidInput, "{again}");
    assert!(again.message.contains("already made"), "{}", again.message);
    let requested = app
        .search_audit(switchboard_policy::audit::AuditQuery {
            text: Some("once".into()),
            ..Default::default()
        })
        .await
        .unwrap()
        .into_iter()
        .filter(|r| r.step == switchboard_policy::audit::Step::Requested)
        .count();
    assert_eq!(requested, 1);
    app.call_tool(call("another"), |_| true).await.unwrap();
    app.shutdown().await;
}
