//! A remote server that goes away while connected: the supervisor sees it (pings, and requests
//! that fail at the transport), shows it, fails calls at once, and reconnects with backoff once
//! the server is back.

use std::time::Duration;

use serde_json::json;
use switchboard_core::config::{Config, RemoteTransport, ServerConfig};
use switchboard_core::servers::{ServerState, Servers};

use crate::everything::http_everything_on;
use crate::support::{first_text, free_port, host_context};

/// Waits, up to a minute, for a state `wanted` accepts.
async fn until(
    states: &mut tokio::sync::watch::Receiver<ServerState>,
    what: &str,
    wanted: impl Fn(&ServerState) -> bool,
) {
    let seen = tokio::time::timeout(Duration::from_secs(60), states.wait_for(|s| wanted(s))).await;
    assert!(matches!(seen, Ok(Ok(_))), "never {what}");
}

#[tokio::test]
async fn a_remote_server_that_went_away_is_seen_and_reconnected() {
    let port = free_port();
    let (mut child, _, log) = http_everything_on("streamableHttp", port).await;
    let url = format!("http://127.0.0.1:{port}/mcp");
    let servers = Servers::start(&Config::default(), host_context());
    let config = ServerConfig::remote(url, RemoteTransport::StreamableHttp);
    servers.upsert("remote", config, vec![]).await.unwrap();
    let handle = servers.get("remote").unwrap();
    let first = handle.wait_running(Duration::from_secs(60)).await.unwrap();
    let mut states = handle.watch_state();

    child.kill().await.unwrap();
    until(&mut states, "saw the server go", |s| {
        !matches!(s, ServerState::Running { .. })
    })
    .await;
    // A call on the lost server fails at once, saying why.
    let error = handle
        .connection()
        .expect_err("no connection while the server is gone");
    assert_eq!(
        error.code,
        switchboard_core::ErrorCode::ServerNotRunning,
        "{error}"
    );
    let late = first
        .call_tool("echo", Some(json!({"message": "lost"})))
        .await;
    assert!(late.is_err(), "the lost connection takes no more calls");

    // Back where it was: reconnected without anyone pressing Restart.
    let (mut back, _, log2) = http_everything_on("streamableHttp", port).await;
    until(&mut states, "reconnected", |s| {
        matches!(s, ServerState::Running { .. })
    })
    .await;
    let connection = handle.connection().unwrap();
    let result = connection
        .call_tool("echo", Some(json!({"message": "again"})))
        .await
        .unwrap();
    assert_eq!(first_text(&result), "Echo: again");
    servers.shutdown().await;
    let _ = back.kill().await;
    let _ = std::fs::remove_file(log);
    let _ = std::fs::remove_file(log2);
}
