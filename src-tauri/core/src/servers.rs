//! Supervision: one task and one [`ServerState`] per configured server, published through one
//! watch channel. The task owns the connection and the process; everyone else reads the state
//! (the UI a derived [`ServerStatus`]) and borrows the live [`Connection`] (a cheap clone) for
//! requests, so no lock is ever held across a remote call. Every change to a server (start, stop,
//! restart, a new definition) is a command to its supervisor, so changes are applied one at a
//! time in the order they were asked for. Crashed servers restart with capped exponential
//! backoff; `stop` runs the spec's shutdown.

// What this module handles of sampling, roots or logging is deprecated by SEP-2577 for
// 2026-07-28 and later; Switchboard speaks every revision, and these are central to it.
#![allow(deprecated)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use indexmap::IndexMap;
use rmcp::model::Root;
use serde::Serialize;
use tokio::sync::{mpsc, oneshot, watch};
use ts_rs::TS;

use crate::catalog::{self, Catalog};
use crate::config::{Config, ServerConfig};
use crate::connection::{self, ConnectOptions, Connection, Live};
use crate::error::{Error, ErrorCode, Result};
pub use crate::events::ServerStatus;
use crate::events::{Bus, ServerEvent};
use crate::handler::Approver;
use crate::handler::roots_from_paths;
use crate::process::{BaseEnv, StderrRing};
use crate::secrets::SecretStore;
use crate::trust::Trust;

/// Stderr lines kept per server.
pub const STDERR_LINES: usize = 1000;

/// How restarts back off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RestartPolicy {
    /// Delay before the first restart; doubled for each further attempt.
    pub initial: Duration,
    /// Ceiling on the delay.
    pub max: Duration,
    /// Consecutive failed attempts before the server is left failed.
    pub max_attempts: u32,
    /// A connection that lived this long resets the attempt count.
    pub stable_after: Duration,
    /// How often a remote server is asked whether it is still there (also at once after a
    /// request to it failed at the transport or went unanswered).
    pub keepalive: Duration,
}

impl Default for RestartPolicy {
    fn default() -> Self {
        Self {
            initial: Duration::from_secs(1),
            max: Duration::from_secs(60),
            max_attempts: 8,
            stable_after: Duration::from_secs(60),
            keepalive: Duration::from_secs(15),
        }
    }
}

impl RestartPolicy {
    /// The delay before restart number `attempt` (1-based).
    pub fn delay(&self, attempt: u32) -> Duration {
        let factor = 1u32
            .checked_shl(attempt.saturating_sub(1))
            .unwrap_or(u32::MAX);
        self.initial.saturating_mul(factor).min(self.max)
    }

    /// [`delay`](Self::delay) with jitter: between half of it and all of it, as `unit` (in
    /// `0.0..=1.0`) picks, so servers that failed together do not all restart at once.
    pub fn jittered(&self, attempt: u32, unit: f64) -> Duration {
        self.delay(attempt)
            .mul_f64(0.5 + 0.5 * unit.clamp(0.0, 1.0))
    }
}

/// Opens a connection: the real one spawns or dials the server; tests pass an in-memory one.
pub type Connector = Arc<dyn Fn(ConnectOptions) -> BoxFuture<'static, Result<Live>> + Send + Sync>;

/// The connector that spawns stdio servers and dials remote ones.
pub fn real_connector() -> Connector {
    Arc::new(|opts| Box::pin(connection::connect(opts)))
}

/// What a supervisor is doing, with what it holds while connected. [`ServerStatus`] is derived
/// from it; the connection and catalog can only be had while the server is running.
#[derive(Debug, Clone)]
pub enum ServerState {
    /// Configured but disabled.
    Disabled,
    /// Not running (never started or stopped by the user).
    Stopped,
    /// Not started: its launch definition waits for the user's trust.
    NeedsTrust,
    /// Spawning or handshaking; `attempt` is 0 for a first start.
    Starting { attempt: u32 },
    /// Connected; the catalog is `None` until its first fetch completes.
    Running {
        connection: Connection,
        catalog: Option<Arc<Catalog>>,
    },
    /// The connection is being shut down; it takes no new requests.
    Stopping,
    /// Waiting to restart after a failure.
    Restarting {
        attempt: u32,
        retry_in: Duration,
        error: Error,
    },
    /// Gave up (or failed on a start the user asked for).
    Failed { error: Error },
}

