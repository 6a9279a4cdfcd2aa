//! The supervisor in paused time, against servers on in-memory pipes: backoff, giving up, a stop
//! during connect, the Stopping state, and concurrent saves of one server.

use std::sync::atomic::Ordering;

use super::scripted::{Plan, Script, context, server};
use super::*;
use crate::events::CoreEvent;

#[test]
fn backoff_doubles_caps_and_jitters() {
    let p = RestartPolicy::default();
    assert_eq!(p.delay(1), Duration::from_secs(1));
    assert_eq!(p.delay(2), Duration::from_secs(2));
    assert_eq!(p.delay(4), Duration::from_secs(8));
    assert_eq!(p.delay(20), Duration::from_secs(60));
    assert_eq!(p.delay(200), Duration::from_secs(60));
    // Jittered: between half the delay and all of it, spread by the draw.
    assert_eq!(p.jittered(4, 0.0), Duration::from_secs(4));
    assert_eq!(p.jittered(4, 1.0), Duration::from_secs(8));
    assert_eq!(p.jittered(4, 7.0), Duration::from_secs(8));
    let draws: std::collections::BTreeSet<Duration> = (0..20)
        .map(|_| p.jittered(3, rand::random::<f64>()))
        .collect();
    assert!(draws.len() > 10, "{draws:?}");
}

/// The statuses published for `name` until `until` matches one (inclusive).
async fn statuses_until(
    events: &mut crate::events::Listener,
    until: impl Fn(&ServerStatus) -> bool,
) -> Vec<ServerStatus> {
    let mut seen = Vec::new();
    while let Some(event) = events.recv().await {
        if let CoreEvent::Server(ServerEvent::Status { status, .. }) = event {
            let done = until(&status);
            seen.push(status);
            if done {
                break;
            }
        }
    }
    seen
}

fn state_name(s: &ServerStatus) -> &'static str {
    match s {
        ServerStatus::Disabled => "disabled",
        ServerStatus::Stopped => "stopped",
        ServerStatus::NeedsTrust => "needs_trust",
        ServerStatus::Starting { .. } => "starting",
        ServerStatus::Running { .. } => "running",
        ServerStatus::Stopping => "stopping",
        ServerStatus::Restarting { .. } => "restarting",
        ServerStatus::Failed { .. } => "failed",
        ServerStatus::Invalid { .. } => "invalid",
    }
}

#[tokio::test(start_paused = true)]
async fn a_crash_restarts_with_doubling_backoff_then_gives_up() {
    let script = Script::new([Plan::Serve, Plan::Fail, Plan::Fail, Plan::Fail, Plan::Fail]);
    let bus = Bus::default();
    let mut events = bus.control();
    let handle = ServerHandle::spawn("s", server(), vec![], &context(&script, &bus));
    handle.wait_running(Duration::from_secs(5)).await.unwrap();
    let crashed_at = tokio::time::Instant::now();
    script.crash_last();
    let seen = statuses_until(&mut events, |s| matches!(s, ServerStatus::Failed { .. })).await;
    let delays: Vec<u64> = seen
        .iter()
        .filter_map(|s| match s {
            ServerStatus::Restarting { retry_in_ms, .. } => Some(*retry_in_ms),
            _ => None,
        })
        .collect();
    // Doubling, each jittered between half and all of it.
    assert_eq!(delays.len(), 3, "{seen:?}");
    for (delay, full) in delays.iter().zip([1000, 2000, 4000]) {
        assert!((full / 2..=full).contains(delay), "{delays:?}");
    }
    // The backoff really waited (paused time advances only through the sleeps).
    assert!(crashed_at.elapsed() >= Duration::from_millis(delays.iter().sum()));
    assert_eq!(script.attempts.load(Ordering::SeqCst), 4);
    assert!(handle.connection().is_err());
}

