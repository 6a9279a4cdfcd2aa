//! The supervisor in paused time, against servers on in-memory pipes: backoff, giving up, a stop
//! during connect, the Stopping state, and concurrent saves of one server.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use rmcp::ServiceExt;
use rmcp::transport::async_rw::AsyncRwTransport;

use super::*;
use crate::events::HostEvent;

#[test]
fn backoff_doubles_and_caps() {
    let p = RestartPolicy::default();
    assert_eq!(p.delay(1), Duration::from_secs(1));
    assert_eq!(p.delay(2), Duration::from_secs(2));
    assert_eq!(p.delay(4), Duration::from_secs(8));
    assert_eq!(p.delay(20), Duration::from_secs(60));
    assert_eq!(p.delay(200), Duration::from_secs(60));
}

/// A server with nothing but the handshake.
#[derive(Clone)]
struct Bare;

impl rmcp::ServerHandler for Bare {}

/// What the next connection attempt does.
enum Plan {
    Fail,
    Hang,
    Serve,
}

/// A scripted connector: each attempt takes the next plan (serving once the script runs out).
#[derive(Default)]
struct Script {
    plans: Mutex<VecDeque<Plan>>,
    attempts: AtomicUsize,
    /// Servers whose pipe is still open.
    alive: Arc<AtomicUsize>,
    /// The arguments of each definition served, in order.
    served: Mutex<Vec<Vec<String>>>,
    /// Aborting one crashes that server.
    servers: Mutex<Vec<tokio::task::AbortHandle>>,
}

/// Counts a server as alive until its task ends (EOF from the client, or a crash).
struct Alive(Arc<AtomicUsize>);

impl Drop for Alive {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Script {
    fn new(plans: impl IntoIterator<Item = Plan>) -> Arc<Self> {
        let s = Self::default();
        s.plans.lock().unwrap().extend(plans);
        Arc::new(s)
    }

    fn connector(self: &Arc<Self>) -> Connector {
        let script = self.clone();
        Arc::new(move |opts| {
            let script = script.clone();
            Box::pin(async move {
                script.attempts.fetch_add(1, Ordering::SeqCst);
                let plan = script.plans.lock().unwrap().pop_front();
                match plan.unwrap_or(Plan::Serve) {
                    Plan::Fail => Err(Error::new(ErrorCode::ConnectFailed, "refused")),
                    Plan::Hang => std::future::pending().await,
                    Plan::Serve => script.serve(opts).await,
                }
            })
        })
    }

    async fn serve(&self, opts: ConnectOptions) -> Result<Live> {
        self.served.lock().unwrap().push(opts.config.args.clone());
        let (client, server) = tokio::io::duplex(1 << 16);
        let (sr, sw) = tokio::io::split(server);
        self.alive.fetch_add(1, Ordering::SeqCst);
        let alive = Alive(self.alive.clone());
        let task = tokio::spawn(async move {
            let _alive = alive;
            if let Ok(running) = Bare.serve(AsyncRwTransport::new_server(sr, sw)).await {
                let _ = running.waiting().await;
            }
        });
        self.servers.lock().unwrap().push(task.abort_handle());
        let (cr, cw) = tokio::io::split(client);
        connection::connect_transport(opts, AsyncRwTransport::new_client(cr, cw)).await
    }

    fn crash_last(&self) {
        if let Some(task) = self.servers.lock().unwrap().last() {
            task.abort();
        }
    }
}

fn context(script: &Arc<Script>, bus: &Bus) -> HostContext {
    HostContext {
        config_file: PathBuf::from("<test>"),
        approver: Arc::new(crate::approvals::Deny),
        events: bus.clone(),
        base_env: BaseEnv::from_current(),
        secrets: Arc::new(crate::secrets::MemoryStore::default()),
        restart: RestartPolicy {
            initial: Duration::from_secs(1),
            max: Duration::from_secs(60),
            max_attempts: 3,
            stable_after: Duration::from_secs(60),
        },
        connector: script.connector(),
    }
}

fn server() -> ServerConfig {
    ServerConfig::stdio("unused", vec![])
}

/// The statuses published for `name` until `until` matches one (inclusive).
async fn statuses_until(
    events: &mut crate::events::Listener,
    until: impl Fn(&ServerStatus) -> bool,
) -> Vec<ServerStatus> {
    let mut seen = Vec::new();
    while let Some(event) = events.recv().await {
        if let HostEvent::Server(ServerEvent::Status { status, .. }) = event {
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
        ServerStatus::Starting { .. } => "starting",
        ServerStatus::Running { .. } => "running",
        ServerStatus::Stopping => "stopping",
        ServerStatus::Restarting { .. } => "restarting",
        ServerStatus::Failed { .. } => "failed",
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
    assert_eq!(delays, [1000, 2000, 4000], "{seen:?}");
    // The backoff really waited (paused time advances only through the sleeps).
    assert!(crashed_at.elapsed() >= Duration::from_secs(7));
    assert_eq!(script.attempts.load(Ordering::SeqCst), 4);
    assert!(handle.connection().is_err());
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
async fn concurrent_saves_leave_the_file_and_the_running_server_agreeing() {
    let script = Script::new([]);
    let bus = Bus::default();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("config.json");
    let mut ctx = context(&script, &bus);
    ctx.config_file = file.clone();
    let host = crate::host::Host::start(Config::default(), ctx);
    host.save_server("s", server(), None).await.unwrap();
    // A clone held elsewhere (a command in flight, the chat) keeps a supervisor alive.
    let held = host.servers().get("s").unwrap();
    held.wait_running(Duration::from_secs(5)).await.unwrap();
    let saves = (1..=4).map(|n| {
        let definition = ServerConfig::stdio("unused", vec![n.to_string()]);
        let host = host.clone();
        async move { host.save_server("s", definition, Some("s")).await }
    });
    for r in futures::future::join_all(saves).await {
        r.unwrap();
    }
    held.wait_running(Duration::from_secs(5)).await.unwrap();
    tokio::time::sleep(Duration::from_secs(5)).await;
    let saved = Config::load(&file).unwrap().mcp_servers["s"].args.clone();
    let running = script.served.lock().unwrap().last().cloned().unwrap();
    assert_eq!(saved, running, "the file and the running server agree");
    assert_eq!(script.alive.load(Ordering::SeqCst), 1, "one process");
}
