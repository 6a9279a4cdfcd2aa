//! The 2026-07-28 era: rmcp's server side answers `server/discover`, and Switchboard uses it.

use serde_json::json;

use switchboard_base::events::{CoreEvent, ServerEvent};
use switchboard_protocol::tasks::TaskState;

use crate::support::{Harness, first_text, rmcp_fixture, stdio};

#[tokio::test]
async fn discover_era_end_to_end() {
    let h = Harness::new();
    let mut config = stdio(&rmcp_fixture(), &[]);
    config.env.insert("FIXTURE_RESOURCES".into(), "250".into());
    let live = h.connect("modern", config).await;
    let c = &live.connection;
    assert_eq!(c.summary().protocol_version, "2026-07-28");
    assert_eq!(c.summary().server_info["name"], "switchboard-rmcp-fixture");
    assert_eq!(
        c.summary().instructions.as_deref(),
        Some("Switchboard's rmcp fixture server")
    );
    let r = c
        .call_tool("echo", Some(json!({"text": "modern"})))
        .await
        .unwrap();
    assert_eq!(first_text(&r), "modern");
    let (resources, pages) = c.list_resources().await.unwrap();
    assert_eq!(resources.len(), 250);
    assert_eq!(pages, 3);
    live.shutdown().await;
}

#[tokio::test]
async fn a_multi_round_trip_call_asks_through_the_handler_and_carries_the_state() {
    let h = Harness::new();
    let live = h.connect("modern", stdio(&rmcp_fixture(), &[])).await;
    // Round 1 asks for a name (answered with the form's default), round 2 carries only state.
    let r = live.connection.call_tool("greet", None).await.unwrap();
    assert_eq!(first_text(&r), "Hello, Ada");
    live.shutdown().await;
}

#[tokio::test]
async fn a_2026_task_is_followed_through_its_input_request_to_its_result() {
    let h = Harness::new();
    let mut events = h.events.control();
    let live = h.connect("modern", stdio(&rmcp_fixture(), &[])).await;
    // The server answers with a task of its own accord; its question (answered with the form's
    // default) goes through the handler and back with tasks/update.
    let r = live
        .connection
        .call_tool_for(Some("call-7"), "research", None)
        .await
        .unwrap();
    assert_eq!(first_text(&r), "Report on tides");
    let statuses: Vec<_> = std::iter::from_fn(|| events.try_recv())
        .filter_map(|e| match e {
            CoreEvent::Server(ServerEvent::Task { task, .. }) => Some(task),
            _ => None,
        })
        .collect();
    let seen: Vec<_> = statuses.iter().map(|t| t.status).collect();
    assert_eq!(
        seen,
        [
            TaskState::Working,
            TaskState::Working,
            TaskState::InputRequired,
            TaskState::Completed
        ],
        "{statuses:?}"
    );
    assert_eq!(
        statuses[1].status_message.as_deref(),
        Some("Gathering sources")
    );
    assert!(
        statuses
            .iter()
            .all(|t| t.call_id.as_deref() == Some("call-7"))
    );
    // The server asked for 50 ms between polls; the host waited at least its floor.
    let span = statuses[3].updated_at - statuses[0].created_at;
    let floor = i64::try_from(switchboard_protocol::tasks::MIN_POLL.as_millis()).unwrap();
    assert!(span >= 3 * floor, "{span} ms for three polls");
    live.shutdown().await;
}

/// Refuses every elicitation (as an approver whose person closed the window might).
struct Refusing;

impl switchboard_policy::approvals::Approver for Refusing {
    fn sampling(
        &self,
        _origin: switchboard_policy::approvals::Origin,
        _params: rmcp::model::CreateMessageRequestParams,
    ) -> futures::future::BoxFuture<
        'static,
        Result<rmcp::model::CreateMessageResult, rmcp::ErrorData>,
    > {
        Box::pin(async { Err(switchboard_policy::approvals::rejected_sampling()) })
    }

    fn elicitation(
        &self,
        _origin: switchboard_policy::approvals::Origin,
        _params: rmcp::model::ElicitRequestParams,
    ) -> futures::future::BoxFuture<'static, Result<rmcp::model::ElicitResult, rmcp::ErrorData>>
    {
        Box::pin(async { Err(rmcp::ErrorData::internal_error("nobody answered", None)) })
    }
}

async fn research_state(c: &switchboard_protocol::connection::Connection, id: &str) -> String {
    let r = c
        .call_tool("research-state", Some(json!({ "id": id })))
        .await
        .unwrap();
    first_text(&r)
}

#[tokio::test]
async fn a_2026_task_is_cancelled_on_the_server_when_its_call_is_dropped_or_its_input_refused() {
    let h = Harness::new();
    let mut events = h.events.control();
    let live = h.connect("modern", stdio(&rmcp_fixture(), &[])).await;
    let c = live.connection.clone();
    let call = tokio::spawn(async move { c.call_tool("research", None).await });
    let started = loop {
        match events.recv().await {
            Some(CoreEvent::Server(ServerEvent::Task { task, .. })) => break task,
            Some(_) => {}
            None => panic!("the bus closed"),
        }
    };
    call.abort();
    loop {
        if let Some(CoreEvent::Server(ServerEvent::Task { task, .. })) = events.recv().await
            && task.status == TaskState::Cancelled
        {
            break;
        }
    }
    assert_eq!(
        research_state(&live.connection, &started.task_id).await,
        "cancelled"
    );
    live.shutdown().await;

    let mut h = Harness::new();
    h.approver = std::sync::Arc::new(Refusing);
    let mut events = h.events.control();
    let live = h.connect("modern", stdio(&rmcp_fixture(), &[])).await;
    let e = live
        .connection
        .call_tool("research", None)
        .await
        .unwrap_err();
    assert!(e.message.contains("nobody answered"), "{e}");
    let task = std::iter::from_fn(|| events.try_recv())
        .find_map(|e| match e {
            CoreEvent::Server(ServerEvent::Task { task, .. }) => Some(task),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        research_state(&live.connection, &task.task_id).await,
        "cancelled"
    );
    live.shutdown().await;
}
