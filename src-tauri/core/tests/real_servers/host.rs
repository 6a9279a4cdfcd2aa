//! The host as the desktop drives it: edits reach the config file and the running servers, and
//! calls can be cancelled by id.

use std::time::Duration;

use serde_json::json;
use switchboard_base::config::Config;
use switchboard_core::ErrorCode;
use switchboard_core::host::Host;
use switchboard_core::servers::ServerStatus;

use crate::support::{host_context, python, python_fixture, stdio, wait_until};

fn faulty(mode: &str) -> switchboard_base::config::ServerConfig {
    stdio(&python(), &[&python_fixture("faulty_server.py"), mode])
}

fn host(dir: &tempfile::TempDir) -> Host {
    let mut ctx = host_context();
    ctx.config_file = dir.path().join("switchboard.json");
    Host::start(Config::default(), ctx)
}

fn on_disk(dir: &tempfile::TempDir) -> Config {
    Config::load(&dir.path().join("switchboard.json")).unwrap()
}

#[tokio::test]
async fn edits_reach_the_file_and_the_running_servers() {
    let dir = tempfile::tempdir().unwrap();
    let host = host(&dir);
    host.save_server("alpha", faulty("ok"), None).await.unwrap();
    assert!(on_disk(&dir).mcp_servers.contains_key("alpha"));
    host.servers()
        .get("alpha")
        .unwrap()
        .wait_running(Duration::from_secs(20))
        .await
        .unwrap();

    // Names must be unique and present; a bad edit changes nothing.
    let e = host
        .save_server("alpha", faulty("ok"), None)
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput, "{e}");
    let e = host
        .save_server("  ", faulty("ok"), None)
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput, "{e}");
    let mut no_command = faulty("ok");
    no_command.command = None;
    let e = host
        .save_server("broken", no_command, None)
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::ConfigInvalid, "{e}");
    assert_eq!(on_disk(&dir).mcp_servers.len(), 1);

    // Rename keeps the place and restarts under the new name.
    host.save_server("beta", faulty("ok"), Some("alpha"))
        .await
        .unwrap();
    let names: Vec<_> = on_disk(&dir).mcp_servers.keys().cloned().collect();
    assert_eq!(names, ["beta"]);
    assert!(host.servers().get("alpha").is_err());
    let beta = host.servers().get("beta").unwrap();
    beta.wait_running(Duration::from_secs(20)).await.unwrap();

    host.set_enabled("beta", false).await.unwrap();
    assert!(!on_disk(&dir).mcp_servers["beta"].enabled);
    let beta = host.servers().get("beta").unwrap();
    assert_eq!(beta.status(), ServerStatus::Disabled);
    host.set_enabled("beta", true).await.unwrap();
    host.servers()
        .get("beta")
        .unwrap()
        .wait_running(Duration::from_secs(20))
        .await
        .unwrap();

    // Roots: global, a per-server override, and a path that is not a folder.
    let global = tempfile::tempdir().unwrap();
    let own = tempfile::tempdir().unwrap();
    host.set_roots(None, Some(vec![global.path().to_path_buf()]))
        .await
        .unwrap();
    host.set_roots(Some("beta"), Some(vec![own.path().to_path_buf()]))
        .await
        .unwrap();
    let view = host.roots().unwrap();
    assert_eq!(view.global, [global.path()]);
    assert_eq!(view.servers["beta"], Some(vec![own.path().to_path_buf()]));
    assert_eq!(on_disk(&dir).roots, [global.path()]);
    let e = host
        .set_roots(None, Some(vec!["/no/such/folder".into()]))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput, "{e}");
    assert_eq!(on_disk(&dir).roots, [global.path()]);
    host.set_roots(Some("beta"), None).await.unwrap();
    assert_eq!(host.roots().unwrap().servers["beta"], None);

    let views = host.views(10).unwrap();
    assert_eq!(views.len(), 1);
    assert!(views[0].config.is_some());

    host.remove_server("beta").await.unwrap();
    assert!(on_disk(&dir).mcp_servers.is_empty());
    assert!(host.servers().all().is_empty());
    host.shutdown().await;
}

#[tokio::test]
async fn a_call_cancelled_by_id_tells_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let host = host(&dir);
    let log = tempfile::NamedTempFile::new().unwrap();
    let mut config = faulty("hang");
    config.env.insert(
        "FAULTY_LOG".into(),
        log.path().to_string_lossy().into_owned(),
    );
    host.save_server("slow", config, None).await.unwrap();
    let handle = host.servers().get("slow").unwrap();
    handle.wait_running(Duration::from_secs(20)).await.unwrap();
    let caller = host.clone();
    let call = tokio::spawn(async move {
        caller
            .call_tool("slow", "hang", Some(json!({})), "call-1")
            .await
    });
    // Cancelling before the host holds the call would cancel nothing, and before the request is
    // out there would be nothing to tell the server.
    wait_until("the call to be in flight", || {
        host.calls_in_flight().iter().any(|id| id == "call-1")
    })
    .await;
    wait_until("the server to receive the call", || {
        std::fs::read_to_string(log.path()).is_ok_and(|l| l.contains("\"tools/call\""))
    })
    .await;
    host.cancel_call("call-1").unwrap();
    let e = call.await.unwrap().unwrap_err();
    assert_eq!(e.code, ErrorCode::Cancelled, "{e}");
    assert!(host.calls_in_flight().is_empty());
    // The fixture writes "cancelled <id>" to stderr for each notifications/cancelled.
    wait_until("the server to be told the call was cancelled", || {
        handle.stderr().iter().any(|l| l.starts_with("cancelled"))
    })
    .await;
    host.shutdown().await;
}