impl ServerState {
    /// What the UI and CLI show.
    pub fn status(&self) -> ServerStatus {
        match self {
            ServerState::Disabled => ServerStatus::Disabled,
            ServerState::Stopped => ServerStatus::Stopped,
            ServerState::NeedsTrust => ServerStatus::NeedsTrust,
            ServerState::Starting { attempt } => ServerStatus::Starting { attempt: *attempt },
            ServerState::Running { connection, .. } => ServerStatus::Running {
                summary: connection.summary().clone(),
            },
            ServerState::Stopping => ServerStatus::Stopping,
            ServerState::Restarting {
                attempt,
                retry_in,
                error,
            } => ServerStatus::Restarting {
                attempt: *attempt,
                retry_in_ms: u64::try_from(retry_in.as_millis()).unwrap_or(u64::MAX),
                error: error.clone(),
            },
            ServerState::Failed { error } => ServerStatus::Failed {
                error: error.clone(),
            },
        }
    }

    /// The live connection, while running.
    pub fn connection(&self) -> Option<&Connection> {
        match self {
            ServerState::Running { connection, .. } => Some(connection),
            _ => None,
        }
    }

    /// The cached lists, once fetched while running.
    pub fn catalog(&self) -> Option<&Arc<Catalog>> {
        match self {
            ServerState::Running { catalog, .. } => catalog.as_ref(),
            _ => None,
        }
    }
}

enum Command {
    Start,
    Stop(oneshot::Sender<()>),
    Restart,
    /// A new definition and roots: the old connection ends, the new one starts if enabled.
    Replace {
        config: Box<ServerConfig>,
        roots: Vec<PathBuf>,
        ack: oneshot::Sender<()>,
    },
}

/// The sandbox `opts.server` starts in, if it is sandboxed and sandboxes are kept.
pub fn sandboxing(
    trust: &Trust,
    place: Option<&switchboard_sandbox::BoxPlace>,
    opts: &ConnectOptions,
) -> Option<connection::Sandboxing> {
    let profile = trust.sandbox(&opts.server, &opts.config)?;
    Some(connection::Sandboxing {
        place: place?.clone(),
        profile,
    })
}

/// A handle on one supervised server; clones share the same supervisor.
#[derive(Clone)]
pub struct ServerHandle {
    name: String,
    commands: mpsc::Sender<Command>,
    state: watch::Receiver<ServerState>,
    roots: Roots,
    stderr: StderrRing,
    /// Hosts its sandbox's proxy refused.
    refused_hosts: crate::egress::RefusedHosts,
}

/// Everything a supervisor needs besides the server's own config.
#[derive(Clone)]
pub struct SupervisorContext {
    pub config_file: PathBuf,
    pub approver: Arc<dyn Approver>,
    pub events: Bus,
    pub base_env: BaseEnv,
    pub secrets: Arc<dyn SecretStore>,
    pub restart: RestartPolicy,
    pub connector: Connector,
    /// Which launch definitions may run.
    pub trust: Trust,
    /// Where spawned children are recorded for reaping after a crash.
    pub records: Option<crate::process::records::ProcessRecords>,
    /// Where local servers' sandboxes live; none: no server is sandboxed (tests of other parts).
    pub sandbox: Option<switchboard_sandbox::BoxPlace>,
    /// Where each server's traffic is recorded.
    pub traffic: crate::traffic::Traffic,
}

