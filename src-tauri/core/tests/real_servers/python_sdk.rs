//! A server written with the official Python SDK (mcp 2.x): it negotiates 2026-07-28 over stdio,
//! so its elicitation, sampling and roots arrive as multi round-trip input requests, which rmcp
//! hands to the same handler and approval door as the older standalone requests.

use serde_json::json;
use switchboard_protocol::connection::CompletionRef;

use crate::support::{Harness, first_text, python, python_fixture, stdio};

#[tokio::test]
async fn python_sdk_server() {
    let root = tempfile::tempdir().unwrap();
    let h = Harness::new().with_roots(&[root.path().to_path_buf()]);
    let live = h
        .connect("py", stdio(&python(), &[&python_fixture("sdk_server.py")]))
        .await;
    let c = &live.connection;
    assert_eq!(c.summary().server_info["name"], "switchboard-fixture");
    assert_eq!(c.summary().protocol_version, "2026-07-28");
    // 2026-07-28 has no `ping`; checking the server answers goes through `server/discover`.
    c.ping().await.unwrap();

    let r = c
        .call_tool("echo", Some(json!({"text": "py"})))
        .await
        .unwrap();
    assert_eq!(first_text(&r), "py");

    let r = c
        .call_tool("elicit", Some(json!({"message": "who?"})))
        .await
        .unwrap();
    let text = first_text(&r);
    assert!(text.starts_with("accept"), "{text}");
    assert!(text.contains("Ada"), "{text}");

    // The approver rejects sampling; in this era the rejection ends the call with -1.
    let e = c
        .call_tool("sample", Some(json!({"prompt": "hi"})))
        .await
        .unwrap_err();
    assert!(
        e.message.contains("-1") && e.message.contains("User rejected sampling request"),
        "{e}"
    );

    let r = c.call_tool("roots", None).await.unwrap();
    let uri = url::Url::from_directory_path(root.path())
        .unwrap()
        .to_string();
    assert!(
        first_text(&r).contains(uri.trim_end_matches('/')),
        "{}",
        first_text(&r)
    );

    let done = c
        .complete(
            CompletionRef::Template("fixture://greet/{name}".into()),
            "name",
            "A",
            None,
        )
        .await
        .unwrap();
    assert_eq!(done.completion.values, ["Ada", "Alan"]);

    let r = c
        .call_tool("structured", Some(json!({"a": 2, "b": 5})))
        .await
        .unwrap();
    assert_eq!(
        r.structured_content.as_ref().and_then(|s| s.get("sum")),
        Some(&json!(7))
    );
    live.shutdown().await;
}

/// On 2026-07-28, list changes and resource updates come through `subscriptions/listen`.
#[tokio::test]
async fn modern_subscriptions_deliver_list_changes_and_resource_updates() {
    use std::time::Duration;
    use switchboard_base::events::{CoreEvent, ListKind, ServerEvent};

    let h = Harness::new();
    let bus = h.events.clone();
    let live = h
        .connect("py", stdio(&python(), &[&python_fixture("sdk_server.py")]))
        .await;
    let c = &live.connection;
    assert_eq!(c.summary().protocol_version, "2026-07-28");
    c.subscribe("fixture://hello").await.unwrap();

    let wait_for = |want: CoreEvent| {
        let mut events = bus.control();
        async move {
            let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
            loop {
                match tokio::time::timeout_at(deadline, events.recv()).await {
                    Ok(Some(ev)) if ev == want => return true,
                    Ok(Some(_)) => {}
                    _ => return false,
                }
            }
        }
    };
    // The listen stream (re)opens in the background; retry the trigger until it is heard.
    let mut heard = false;
    for _ in 0..20 {
        let waiter = tokio::spawn(wait_for(CoreEvent::Server(ServerEvent::ListChanged {
            server: "py".into(),
            list: ListKind::Tools,
        })));
        c.call_tool("touch", None).await.unwrap();
        if tokio::time::timeout(Duration::from_millis(500), waiter)
            .await
            .is_ok_and(|r| r.unwrap_or(false))
        {
            heard = true;
            break;
        }
    }
    assert!(
        heard,
        "no tools list_changed arrived through subscriptions/listen"
    );

    let mut updated = false;
    for _ in 0..20 {
        let waiter = tokio::spawn(wait_for(CoreEvent::Server(ServerEvent::ResourceUpdated {
            server: "py".into(),
            uri: "fixture://hello".into(),
        })));
        c.call_tool("update", Some(json!({"uri": "fixture://hello"})))
            .await
            .unwrap();
        if tokio::time::timeout(Duration::from_millis(500), waiter)
            .await
            .is_ok_and(|r| r.unwrap_or(false))
        {
            updated = true;
            break;
        }
    }
    assert!(
        updated,
        "no resources/updated arrived through subscriptions/listen"
    );
    live.shutdown().await;
}

