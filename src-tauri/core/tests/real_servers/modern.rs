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