impl ServerHandle {
    /// Starts supervising `name`. Enabled servers connect at once.
    pub fn spawn(
        name: &str,
        mut config: ServerConfig,
        roots: Vec<PathBuf>,
        ctx: &SupervisorContext,
    ) -> Self {
        // `roots` are its own, or the global ones it inherits: judged with them from the start.
        config.inherit_roots(&roots);
        let (commands, rx) = mpsc::channel(8);
        let untrusted = ctx.trust.verdict(name, &config) != crate::trust::TrustVerdict::Trusted;
        let initial = if config.enabled && untrusted {
            ServerState::NeedsTrust
        } else if config.enabled {
            ServerState::Starting { attempt: 0 }
        } else {
            ServerState::Disabled
        };
        let (state_tx, state) = watch::channel(initial);
        let (roots_tx, roots_rx) = watch::channel(roots_from_paths(&roots));
        let roots_tx = Roots {
            told: Arc::new(roots_tx),
            paths: Arc::new(std::sync::Mutex::new(roots)),
        };
        let stderr = StderrRing::new(STDERR_LINES);
        let refused_hosts = crate::egress::RefusedHosts::default();
        let opts = ConnectOptions {
            server: name.to_owned(),
            config_file: ctx.config_file.clone(),
            timeout: None,
            roots: roots_rx,
            approver: ctx.approver.clone(),
            events: ctx.events.clone(),
            base_env: ctx.base_env.clone(),
            secrets: ctx.secrets.clone(),
            stderr: stderr.clone(),
            records: ctx.records.clone(),
            sandbox: None,
            refused_hosts: refused_hosts.clone(),
            traffic: ctx.traffic.ring(name),
            config,
        };
        let supervisor = Supervisor {
            opts,
            roots: roots_tx.clone(),
            commands: rx,
            state: state_tx,
            events: ctx.events.clone(),
            policy: ctx.restart,
            connector: ctx.connector.clone(),
            trust: ctx.trust.clone(),
            place: ctx.sandbox.clone(),
            lost_remote: false,
            rejudge: Rejudge {
                trust: ctx.trust.changes(),
                roots: roots_tx.told.subscribe(),
            },
        };
        tokio::spawn(supervisor.run());
        Self {
            name: name.to_owned(),
            commands,
            state,
            roots: roots_tx,
            stderr,
            refused_hosts,
        }
    }

    /// The server's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The current status.
    pub fn status(&self) -> ServerStatus {
        self.state.borrow().status()
    }

    /// The current state.
    pub fn state(&self) -> ServerState {
        self.state.borrow().clone()
    }

    /// A receiver that sees every state change (catalog refreshes included).
    pub fn watch_state(&self) -> watch::Receiver<ServerState> {
        self.state.clone()
    }

    /// The live connection, or an error saying why there is none.
    pub fn connection(&self) -> Result<Connection> {
        let state = self.state.borrow();
        if let Some(c) = state.connection() {
            return Ok(c.clone());
        }
        let why = match &*state {
            ServerState::Failed { error } | ServerState::Restarting { error, .. } => {
                format!(": {}", error.message)
            }
            ServerState::Disabled => ": it is disabled".into(),
            ServerState::Stopped => ": it is stopped".into(),
            ServerState::NeedsTrust => {
                ": its definition is new or changed and waits for your trust".into()
            }
            ServerState::Stopping => ": it is stopping".into(),
            _ => ": it is still starting".into(),
        };
        Err(Error::new(
            ErrorCode::ServerNotRunning,
            format!("server {:?} is not running{why}", self.name),
        ))
    }

    /// Waits until the server is running (or has failed), up to `timeout`.
    pub async fn wait_running(&self, timeout: Duration) -> Result<Connection> {
        let mut state = self.state.clone();
        let wait = async {
            loop {
                match &*state.borrow_and_update() {
                    ServerState::Running { connection, .. } => return Ok(connection.clone()),
                    ServerState::Failed { error } => return Err(error.clone()),
                    ServerState::NeedsTrust => return Err(self.untrusted()),
                    _ => {}
                }
                if state.changed().await.is_err() {
                    return Err(Error::new(ErrorCode::Internal, "supervisor ended"));
                }
            }
        };
        tokio::time::timeout(timeout, wait).await.map_err(|_| {
            Error::new(
                ErrorCode::Timeout,
                format!(
                    "server {:?} did not start within {}s",
                    self.name,
                    timeout.as_secs()
                ),
            )
        })?
    }

    fn untrusted(&self) -> Error {
        Error::new(
            ErrorCode::NotTrusted,
            format!(
                "server {:?} is not trusted yet: review its definition and trust it first",
                self.name
            ),
        )
    }

    /// The running server's tools, prompts and templates, refreshed on `list_changed`; `None`
    /// until the first fetch after connecting completes.
    pub fn catalog(&self) -> Option<Arc<Catalog>> {
        self.state.borrow().catalog().cloned()
    }

    /// The most recent stderr lines.
    pub fn stderr(&self) -> Vec<String> {
        self.stderr.lines()
    }

    /// Starts a stopped or failed server.
    pub async fn start(&self) -> Result<()> {
        self.send(Command::Start).await
    }

    /// Restarts the server now (resets the backoff).
    pub async fn restart(&self) -> Result<()> {
        self.send(Command::Restart).await
    }