/// Roots changed while a server starts: its box may hold ones its trust was not judged with, so
/// the start is dropped and judged again with them (here: not trusted with them, so it waits).
#[tokio::test(start_paused = true)]
async fn roots_changed_during_a_start_are_judged_before_it_serves() {
    let gate = Arc::new(tokio::sync::Notify::new());
    let script = Script::new([Plan::ServeAfter(gate.clone())]);
    let bus = Bus::default();
    let mut events = bus.control();
    let ctx = trusting_nothing(&script, &bus);
    let first = vec![PathBuf::from("/projects")];
    let mut trusted = server();
    trusted.inherit_roots(&first);
    ctx.trust.grant("s", &trusted).unwrap();
    let handle = ServerHandle::spawn("s", server(), first.clone(), &ctx);
    // The start is under way (waiting at the gate) once the connector was entered.
    while script.attempts.load(Ordering::SeqCst) == 0 {
        tokio::task::yield_now().await;
    }
    handle.update_roots(&[first[0].clone(), PathBuf::from("/home/me")]);
    gate.notify_one();
    let seen = statuses_until(&mut events, |s| {
        matches!(s, ServerStatus::NeedsTrust | ServerStatus::Running { .. })
    })
    .await;
    assert_eq!(seen.last(), Some(&ServerStatus::NeedsTrust), "{seen:?}");
    assert!(handle.connection().is_err());
}

/// Waits (in paused time, up to a minute) until the server publishes `Running`.
async fn runs(events: &mut crate::events::Listener) -> bool {
    let running = statuses_until(events, |s| matches!(s, ServerStatus::Running { .. }));
    tokio::time::timeout(Duration::from_secs(60), running)
        .await
        .is_ok()
}

/// A context whose trust is kept in a store of its own, trusting nothing yet.
fn trusting_nothing(script: &Arc<Script>, bus: &Bus) -> SupervisorContext {
    let mut ctx = context(script, bus);
    let store = Arc::new(crate::store::Store::in_memory().unwrap());
    ctx.trust = crate::trust::Trust::load(store).unwrap();
    ctx
}

/// A server waiting for trust runs once its definition is trusted, with no command: the roots
/// dialog trusts servers while they restart, and takes a grant back when the save fails, so a
/// server may be judged between two grants and would otherwise wait for good.
#[tokio::test(start_paused = true)]
async fn a_server_waiting_for_trust_runs_once_it_is_trusted() {
    let script = Script::new([Plan::Serve]);
    let bus = Bus::default();
    let mut events = bus.control();
    let ctx = trusting_nothing(&script, &bus);
    let handle = ServerHandle::spawn("s", server(), vec![], &ctx);
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(handle.status(), ServerStatus::NeedsTrust);
    ctx.trust.grant("s", &server()).unwrap();
    assert!(runs(&mut events).await, "still {:?}", handle.status());
    assert_eq!(script.attempts.load(Ordering::SeqCst), 1);
}

/// A server judged with roots it was not trusted with waits; the roots it was trusted with
/// arriving afterwards (the dialog grants before it saves them) start it.
#[tokio::test(start_paused = true)]
async fn a_server_waiting_for_trust_runs_once_its_trusted_roots_arrive() {
    let script = Script::new([Plan::Serve]);
    let bus = Bus::default();
    let mut events = bus.control();
    let ctx = trusting_nothing(&script, &bus);
    let roots = vec![PathBuf::from("/projects")];
    let mut trusted = server();
    trusted.inherit_roots(&roots);
    ctx.trust.grant("s", &trusted).unwrap();
    let handle = ServerHandle::spawn("s", server(), vec![], &ctx);
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(handle.status(), ServerStatus::NeedsTrust);
    handle.update_roots(&roots);
    assert!(runs(&mut events).await, "still {:?}", handle.status());
}

#[tokio::test(start_paused = true)]
async fn a_server_that_wants_sign_in_is_not_retried_and_keeps_its_challenge() {
    let script = Script::new([Plan::NeedsSignIn]);
    let bus = Bus::default();
    let mut events = bus.control();
    let handle = ServerHandle::spawn("s", server(), vec![], &context(&script, &bus));
    let seen = statuses_until(&mut events, |s| matches!(s, ServerStatus::Failed { .. })).await;
    assert!(
        !seen
            .iter()
            .any(|s| matches!(s, ServerStatus::Restarting { .. })),
        "{seen:?}"
    );
    tokio::time::sleep(Duration::from_secs(60)).await;
    assert_eq!(script.attempts.load(Ordering::SeqCst), 1);
    // The challenge stays with the state, for the Sign in that follows.
    match handle.state() {
        ServerState::Failed { error } => {
            assert_eq!(error.code, ErrorCode::AuthRequired);
            assert!(error.challenge.is_some());
        }
        other => panic!("{:?}", other.status()),
    }
}

