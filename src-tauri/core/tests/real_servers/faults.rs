//! Hostile and broken servers: none may crash, hang or bloat the host, nor affect other servers.

use std::time::Duration;

use serde_json::json;
use switchboard_base::events::{CoreEvent, ListKind, ServerEvent};
use switchboard_core::ErrorCode;
use switchboard_core::servers::{ServerHandle, ServerStatus};

use crate::support::{
    Harness, first_text, host_context, python, python_fixture, stdio, wait_until,
};

pub fn faulty(mode: &str) -> switchboard_base::config::ServerConfig {
    stdio(&python(), &[&python_fixture("faulty_server.py"), mode])
}

/// Whether this process is test `name` run alone. Called first by a test that measures the
/// process's memory: the first call runs `name` alone in a child process of this test binary (and
/// fails if it fails there) and says no; in that child it says yes, and the test measures. Run
/// beside the other tests, what they hold would be counted as the test's own.
fn measured_alone(name: &str) -> bool {
    const ALONE: &str = "SWITCHBOARD_TEST_ALONE";
    if std::env::var(ALONE).as_deref() == Ok(name) {
        return true;
    }
    crate::support::rerun_alone(name, "alone", |c| {
        c.env(ALONE, name);
    });
    false
}

fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

#[tokio::test]
async fn crash_mid_request_fails_fast_and_the_supervisor_restarts() {
    let ctx = host_context();
    let mut events = ctx.events.control();
    let handle = ServerHandle::spawn("crashy", faulty("crash"), vec![], &ctx);
    let c = handle.wait_running(Duration::from_secs(20)).await.unwrap();
    let started = std::time::Instant::now();
    let e = c
        .call_tool("echo", Some(json!({"text": "boom"})))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::TransportClosed, "{e}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
    // Restarting with backoff, visible to the UI, then running again.
    let mut saw_restarting = false;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        let ev = tokio::time::timeout_at(deadline, events.recv())
            .await
            .expect("events")
            .unwrap();
        if let switchboard_base::events::CoreEvent::Server(
            switchboard_base::events::ServerEvent::Status { status, .. },
        ) = ev
        {
            match status {
                ServerStatus::Restarting { attempt, error, .. } => {
                    assert_eq!(attempt, 1);
                    assert!(error.message.contains("exit"), "{}", error.message);
                    saw_restarting = true;
                }
                ServerStatus::Running { .. } if saw_restarting => break,
                _ => {}
            }
        }
    }
    let c = handle.connection().unwrap();
    c.ping().await.unwrap();
    handle.stop().await.unwrap();
    assert_eq!(handle.status(), ServerStatus::Stopped);
}

#[tokio::test]
async fn exit_during_initialize_reports_stderr() {
    let h = Harness::new();
    let e = switchboard_protocol::connection::connect(h.options("dies", faulty("exit-on-init")))
        .await
        .err()
        .expect("connect must fail");
    assert_eq!(e.code, ErrorCode::ConnectFailed, "{e}");
    assert!(e.message.contains("fatal: boom"), "{}", e.message);
}

/// A legacy server that answers the `server/discover` probe only after rmcp gave up on it (10 s)
/// and sent `initialize` (a first `uvx` or `npx` run downloading the server): its late error is
/// no answer to `initialize`, and the server is started again with `initialize` alone.
#[tokio::test]
async fn a_probe_answered_late_starts_a_legacy_server_again_with_initialize() {
    let h = Harness::new();
    let log = tempfile::NamedTempFile::new().unwrap();
    let mut config = faulty("late-discover");
    config.env.insert(
        "FAULTY_LOG".into(),
        log.path().to_string_lossy().into_owned(),
    );
    let live = h.connect("slow", config).await;
    assert_eq!(live.connection.summary().protocol_version, "2025-11-25");
    let r = live
        .connection
        .call_tool("echo", Some(json!({"text": "late"})))
        .await
        .unwrap();
    assert_eq!(first_text(&r), "late");
    live.shutdown().await;
    let sent = std::fs::read_to_string(log.path()).unwrap();
    let methods: Vec<&str> = sent
        .lines()
        .filter_map(|l| l.split("\"method\":\"").nth(1)?.split('"').next())
        .filter(|m| *m == "server/discover" || *m == "initialize")
        .collect();
    assert_eq!(
        methods,
        ["server/discover", "initialize", "initialize"],
        "the first start probes and falls back; the second only initializes"
    );
}