    /// Restarts the server and waits, up to `timeout`, until it runs again on a new connection
    /// (or fails): what a caller that changed what connecting uses (new tokens) waits for.
    pub async fn restart_and_wait(&self, timeout: Duration) -> Result<Connection> {
        let mut state = self.state.clone();
        let before = state.borrow_and_update().connection().cloned();
        self.restart().await?;
        let wait = async {
            loop {
                // Only states after the restart count.
                if state.changed().await.is_err() {
                    return Err(Error::new(ErrorCode::Internal, "supervisor ended"));
                }
                match &*state.borrow_and_update() {
                    // (The old connection's catalog arriving is a change too.)
                    ServerState::Running { connection, .. }
                        if before.as_ref().is_none_or(|old| !connection.same(old)) =>
                    {
                        return Ok(connection.clone());
                    }
                    ServerState::Failed { error } => return Err(error.clone()),
                    ServerState::NeedsTrust => return Err(self.untrusted()),
                    _ => {}
                }
            }
        };
        tokio::time::timeout(timeout, wait).await.map_err(|_| {
            Error::new(
                ErrorCode::Timeout,
                format!(
                    "server {:?} did not start again within {}s",
                    self.name,
                    timeout.as_secs()
                ),
            )
        })?
    }

    /// Stops the server and waits until its process group is gone.
    pub async fn stop(&self) -> Result<()> {
        let (tx, rx) = oneshot::channel();
        self.send(Command::Stop(tx)).await?;
        rx.await
            .map_err(|_| Error::new(ErrorCode::Internal, "supervisor ended during stop"))
    }

    /// Replaces the server's definition and roots: the running connection (if any) is shut
    /// down, then the new definition starts if it is enabled. Waits until the old one is gone.
    pub async fn replace(&self, config: ServerConfig, roots: &[PathBuf]) -> Result<()> {
        let (ack, done) = oneshot::channel();
        self.send(Command::Replace {
            config: Box::new(config),
            roots: roots.to_vec(),
            ack,
        })
        .await?;
        done.await
            .map_err(|_| Error::new(ErrorCode::Internal, "supervisor ended during replace"))
    }

    /// Replaces the roots this server sees and tells it with `notifications/roots/list_changed`.
    pub async fn set_roots(&self, roots: &[PathBuf]) -> Result<()> {
        if self.update_roots(roots) {
            self.notify_roots_changed().await?;
        }
        Ok(())
    }

    /// Replaces the roots this server sees; whether they changed. Tell the server with
    /// [`ServerHandle::notify_roots_changed`].
    pub fn update_roots(&self, roots: &[PathBuf]) -> bool {
        self.roots.keep_paths(roots);
        let roots = roots_from_paths(roots);
        self.roots.told.send_if_modified(|current| {
            if *current == roots {
                false
            } else {
                *current = roots;
                true
            }
        })
    }

    /// Sends `notifications/roots/list_changed`, if the server is running. A sandboxed server
    /// is restarted instead: its box was made for the old roots, and a running process's box
    /// can only narrow. Its stderr tab says why.
    pub async fn notify_roots_changed(&self) -> Result<()> {
        let connection = self.connection();
        if connection.as_ref().is_ok_and(Connection::sandboxed) {
            self.stderr.push(
                "[switchboard] Restarting it with its new roots: a sandboxed server's box is \
                 made when it starts and cannot be widened while it runs."
                    .into(),
            );
            return self.restart().await;
        }
        match connection {
            Ok(connection) => connection.notify_roots_changed().await,
            Err(_) => Ok(()),
        }
    }

    async fn send(&self, command: Command) -> Result<()> {
        self.commands
            .send(command)
            .await
            .map_err(|_| Error::new(ErrorCode::Internal, "supervisor ended"))
    }
}

/// A server's roots: as told to it (shared with its connection), and the paths they were made
/// from (what its trust is judged with).
#[derive(Clone)]
struct Roots {
    told: Arc<watch::Sender<Vec<Root>>>,
    paths: Arc<std::sync::Mutex<Vec<PathBuf>>>,
}

impl Roots {
    fn keep_paths(&self, paths: &[PathBuf]) {
        if let Ok(mut kept) = self.paths.lock() {
            *kept = paths.to_vec();
        }
    }