#[tokio::test(start_paused = true)]
async fn a_stop_during_connect_ends_the_attempt() {
    let script = Script::new([Plan::Hang]);
    let bus = Bus::default();
    let handle = ServerHandle::spawn("s", server(), vec![], &context(&script, &bus));
    tokio::time::sleep(Duration::from_millis(10)).await;
    assert!(matches!(handle.status(), ServerStatus::Starting { .. }));
    tokio::time::timeout(Duration::from_secs(1), handle.stop())
        .await
        .expect("a stop does not wait for the handshake")
        .unwrap();
    assert_eq!(handle.status(), ServerStatus::Stopped);
    tokio::time::sleep(Duration::from_secs(120)).await;
    assert_eq!(
        script.attempts.load(Ordering::SeqCst),
        1,
        "no retry after a stop"
    );
}

#[tokio::test(start_paused = true)]
async fn the_status_says_stopping_until_the_connection_is_down() {
    let script = Script::new([Plan::Serve]);
    let bus = Bus::default();
    let mut events = bus.control();
    let handle = ServerHandle::spawn("s", server(), vec![], &context(&script, &bus));
    handle.wait_running(Duration::from_secs(5)).await.unwrap();
    let stop = handle.clone();
    let stopping = tokio::spawn(async move { stop.stop().await });
    let seen = statuses_until(&mut events, |s| *s == ServerStatus::Stopped).await;
    let names: Vec<_> = seen.iter().map(state_name).collect();
    assert_eq!(names, ["running", "stopping", "stopped"]);
    stopping.await.unwrap().unwrap();
    assert!(
        handle.connection().is_err(),
        "no connection is lent out once stopping"
    );
}

#[tokio::test(start_paused = true)]
async fn concurrent_saves_of_one_server_leave_one_running() {
    let script = Script::new([]);
    let bus = Bus::default();
    let servers = Servers::start(&Config::default(), context(&script, &bus));
    let saves = (0..4).map(|_| servers.upsert("s", server(), vec![]));
    for r in futures::future::join_all(saves).await {
        r.unwrap();
    }
    let handle = servers.get("s").unwrap();
    handle.wait_running(Duration::from_secs(5)).await.unwrap();
    // Give replaced connections' servers time to see their pipe close.
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(script.alive.load(Ordering::SeqCst), 1);
    assert_eq!(servers.all().len(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_replaced_definition_that_is_disabled_stops_the_server() {
    let script = Script::new([]);
    let bus = Bus::default();
    let servers = Servers::start(&Config::default(), context(&script, &bus));
    servers.upsert("s", server(), vec![]).await.unwrap();
    let handle = servers.get("s").unwrap();
    handle.wait_running(Duration::from_secs(5)).await.unwrap();
    let mut off = server();
    off.enabled = false;
    servers.upsert("s", off, vec![]).await.unwrap();
    assert_eq!(handle.status(), ServerStatus::Disabled);
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(script.alive.load(Ordering::SeqCst), 0);
}

#[tokio::test(start_paused = true)]
async fn an_untrusted_definition_is_never_spawned_and_a_changed_one_asks_again() {
    let script = Script::new([]);
    let bus = Bus::default();
    let ctx = trusting_nothing(&script, &bus);
    let trust = ctx.trust.clone();
    let handle = ServerHandle::spawn("s", server(), vec![], &ctx);
    assert_eq!(handle.status(), ServerStatus::NeedsTrust);
    handle.start().await.unwrap();
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(handle.status(), ServerStatus::NeedsTrust);
    assert_eq!(
        script.attempts.load(Ordering::SeqCst),
        0,
        "nothing was spawned"
    );
    let e = handle
        .wait_running(Duration::from_secs(5))
        .await
        .unwrap_err();
    assert_eq!(e.code, crate::ErrorCode::NotTrusted, "{e}");

    trust.grant("s", &server()).unwrap();
    handle.start().await.unwrap();
    // The supervisor takes the command (the state still says "needs trust" until it does).
    tokio::time::sleep(Duration::from_millis(1)).await;
    handle.wait_running(Duration::from_secs(5)).await.unwrap();
    assert_eq!(script.attempts.load(Ordering::SeqCst), 1);

    let mut changed = server();
    changed.args.push("--evil".into());
    handle.replace(changed, &[]).await.unwrap();
    tokio::time::sleep(Duration::from_secs(5)).await;
    assert_eq!(handle.status(), ServerStatus::NeedsTrust);
    assert_eq!(
        script.attempts.load(Ordering::SeqCst),
        1,
        "the change was not spawned"
    );
}