#[tokio::test]
async fn gives_up_after_repeated_failures() {
    let ctx = host_context();
    let handle = ServerHandle::spawn("dies", faulty("exit-on-init"), vec![], &ctx);
    let e = handle
        .wait_running(Duration::from_secs(60))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::ConnectFailed, "{e}");
    assert!(matches!(handle.status(), ServerStatus::Failed { .. }));
}

#[tokio::test]
async fn hang_times_out_and_the_server_is_told() {
    let h = Harness::new();
    let mut opts = h.options("hangs", faulty("hang"));
    opts.timeout = Some(Duration::from_millis(800));
    let live = switchboard_protocol::connection::connect(opts)
        .await
        .unwrap();
    let e = live.connection.call_tool("hang", None).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout);
    let mut told = false;
    for _ in 0..40 {
        if h.stderr.lines().iter().any(|l| l.starts_with("cancelled")) {
            told = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        told,
        "the server never received notifications/cancelled: {:?}",
        h.stderr.lines()
    );
    let r = live
        .connection
        .call_tool("echo", Some(json!({"text": "ok"})))
        .await
        .unwrap();
    assert_eq!(first_text(&r), "ok");
    live.shutdown().await;
}

#[tokio::test]
async fn a_100_mb_line_closes_the_connection_without_bloat() {
    if !measured_alone("faults::a_100_mb_line_closes_the_connection_without_bloat") {
        return;
    }
    let h = Harness::new();
    let before = rss_kb();
    let live = h.connect("huge", faulty("huge-line")).await;
    let e = live
        .connection
        .call_tool("echo", Some(json!({"text": "x"})))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::MessageTooLarge, "{e}");
    assert!(e.message.contains("16777216"), "{}", e.message);
    let grown = rss_kb().saturating_sub(before);
    // The cap is 16 MiB; the line is 100 MB. Allow the capped buffer plus slack, never the line.
    assert!(grown < 60 * 1024, "RSS grew by {grown} kB");
    live.shutdown().await;
}

#[tokio::test]
async fn stdout_garbage_is_skipped() {
    let h = Harness::new();
    let live = h.connect("noisy", faulty("garbage")).await;
    for i in 0..5 {
        let r = live
            .connection
            .call_tool("echo", Some(json!({"text": format!("n{i}")})))
            .await
            .unwrap();
        assert_eq!(first_text(&r), format!("n{i}"));
    }
    live.shutdown().await;
}