    fn paths(&self) -> Vec<PathBuf> {
        self.paths.lock().map(|p| p.clone()).unwrap_or_default()
    }
}

struct Supervisor {
    opts: ConnectOptions,
    /// The roots the connection hands out (the handle changes them too, with a notification).
    roots: Roots,
    commands: mpsc::Receiver<Command>,
    state: watch::Sender<ServerState>,
    events: Bus,
    policy: RestartPolicy,
    connector: Connector,
    trust: Trust,
    place: Option<switchboard_sandbox::BoxPlace>,
    /// A remote server was lost while connected: it is tried again until it is back (a network
    /// that drops, a laptop that slept), however many attempts that takes.
    lost_remote: bool,
    /// What, changed since it was last judged, makes an untrusted server judged again.
    rejudge: Rejudge,
}

/// Trust and the roots a server is judged with: a server waiting for trust is judged again when
/// either changes. Its definition may have been trusted while it was being judged (a grant and
/// the roots it was for land apart: the roots dialog grants first, saves after, and takes a
/// grant back when the save fails), and nothing else would wake it.
struct Rejudge {
    trust: watch::Receiver<u64>,
    roots: watch::Receiver<Vec<Root>>,
}

impl Rejudge {
    /// Marks what it is judged against now as seen.
    fn judging(&mut self) {
        self.trust.borrow_and_update();
        self.roots.borrow_and_update();
    }

    /// Waits until one of them changes after it was judged; forever once neither can.
    async fn changed(&mut self) {
        tokio::select! {
            Ok(()) = self.trust.changed() => {}
            Ok(()) = self.roots.changed() => {}
            else => std::future::pending().await,
        }
    }
}

/// How a connected phase ended.
enum Ended {
    /// The connection closed or the process died.
    Lost(Error),
    /// The user asked for a restart.
    Restart,
    /// The user stopped the server; acknowledged once it is down.
    Stop(oneshot::Sender<()>),
    /// A new definition and roots; acknowledged once the old connection is down.
    Replace(Box<ServerConfig>, Vec<PathBuf>, oneshot::Sender<()>),
    /// Every handle is gone.
    Gone,
}

/// What ended a phase of the supervisor loop.
enum Next {
    /// Try to (re)connect.
    Connect,
    /// Wait for a command (stopped, disabled, failed, or every handle is gone).
    Idle,
    /// The connection failed or died.
    Failed(Error),
    /// Every handle is gone.
    Exit,
}

impl Supervisor {
    /// Publishes a new state; the UI hears of it when the derived status changed.
    fn set(&self, state: ServerState) {
        let status = state.status();
        let old = self.state.send_replace(state);
        if old.status() != status {
            self.events.publish(ServerEvent::Status {
                server: self.opts.server.clone(),
                status,
            });
        }
    }

    async fn run(mut self) {
        let mut attempt = 0u32;
        let mut next = if self.opts.config.enabled {
            Next::Connect
        } else {
            Next::Idle
        };
        loop {
            next = match next {
                Next::Exit => return,
                Next::Idle => self.idle(&mut attempt).await,
                Next::Connect => self.connect(&mut attempt).await,
                Next::Failed(error) => self.back_off(error, &mut attempt).await,
            };
        }
    }

    /// Not connected: waits for the user, or, when it waits for trust, for a change to trust or
    /// to its roots, after which it is judged again.
    async fn idle(&mut self, attempt: &mut u32) -> Next {
        self.settle_stopped();
        if !matches!(*self.state.borrow(), ServerState::NeedsTrust) {
            let command = self.commands.recv().await;
            return self.on_command(command, attempt);
        }
        tokio::select! {
            command = self.commands.recv() => self.on_command(command, attempt),
            () = self.rejudge.changed() => Next::Connect,
        }
    }

    /// Shows the server as stopped, unless it is disabled, failed or untrusted (which say more).
    fn settle_stopped(&self) {
        let keep = matches!(
            *self.state.borrow(),
            ServerState::Failed { .. } | ServerState::Disabled | ServerState::NeedsTrust
        );
        if !keep {
            self.set(ServerState::Stopped);
        }
    }

