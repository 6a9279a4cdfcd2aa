//! The 2026-07-28 era: rmcp's server side answers `server/discover`, and Switchboard uses it.

use serde_json::json;

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