#[tokio::test]
async fn stop_kills_a_grandchild_holding_stdout() {
    let h = Harness::new();
    let live = h.connect("grand", faulty("grandchild")).await;
    let mut pid = None;
    for _ in 0..50 {
        pid = h.stderr.lines().iter().find_map(|l| {
            l.strip_prefix("grandchild ")
                .and_then(|p| p.trim().parse::<u32>().ok())
        });
        if pid.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let pid = pid.expect("the fixture reports its grandchild");
    let started = std::time::Instant::now();
    live.shutdown().await;
    assert!(started.elapsed() < Duration::from_secs(10));
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let alive = stat
        .rsplit(')')
        .next()
        .and_then(|r| r.split_whitespace().next())
        .is_some_and(|state| state != "Z" && state != "X");
    assert!(!alive, "grandchild {pid} survived: {stat}");
}

#[tokio::test]
async fn floods_do_not_hurt_the_host_or_other_servers() {
    let h = Harness::new();
    let neighbour = h.connect("neighbour", faulty("ok")).await;
    let flood = h.connect("flood", faulty("requests-flood")).await;
    let noisy = h.connect("stderr", faulty("stderr-flood")).await;
    let r = flood
        .connection
        .call_tool("echo", Some(json!({"text": "after flood"})))
        .await
        .unwrap();
    assert_eq!(first_text(&r), "after flood");
    let r = neighbour
        .connection
        .call_tool("echo", Some(json!({"text": "unaffected"})))
        .await
        .unwrap();
    assert_eq!(first_text(&r), "unaffected");
    // The stderr ring stays bounded however much a server writes.
    assert!(noisy.connection.stderr().len() <= 1000);
    for live in [neighbour, flood, noisy] {
        live.shutdown().await;
    }
}

/// An approver nobody answers: it counts the sampling requests it is holding, and a request
/// leaves the count only when its future is dropped (cancelled).
struct Unanswered(std::sync::Arc<std::sync::atomic::AtomicUsize>);

struct Held(std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl Drop for Held {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

impl switchboard_policy::approvals::Approver for Unanswered {
    fn sampling(
        &self,
        _origin: switchboard_policy::approvals::Origin,
        _params: rmcp::model::CreateMessageRequestParams,
    ) -> futures::future::BoxFuture<
        'static,
        Result<rmcp::model::CreateMessageResult, rmcp::model::ErrorData>,
    > {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let held = Held(self.0.clone());
        Box::pin(async move {
            let _held = held;
            std::future::pending().await
        })
    }

    fn elicitation(
        &self,
        _origin: switchboard_policy::approvals::Origin,
        _params: rmcp::model::ElicitRequestParams,
    ) -> futures::future::BoxFuture<
        'static,
        Result<rmcp::model::ElicitResult, rmcp::model::ErrorData>,
    > {
        Box::pin(std::future::pending())
    }
}

async fn report(live: &switchboard_protocol::connection::Live) -> serde_json::Value {
    let r = live.connection.call_tool("report", None).await.unwrap();
    serde_json::from_str(&first_text(&r)).unwrap()
}

#[tokio::test]
async fn inbound_requests_beyond_the_bound_are_rejected_at_once() {
    let held = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut h = Harness::new();
    h.approver = std::sync::Arc::new(Unanswered(held.clone()));
    let live = h.connect("greedy", faulty("ok")).await;
    let r = live
        .connection
        .call_tool("sample", Some(json!({"count": 40})))
        .await
        .unwrap();
    assert_eq!(first_text(&r), "sent");
    let bound = switchboard_protocol::handler::DEFAULT_MAX_INBOUND;
    wait_until("the bound to fill", || {
        held.load(std::sync::atomic::Ordering::SeqCst) == bound
    })
    .await;
    // The rest were answered straight away with "too many concurrent requests"; the held ones
    // are still waiting for a person and have no answer yet.
    let mut seen = serde_json::Value::Null;
    for _ in 0..100 {
        seen = report(&live).await;
        if seen["responses"] == json!(40 - bound) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let code = switchboard_protocol::handler::TOO_MANY_REQUESTS.to_string();
    assert_eq!(seen["responses"], json!(40 - bound), "{seen}");
    assert_eq!(seen["errors"][&code], json!(40 - bound), "{seen}");
    // The connection still serves the user's own requests.
    let r = live
        .connection
        .call_tool("echo", Some(json!({"text": "still fine"})))
        .await
        .unwrap();
    assert_eq!(first_text(&r), "still fine");
    live.shutdown().await;
}

#[tokio::test]
async fn a_server_cancelling_its_request_withdraws_the_approval_and_gets_no_answer() {
    let held = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut h = Harness::new();
    h.approver = std::sync::Arc::new(Unanswered(held.clone()));
    let live = h.connect("fickle", faulty("ok")).await;
    live.connection
        .call_tool("sample", Some(json!({"count": 3})))
        .await
        .unwrap();
    wait_until("three approvals to wait for a person", || {
        held.load(std::sync::atomic::Ordering::SeqCst) == 3
    })
    .await;
    live.connection.call_tool("cancel", None).await.unwrap();
    wait_until("the cancelled approvals to be withdrawn", || {
        held.load(std::sync::atomic::Ordering::SeqCst) == 0
    })
    .await;
    // The spec: a receiver of a cancellation SHOULD NOT answer the cancelled request. An answer
    // would have been queued to the server as its approval was withdrawn; the answer to the
    // server's ping, asked for only now, goes the same way behind it, and the server answers
    // `ping_client` only once it has read that.
    let r = live
        .connection
        .call_tool("ping_client", None)
        .await
        .unwrap();
    assert_eq!(first_text(&r), "pong");
    let seen = report(&live).await;
    assert_eq!(seen["responses"], json!(0), "{seen}");
    live.shutdown().await;
}

/// The progress events the bus carried for `server` so far.
fn progress_seen(
    streams: &mut switchboard_base::events::Listener,
    server: &str,
) -> Vec<serde_json::Value> {
    let mut seen = Vec::new();
    while let Some(event) = streams.try_recv() {
        if let switchboard_base::events::CoreEvent::Server(
            switchboard_base::events::ServerEvent::Progress {
                server: from,
                progress_token,
                ..
            },
        ) = event
            && from == server
        {
            seen.push(progress_token);
        }
    }
    seen
}

#[tokio::test]
async fn progress_restarts_only_its_own_requests_timer() {
    let h = Harness::new();
    let mut streams = h.events.streams();
    let mut opts = h.options("progressive", faulty("ok"));
    opts.timeout = Some(Duration::from_millis(800));
    let live = switchboard_protocol::connection::connect(opts)
        .await
        .unwrap();
    let c = &live.connection;
    // `own` keeps itself alive with its own progress for 2.5 s. `foreign`, sent next, hears
    // progress every 0.2 s too, but under a made-up token and under `own`'s token: neither is
    // its own, so it must time out after 0.8 s of silence all the same.
    let own = c.call_tool("progress_own", Some(json!({"seconds": 2.5})));
    let foreign = async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let started = std::time::Instant::now();
        let r = c
            .call_tool("progress_foreign", Some(json!({"seconds": 4})))
            .await;
        (r, started.elapsed())
    };
    let (own, (foreign, waited)) = tokio::join!(own, foreign);
    assert_eq!(first_text(&own.unwrap()), "done");
    assert_eq!(foreign.unwrap_err().code, ErrorCode::Timeout);
    assert!(waited < Duration::from_millis(1800), "waited {waited:?}");
    let tokens = progress_seen(&mut streams, "progressive");
    assert!(!tokens.is_empty(), "the call's own progress is shown");
    assert!(
        !tokens.contains(&json!("not-a-token-of-yours")),
        "progress under a token of no request reached the window: {tokens:?}"
    );
    live.shutdown().await;
}

#[tokio::test]
async fn a_late_response_and_its_progress_are_dropped_and_the_connection_carries_on() {
    let h = Harness::new();
    let mut streams = h.events.streams();
    let mut opts = h.options("tardy", faulty("ok"));
    opts.timeout = Some(Duration::from_millis(600));
    let live = switchboard_protocol::connection::connect(opts)
        .await
        .unwrap();
    let c = &live.connection;
    let e = c
        .call_tool("late", Some(json!({"seconds": 30})))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout, "{e}");
    assert!(e.message.contains("within 600 ms"), "{e}");
    let _ = progress_seen(&mut streams, "tardy");
    // Told the request is cancelled, the server answers it all the same and then sends progress
    // for it. It answers `settle` only after writing both, and the host reads its output in
    // order, so by the time `settle` and the next call are answered both were read and dealt with.
    // The notice must reach the server before `settle` does: the server waits for `late`'s
    // thread while it answers `settle`, and that thread ends only on the notice (or in 30 s).
    let r = c.call_tool("settle", None).await.unwrap();
    assert_eq!(first_text(&r), "settled");
    let r = c
        .call_tool("echo", Some(json!({"text": "next"})))
        .await
        .unwrap();
    assert_eq!(first_text(&r), "next");
    let late = progress_seen(&mut streams, "tardy");
    assert!(
        late.is_empty(),
        "late progress reached the window: {late:?}"
    );
    live.shutdown().await;
}

#[tokio::test]
async fn an_unsupported_protocol_version_is_refused_with_a_clear_error() {
    let h = Harness::new();
    let e = switchboard_protocol::connection::connect(h.options("ancient", faulty("bad-version")))
        .await
        .err()
        .expect("connect must fail");
    assert_eq!(e.code, ErrorCode::ConnectFailed, "{e}");
    assert!(e.message.contains("1999-01-01"), "{}", e.message);
}

#[tokio::test]
async fn a_batch_from_the_server_is_read_as_its_messages() {
    let h = Harness::new();
    let live = h.connect("batching", faulty("batch")).await;
    for text in ["one", "two"] {
        let r = live
            .connection
            .call_tool("echo", Some(json!({"text": text})))
            .await
            .unwrap();
        assert_eq!(first_text(&r), text);
    }
    live.shutdown().await;
}

#[tokio::test]
async fn a_list_changed_flood_costs_at_most_two_refreshes() {
    let ctx = host_context();
    let log = tempfile::NamedTempFile::new().unwrap();
    let mut config = faulty("ok");
    config.env.insert(
        "FAULTY_LOG".into(),
        log.path().to_string_lossy().into_owned(),
    );
    let handle = ServerHandle::spawn("changeable", config, vec![], &ctx);
    let c = handle.wait_running(Duration::from_secs(20)).await.unwrap();
    wait_until("the first catalog", || handle.catalog().is_some()).await;
    let mut events = ctx.events.control();
    let lists = || {
        std::fs::read_to_string(log.path())
            .unwrap_or_default()
            .matches("\"tools/list\"")
            .count()
    };
    let before = lists();
    let r = c
        .call_tool("changed", Some(json!({"count": 1000})))
        .await
        .unwrap();
    assert_eq!(first_text(&r), "changed");
    // Once all 1000 changes are on the bus, a marker change published behind them reaches the
    // catalog after every one of them: the refresh that takes it in follows every refresh the
    // flood caused. Prompts, which this server does not offer, cost no tools/list.
    let mut flood = 0;
    while flood < 1000 {
        if is_tools_change(&next_event(&mut events).await) {
            flood += 1;
        }
    }
    ctx.events.publish(ServerEvent::ListChanged {
        server: "changeable".into(),
        list: ListKind::Prompts,
    });
    loop {
        if let CoreEvent::Server(ServerEvent::CatalogUpdated { server, list, .. }) =
            next_event(&mut events).await
            && server == "changeable"
            && list != Some(ListKind::Tools)
        {
            break;
        }
    }
    let refreshes = lists() - before;
    assert!(refreshes >= 1, "1000 list_changed caused no refresh");
    assert!(
        refreshes <= 2,
        "1000 list_changed cost {refreshes} tools/list"
    );
    handle.stop().await.unwrap();
}

/// The next event on `events`, failing after 10 s.
async fn next_event(events: &mut switchboard_base::events::Listener) -> CoreEvent {
    tokio::time::timeout(Duration::from_secs(10), events.recv())
        .await
        .expect("an event within 10 s")
        .expect("the bus is open")
}

fn is_tools_change(event: &CoreEvent) -> bool {
    matches!(
        event,
        CoreEvent::Server(ServerEvent::ListChanged { server, list: ListKind::Tools })
            if server == "changeable"
    )
}

#[tokio::test]
async fn an_endless_list_stops_with_a_clear_error() {
    if !measured_alone("faults::an_endless_list_stops_with_a_clear_error") {
        return;
    }
    let h = Harness::new();
    let live = h.connect("endless", faulty("endless-pages")).await;
    let e = live.connection.list_tools().await.unwrap_err();
    assert!(e.message.contains("more than 10000 pages"), "{}", e.message);
    live.shutdown().await;
    let live = h.connect("fat", faulty("fat-pages")).await;
    let before = rss_kb();
    let e = live.connection.list_tools().await.unwrap_err();
    assert!(e.message.contains("64 MiB"), "{}", e.message);
    let grown = rss_kb().saturating_sub(before);
    assert!(grown < 200 * 1024, "RSS grew by {grown} kB");
    live.shutdown().await;
}

#[tokio::test]
async fn a_log_flood_during_a_hung_list_keeps_memory_bounded() {
    if !measured_alone("faults::a_log_flood_during_a_hung_list_keeps_memory_bounded") {
        return;
    }
    let h = Harness::new();
    // A window that reads nothing: the bus keeps what it can for it.
    let _lagging = h.events.streams();
    let live = h.connect("chatty", faulty("log-flood")).await;
    let before = rss_kb();
    // tools/list is answered only after 1500 log messages of 256 KiB (375 MiB in all).
    let tools = live.connection.list_tools().await.unwrap();
    assert!(!tools.is_empty());
    let grown = rss_kb().saturating_sub(before);
    assert!(grown < 120 * 1024, "RSS grew by {grown} kB");
    live.shutdown().await;
}