    /// What a command means while not connected (idle, connecting or backing off).
    fn on_command(&mut self, command: Option<Command>, attempt: &mut u32) -> Next {
        match command {
            None => Next::Exit,
            Some(Command::Stop(ack)) => {
                self.settle_stopped();
                let _ = ack.send(());
                Next::Idle
            }
            Some(Command::Start | Command::Restart) => {
                *attempt = 0;
                Next::Connect
            }
            Some(Command::Replace { config, roots, ack }) => {
                *attempt = 0;
                let next = self.adopt(*config, roots);
                let _ = ack.send(());
                next
            }
        }
    }

    /// Takes a new definition and its roots (together, once the old connection is down); connects
    /// if it is enabled.
    fn adopt(&mut self, mut config: ServerConfig, roots: Vec<PathBuf>) -> Next {
        let enabled = config.enabled;
        config.inherit_roots(&roots);
        self.opts.config = config;
        self.roots.keep_paths(&roots);
        self.roots.told.send_replace(roots_from_paths(&roots));
        if enabled {
            Next::Connect
        } else {
            self.set(ServerState::Disabled);
            Next::Idle
        }
    }

    async fn connect(&mut self, attempt: &mut u32) -> Next {
        // This start's options, its env file read once: what is checked is what is spawned.
        let mut opts = self.opts.clone();
        opts.config = switchboard_protocol::env_file::read_once(&opts.config);
        // Judged with the roots its box will be given now, whatever they were when it was defined.
        self.rejudge.judging();
        let judged = self.roots.paths();
        opts.config.inherit_roots(&judged);
        // Nothing the user has not trusted is spawned or dialed, however it got into the file.
        if !self.trust.admit(&opts.server, &opts.config) {
            self.set(ServerState::NeedsTrust);
            return Next::Idle;
        }
        self.set(ServerState::Starting { attempt: *attempt });
        // Decided at each start: the definition, its trust or its roots may have changed.
        opts.sandbox = sandboxing(&self.trust, self.place.as_ref(), &opts);
        let mut connecting = std::pin::pin!((self.connector)(opts));
        loop {
            let command = tokio::select! {
                result = &mut connecting => return match result {
                    // Its roots changed while it started: its box may hold ones it was not
                    // judged with, so it starts again and is judged with them.
                    Ok(live) if self.roots.paths() != judged => {
                        live.shutdown().await;
                        Next::Connect
                    }
                    Ok(live) => self.serve(live, attempt).await,
                    Err(e) => Next::Failed(e),
                },
                command = self.commands.recv() => command,
            };
            // Started while it starts (trusted, it was judged again on its own): one start.
            if !matches!(command, Some(Command::Start)) {
                // Dropping `connecting` kills a half-started process (its group is owned there).
                return self.on_command(command, attempt);
            }
        }
    }

    async fn back_off(&mut self, error: Error, attempt: &mut u32) -> Next {
        *attempt += 1;
        tracing::warn!(server = %self.opts.server, attempt = *attempt, "{}", error.message);
        // Trying again cannot help a server that wants the person to sign in first (one with a
        // machine grant signs in by itself when dialled again: its tokens expire without a
        // refresh token), nor one whose authorization server refused the credentials it was
        // configured with: asking again is asking to be locked out.
        let gave_up = *attempt > self.policy.max_attempts && !self.lost_remote;
        let unattended = self
            .opts
            .config
            .oauth
            .as_ref()
            .is_some_and(|o| o.grant != crate::config::OAuthGrant::AuthorizationCode);
        let person_needed = error.needs_sign_in() && !unattended;
        if gave_up || person_needed || error.code == ErrorCode::SignInRefused {
            self.set(ServerState::Failed { error });
            return Next::Idle;
        }
        let delay = self.policy.jittered(*attempt, rand::random::<f64>());
        self.set(ServerState::Restarting {
            attempt: *attempt,
            retry_in: delay,
            error,
        });
        tokio::select! {
            _ = tokio::time::sleep(delay) => Next::Connect,
            command = self.commands.recv() => self.on_command(command, attempt),
        }
    }