/// Progress restarts the idle timeout, but never past the maximum total time.
#[tokio::test]
async fn progress_extends_the_timeout_but_not_the_total_cap() {
    use std::time::{Duration, Instant};
    let h = Harness::new();
    let mut config = stdio(&python(), &[&python_fixture("sdk_server.py")]);
    config.request_timeout_secs = Some(1);
    config.max_total_secs = Some(3);
    let live = h.connect("py", config).await;
    let c = &live.connection;
    // 2 s of work with progress every 100 ms outlives the 1 s idle timeout.
    let r = c
        .call_tool("slow", Some(json!({"seconds": 2.0})))
        .await
        .unwrap();
    assert_eq!(first_text(&r), "done");
    // 6 s of work hits the 3 s ceiling however steady the progress.
    let started = Instant::now();
    let e = c
        .call_tool("slow", Some(json!({"seconds": 6.0})))
        .await
        .unwrap_err();
    assert_eq!(e.code, switchboard_core::ErrorCode::Timeout, "{e}");
    assert!(e.message.contains("maximum total time"), "{e}");
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(2900) && took < Duration::from_secs(5),
        "{took:?}"
    );
    live.shutdown().await;
}

/// The supervisor keeps each server's tools and prompts cached and fetches them again when the
/// server says they changed.
#[tokio::test]
async fn the_catalog_refreshes_on_list_changed() {
    use std::time::Duration;
    use switchboard_core::servers::ServerHandle;

    let ctx = crate::support::host_context();
    let handle = ServerHandle::spawn(
        "py",
        stdio(&python(), &[&python_fixture("sdk_server.py")]),
        vec![],
        &ctx,
    );
    let c = handle.wait_running(Duration::from_secs(30)).await.unwrap();
    let mut state = handle.watch_state();
    let first = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            if let Some(c) = state.borrow_and_update().catalog().cloned() {
                return c;
            }
            state.changed().await.unwrap();
        }
    })
    .await
    .expect("a first catalog");
    assert!(first.tools.iter().any(|t| t.name == "touch"));
    assert!(!first.prompts.is_empty(), "the fixture has prompts");
    // The listen stream opens in the background: repeat the trigger until a refresh happens.
    let mut refreshed = false;
    for _ in 0..20 {
        c.call_tool("touch", None).await.unwrap();
        let newer = tokio::time::timeout(Duration::from_millis(500), async {
            loop {
                state.changed().await.unwrap();
                if let Some(c) = state.borrow_and_update().catalog().cloned()
                    && c.revision > first.revision
                {
                    return c;
                }
            }
        })
        .await;
        if let Ok(newer) = newer {
            assert_eq!(newer.tools.len(), first.tools.len());
            refreshed = true;
            break;
        }
    }
    assert!(refreshed, "tools/list_changed did not refresh the catalog");
    handle.stop().await.unwrap();
    assert!(
        handle.catalog().is_none(),
        "a stopped server has no catalog"
    );
}
