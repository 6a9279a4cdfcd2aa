//! A remote server that goes away while connected: the supervisor sees it (pings, and requests
//! that fail at the transport), shows it, fails calls at once, and reconnects with backoff once
//! the server is back.

use std::time::Duration;

use serde_json::json;
use switchboard_base::config::{Config, RemoteTransport, ServerConfig};
use switchboard_core::servers::{ServerHandle, ServerState, Servers};

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

/// The reconnected server answers a call; then everything the test started is stopped and its
/// logs removed.
async fn answers_again_then_ends(
    servers: Servers,
    handle: &ServerHandle,
    mut back: tokio::process::Child,
    logs: [std::path::PathBuf; 2],
) {
    let result = handle
        .connection()
        .unwrap()
        .call_tool("echo", Some(json!({"message": "again"})))
        .await
        .unwrap();
    assert_eq!(first_text(&result), "Echo: again");
    servers.shutdown().await;
    let _ = back.kill().await;
    for log in logs {
        let _ = std::fs::remove_file(log);
    }
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
    let late = late.expect_err("the lost connection takes no more calls");
    assert_ne!(late.code, switchboard_core::ErrorCode::Timeout, "{late}");
    assert!(
        late.message.contains("remote"),
        "the error names the server: {late}"
    );

    // Back where it was: reconnected without anyone pressing Restart.
    let (back, _, log2) = http_everything_on("streamableHttp", port).await;
    until(&mut states, "reconnected", |s| {
        matches!(s, ServerState::Running { .. })
    })
    .await;
    answers_again_then_ends(servers, &handle, back, [log, log2]).await;
}

/// The server came back (a new process, so a new session) before any ping noticed it went: the
/// first call on the stale session fails with the reason instead of waiting out its timeout, that
/// failure makes the supervisor look at once, and it reconnects without anyone pressing Restart.
#[tokio::test]
async fn a_server_back_before_the_next_ping_costs_one_failed_call_not_a_hang() {
    let port = free_port();
    let (mut child, _, log) = http_everything_on("streamableHttp", port).await;
    let url = format!("http://127.0.0.1:{port}/mcp");
    let mut ctx = host_context();
    // No ping would notice in this test's lifetime: only the failed call can.
    ctx.restart.keepalive = Duration::from_secs(3600);
    let servers = Servers::start(&Config::default(), ctx);
    let config = ServerConfig {
        // A hang would show as this timeout's error, not as the transport's.
        request_timeout_secs: Some(120),
        ..ServerConfig::remote(url, RemoteTransport::StreamableHttp)
    };
    servers.upsert("remote", config, vec![]).await.unwrap();
    let handle = servers.get("remote").unwrap();
    let stale = handle.wait_running(Duration::from_secs(60)).await.unwrap();
    let mut states = handle.watch_state();

    child.kill().await.unwrap();
    let _ = child.wait().await;
    let (back, _, log2) = http_everything_on("streamableHttp", port).await;
    let error = stale
        .call_tool("echo", Some(json!({"message": "stale"})))
        .await
        .expect_err("the old session is gone");
    assert_ne!(
        error.code,
        switchboard_core::ErrorCode::Timeout,
        "the call waited for its timeout: {error}"
    );
    assert!(
        !error.message.is_empty() && !error.message.contains("Transport"),
        "{error}"
    );

    until(&mut states, "reconnected to a new session", |s| {
        matches!(s, ServerState::Running { .. })
            && handle.connection().is_ok_and(|c| !c.same(&stale))
    })
    .await;
    answers_again_then_ends(servers, &handle, back, [log, log2]).await;
}