    /// Runs while connected; returns what to do once the connection ends.
    async fn serve(&mut self, mut live: Live, attempt: &mut u32) -> Next {
        let connection = live.connection.clone();
        // Subscribed before the server is announced, so no list change is missed.
        let state = self.state.clone();
        let ours = connection.clone();
        let keeper = tokio::spawn(catalog::keep(
            connection.clone(),
            self.events.control(),
            self.events.clone(),
            move |catalog| store_catalog(&state, &ours, catalog),
        ));
        let ended = self.serve_connected(&mut live, attempt).await;
        keeper.abort();
        self.set(ServerState::Stopping);
        live.shutdown().await;
        self.lost_remote = matches!(ended, Ended::Lost(_)) && self.opts.config.url.is_some();
        match ended {
            Ended::Lost(error) => Next::Failed(error),
            Ended::Restart => Next::Connect,
            Ended::Stop(ack) => {
                self.set(ServerState::Stopped);
                let _ = ack.send(());
                Next::Idle
            }
            Ended::Replace(config, roots, ack) => {
                let next = self.adopt(*config, roots);
                let _ = ack.send(());
                next
            }
            Ended::Gone => Next::Exit,
        }
    }

    async fn serve_connected(&mut self, live: &mut Live, attempt: &mut u32) -> Ended {
        let connection = live.connection.clone();
        self.set(ServerState::Running {
            connection: connection.clone(),
            catalog: None,
        });
        let since = Instant::now();
        let closed = live.closed.clone();
        let gone = keep_alive(connection.clone(), self.policy.keepalive);
        tokio::pin!(gone);
        loop {
            tokio::select! {
                error = &mut gone => {
                    connection.lose(error.clone());
                    return Ended::Lost(error);
                }
                _ = closed.cancelled() => {
                    let exit = match live.process.as_mut() {
                        Some(group) => {
                            let exit = tokio::time::timeout(Duration::from_millis(500), group.wait()).await.ok().flatten();
                            // Its last stderr line goes into the error: read to the end first.
                            group.stderr_read(Duration::from_secs(2)).await;
                            exit
                        }
                        None => None,
                    };
                    // A sign-in the server stopped accepting says more than "disconnected".
                    let error = connection
                        .close_reason()
                        .filter(Error::needs_sign_in)
                        .unwrap_or_else(|| connection_lost(&connection, exit));
                    if since.elapsed() >= self.policy.stable_after {
                        *attempt = 0;
                    }
                    return Ended::Lost(error);
                }
                command = self.commands.recv() => match command {
                    Some(Command::Start) => continue,
                    Some(Command::Restart) => { *attempt = 0; return Ended::Restart }
                    Some(Command::Stop(ack)) => return Ended::Stop(ack),
                    Some(Command::Replace { config, roots, ack }) => { *attempt = 0; return Ended::Replace(config, roots, ack) }
                    None => return Ended::Gone,
                },
            }
        }
    }
}

/// Resolves, with why, once a remote server stops answering: asked every `every`, and at once
/// after a request to it failed at the transport or went unanswered. Never resolves for a local
/// server, whose loss closes its pipes.
async fn keep_alive(connection: Connection, every: Duration) -> Error {
    if !connection.is_remote() {
        return std::future::pending().await;
    }
    let within = every.clamp(Duration::from_secs(2), Duration::from_secs(10));
    loop {
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = connection.suspected() => {}
        }
        match connection.ping_within(within).await {
            // An error answer is an answer: the server is there.
            Ok(()) => {}
            Err(e) if e.code == ErrorCode::ServerError => {}
            Err(e) if e.needs_sign_in() => return e,
            Err(e) => {
                return Error::new(
                    ErrorCode::TransportClosed,
                    format!(
                        "server {:?} stopped answering ({}); reconnecting",
                        connection.server(),
                        e.message
                    ),
                );
            }
        }
    }
}

/// Puts a fresh catalog into the state, if the state is still this connection's.
fn store_catalog(state: &watch::Sender<ServerState>, ours: &Connection, fresh: Arc<Catalog>) {
    state.send_if_modified(|s| match s {
        ServerState::Running {
            connection,
            catalog,
        } if connection.same(ours) => {
            *catalog = Some(fresh);
            true
        }
        _ => false,
    });
}

fn connection_lost(connection: &Connection, exit: Option<String>) -> Error {
    let mut message = format!("server {:?} disconnected", connection.server());
    if let Some(status) = exit {
        message = format!("server {:?} exited ({status})", connection.server());
    }
    let tail = connection.stderr();
    if let Some(last) = tail.last() {
        message.push_str(&format!("; last stderr line: {last}"));
    }
    Error::new(ErrorCode::TransportClosed, message)
}

/// All supervised servers of one host, in config order. Handles are cloned out, so the lock is
/// only held for map lookups and never across an await.
#[derive(Clone)]
pub struct Servers {
    ctx: SupervisorContext,
    handles: Arc<RwLock<IndexMap<String, ServerHandle>>>,
}

