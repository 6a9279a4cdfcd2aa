//! `@modelcontextprotocol/server-filesystem` with no directory arguments: its allowed directories
//! come from our roots and follow them when they change.

use std::time::Duration;

use switchboard_core::servers::ServerHandle;

use crate::support::{first_text, host_context, npm_bin, stdio};

async fn allowed(handle: &ServerHandle) -> String {
    let c = handle.connection().unwrap();
    first_text(&c.call_tool("list_allowed_directories", None).await.unwrap())
}

#[tokio::test]
async fn allowed_directories_follow_roots() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    let a_path = a.path().canonicalize().unwrap();
    let b_path = b.path().canonicalize().unwrap();
    let ctx = host_context();
    let handle = ServerHandle::spawn(
        "fs",
        stdio(&npm_bin("mcp-server-filesystem"), &[]),
        vec![a_path.clone()],
        &ctx,
    );
    handle.wait_running(Duration::from_secs(30)).await.unwrap();
    // The server asks for roots right after initialization.
    let mut text = String::new();
    for _ in 0..50 {
        text = allowed(&handle).await;
        if text.contains(a_path.to_str().unwrap()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(text.contains(a_path.to_str().unwrap()), "{text}");

    handle
        .set_roots(std::slice::from_ref(&b_path))
        .await
        .unwrap();
    for _ in 0..50 {
        text = allowed(&handle).await;
        if text.contains(b_path.to_str().unwrap()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(text.contains(b_path.to_str().unwrap()), "{text}");
    assert!(!text.contains(a_path.to_str().unwrap()), "{text}");
    handle.stop().await.unwrap();
}