impl Servers {
    /// Starts a supervisor for every server in `config`. Must run inside a tokio runtime.
    pub fn start(config: &Config, ctx: SupervisorContext) -> Self {
        let handles = config
            .mcp_servers
            .iter()
            .map(|(name, server)| {
                (
                    name.clone(),
                    ServerHandle::spawn(name, server.clone(), config.roots_for(name), &ctx),
                )
            })
            .collect();
        Self {
            ctx,
            handles: Arc::new(RwLock::new(handles)),
        }
    }

    /// What every supervisor of this host was given.
    pub fn context(&self) -> &SupervisorContext {
        &self.ctx
    }

    /// The config file these servers came from.
    pub fn config_file(&self) -> &Path {
        &self.ctx.config_file
    }

    /// A server's handle.
    pub fn get(&self, name: &str) -> Result<ServerHandle> {
        self.read()?.get(name).cloned().ok_or_else(|| {
            Error::new(
                ErrorCode::ServerNotFound,
                format!("no server named {name:?}"),
            )
        })
    }

    /// Every handle, in config order.
    pub fn all(&self) -> Vec<ServerHandle> {
        self.read()
            .map(|m| m.values().cloned().collect())
            .unwrap_or_default()
    }

    /// Adds a server, or gives an existing one its new definition through its supervisor, so
    /// that concurrent saves of one server are applied one after the other and never leave two
    /// processes running.
    pub async fn upsert(
        &self,
        name: &str,
        config: ServerConfig,
        roots: Vec<PathBuf>,
    ) -> Result<()> {
        let existing = {
            let mut map = self.write()?;
            match map.get(name) {
                Some(handle) => Some(handle.clone()),
                None => {
                    let handle =
                        ServerHandle::spawn(name, config.clone(), roots.clone(), &self.ctx);
                    map.insert(name.to_owned(), handle);
                    None
                }
            }
        };
        match existing {
            Some(handle) => handle.replace(config, &roots).await,
            None => Ok(()),
        }
    }

    /// Stops and forgets a server.
    pub async fn remove(&self, name: &str) -> Result<()> {
        // A host that does not supervise (the CLI) has no handle for a configured server.
        let old = self.write()?.shift_remove(name);
        match old {
            Some(h) => h.stop().await,
            None => Ok(()),
        }
    }

    /// Stops every server (host exit).
    pub async fn shutdown(&self) {
        let all = self.all();
        futures::future::join_all(all.iter().map(|h| h.stop())).await;
    }

    fn read(&self) -> Result<std::sync::RwLockReadGuard<'_, IndexMap<String, ServerHandle>>> {
        self.handles
            .read()
            .map_err(|_| Error::new(ErrorCode::Internal, "server map lock poisoned"))
    }

    fn write(&self) -> Result<std::sync::RwLockWriteGuard<'_, IndexMap<String, ServerHandle>>> {
        self.handles
            .write()
            .map_err(|_| Error::new(ErrorCode::Internal, "server map lock poisoned"))
    }
}

#[cfg(test)]
pub(crate) mod scripted;
#[cfg(test)]
mod tests;

/// One server as the servers list shows it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ServerView {
    pub name: String,
    pub status: ServerStatus,
    /// The last lines the server wrote to stderr.
    pub stderr_tail: Vec<String>,
    /// The server's configuration as the file has it (secret references, never secrets).
    pub config: Option<ServerConfig>,
    /// Whether it runs in the OS sandbox.
    pub sandbox: crate::trust::SandboxState,
    /// What the sandbox may have refused it, read from its recent stderr (sandboxed servers).
    pub sandbox_hint: Option<String>,
    /// Hosts its sandbox refused (a server limited to listed hosts), oldest first.
    pub refused_hosts: Vec<String>,
}

impl ServerHandle {
    /// The list view of this server, with at most `tail` stderr lines.
    pub fn view(&self, tail: usize) -> ServerView {
        let lines = self.stderr();
        let start = lines.len().saturating_sub(tail);
        ServerView {
            name: self.name.clone(),
            status: self.status(),
            stderr_tail: lines[start..].to_vec(),
            config: None,
            sandbox: crate::trust::SandboxState::Remote,
            sandbox_hint: None,
            refused_hosts: self.refused_hosts.list(),
        }
    }
}
