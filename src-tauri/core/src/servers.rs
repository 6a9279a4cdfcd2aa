//! Supervision: one task and one state per configured server. The task owns the connection and
//! the process; everyone else sees a derived [`ServerStatus`] through a watch channel and borrows
//! the live [`Connection`] (cheap clone) for requests, so no lock is ever held across a remote
//! call. Crashed servers restart with capped exponential backoff; `stop` runs the spec's shutdown.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use indexmap::IndexMap;
use rmcp::model::Root;
use serde::Serialize;
use tokio::sync::{mpsc, oneshot, watch};
use ts_rs::TS;

use crate::approvals::Approver;
use crate::catalog::{self, Catalog};
use crate::config::{Config, ServerConfig};
use crate::connection::{self, ConnectOptions, Connection, Live, ServerSummary};
use crate::error::{Error, ErrorCode, Result};
use crate::events::{EventSender, HostEvent};
use crate::handler::roots_from_paths;
use crate::process::{BaseEnv, StderrRing};
use crate::secrets::SecretStore;

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
}

impl Default for RestartPolicy {
    fn default() -> Self {
        Self {
            initial: Duration::from_secs(1),
            max: Duration::from_secs(60),
            max_attempts: 8,
            stable_after: Duration::from_secs(60),
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
}

/// What the UI and CLI see of a server.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(
    tag = "state",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[ts(export)]
pub enum ServerStatus {
    /// Configured but disabled.
    Disabled,
    /// Not running (never started or stopped by the user).
    Stopped,
    /// Spawning or handshaking; `attempt` is 0 for a first start.
    Starting { attempt: u32 },
    /// Connected.
    Running { summary: ServerSummary },
    /// Waiting to restart after a failure.
    Restarting {
        attempt: u32,
        #[ts(type = "number")]
        retry_in_ms: u64,
        error: Error,
    },
    /// Gave up (or failed on a start the user asked for); `error` says why.
    Failed { error: Error },
}

enum Command {
    Start,
    Stop(oneshot::Sender<()>),
    Restart,
}

/// A handle on one supervised server; clones share the same supervisor.
#[derive(Clone)]
pub struct ServerHandle {
    name: String,
    commands: mpsc::Sender<Command>,
    status: watch::Receiver<ServerStatus>,
    connection: watch::Receiver<Option<Connection>>,
    catalog: watch::Receiver<Option<Arc<Catalog>>>,
    roots: Arc<watch::Sender<Vec<Root>>>,
    stderr: StderrRing,
}

/// Everything a supervisor needs besides the server's own config.
#[derive(Clone)]
pub struct HostContext {
    pub config_file: PathBuf,
    pub approver: Arc<dyn Approver>,
    pub events: EventSender,
    pub base_env: BaseEnv,
    pub secrets: Arc<dyn SecretStore>,
    pub restart: RestartPolicy,
}

impl ServerHandle {
    /// Starts supervising `name`. Enabled servers connect at once.
    pub fn spawn(name: &str, config: ServerConfig, roots: Vec<PathBuf>, ctx: &HostContext) -> Self {
        let (commands, rx) = mpsc::channel(8);
        let initial = if config.enabled {
            ServerStatus::Starting { attempt: 0 }
        } else {
            ServerStatus::Disabled
        };
        let (status_tx, status) = watch::channel(initial);
        let (conn_tx, connection) = watch::channel(None);
        let (catalog_tx, catalog) = watch::channel(None);
        let (roots_tx, roots_rx) = watch::channel(roots_from_paths(&roots));
        let stderr = StderrRing::new(STDERR_LINES);
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
            config,
        };
        let supervisor = Supervisor {
            opts,
            commands: rx,
            status: status_tx,
            connection: conn_tx,
            catalog: catalog_tx,
            events: ctx.events.clone(),
            policy: ctx.restart,
        };
        tokio::spawn(supervisor.run());
        Self {
            name: name.to_owned(),
            commands,
            status,
            connection,
            catalog,
            roots: Arc::new(roots_tx),
            stderr,
        }
    }

    /// The server's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The current status.
    pub fn status(&self) -> ServerStatus {
        self.status.borrow().clone()
    }

    /// A receiver that sees every status change.
    pub fn watch_status(&self) -> watch::Receiver<ServerStatus> {
        self.status.clone()
    }

    /// The live connection, or an error saying why there is none.
    pub fn connection(&self) -> Result<Connection> {
        self.connection.borrow().clone().ok_or_else(|| {
            let why = match self.status() {
                ServerStatus::Failed { error } | ServerStatus::Restarting { error, .. } => {
                    format!(": {}", error.message)
                }
                ServerStatus::Disabled => ": it is disabled".into(),
                ServerStatus::Stopped => ": it is stopped".into(),
                _ => ": it is still starting".into(),
            };
            Error::new(
                ErrorCode::ServerNotRunning,
                format!("server {:?} is not running{why}", self.name),
            )
        })
    }

    /// Waits until the server is running (or has failed), up to `timeout`.
    pub async fn wait_running(&self, timeout: Duration) -> Result<Connection> {
        let mut status = self.status.clone();
        let wait = async {
            loop {
                if let Some(c) = self.connection.borrow().clone() {
                    return Ok(c);
                }
                if let ServerStatus::Failed { error } = &*status.borrow() {
                    return Err(error.clone());
                }
                if status.changed().await.is_err() {
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

    /// The running server's tools, prompts and templates, refreshed on `list_changed`; `None`
    /// until the first fetch after connecting completes.
    pub fn catalog(&self) -> Option<Arc<Catalog>> {
        self.catalog.borrow().clone()
    }

    /// A receiver that sees every catalog refresh.
    pub fn watch_catalog(&self) -> watch::Receiver<Option<Arc<Catalog>>> {
        self.catalog.clone()
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

    /// Stops the server and waits until its process group is gone.
    pub async fn stop(&self) -> Result<()> {
        let (tx, rx) = oneshot::channel();
        self.send(Command::Stop(tx)).await?;
        rx.await
            .map_err(|_| Error::new(ErrorCode::Internal, "supervisor ended during stop"))
    }

    /// Replaces the roots this server sees and tells it with `notifications/roots/list_changed`.
    pub async fn set_roots(&self, roots: &[PathBuf]) -> Result<()> {
        let roots = roots_from_paths(roots);
        let changed = self.roots.send_if_modified(|current| {
            if *current == roots {
                false
            } else {
                *current = roots;
                true
            }
        });
        if changed && let Ok(connection) = self.connection() {
            connection.notify_roots_changed().await?;
        }
        Ok(())
    }

    async fn send(&self, command: Command) -> Result<()> {
        self.commands
            .send(command)
            .await
            .map_err(|_| Error::new(ErrorCode::Internal, "supervisor ended"))
    }
}

struct Supervisor {
    opts: ConnectOptions,
    commands: mpsc::Receiver<Command>,
    status: watch::Sender<ServerStatus>,
    connection: watch::Sender<Option<Connection>>,
    catalog: watch::Sender<Option<Arc<Catalog>>>,
    events: EventSender,
    policy: RestartPolicy,
}

/// How a connected phase ended.
enum Ended {
    /// The connection closed or the process died.
    Lost(Error),
    /// The user asked for a restart.
    Restart,
    /// The user stopped the server; acknowledged once it is down.
    Stop(oneshot::Sender<()>),
    /// Every handle is gone.
    Gone,
}

/// What ended a phase of the supervisor loop.
enum Next {
    /// Try to (re)connect.
    Connect,
    /// The user stopped it (or the handle is gone).
    Idle,
    /// The connection failed or died.
    Failed(Error),
}

impl Supervisor {
    fn set(&self, status: ServerStatus) {
        let _ = self.events.send(HostEvent::Status {
            server: self.opts.server.clone(),
            status: status.clone(),
        });
        self.status.send_replace(status);
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
                Next::Idle => {
                    if !matches!(
                        *self.status.borrow(),
                        ServerStatus::Failed { .. } | ServerStatus::Disabled
                    ) {
                        self.set(ServerStatus::Stopped);
                    }
                    match self.commands.recv().await {
                        None => return,
                        Some(Command::Stop(ack)) => {
                            let _ = ack.send(());
                            Next::Idle
                        }
                        Some(Command::Start | Command::Restart) => {
                            attempt = 0;
                            Next::Connect
                        }
                    }
                }
                Next::Connect => {
                    self.set(ServerStatus::Starting { attempt });
                    let connecting = connection::connect(self.opts.clone());
                    tokio::select! {
                        result = connecting => match result {
                            Ok(live) => self.serve(live, &mut attempt).await,
                            Err(e) => Next::Failed(e),
                        },
                        command = self.commands.recv() => match command {
                            None => return,
                            Some(Command::Stop(ack)) => { let _ = ack.send(()); Next::Idle }
                            Some(Command::Start) | Some(Command::Restart) => { attempt = 0; Next::Connect }
                        },
                    }
                }
                Next::Failed(error) => {
                    attempt += 1;
                    tracing::warn!(server = %self.opts.server, attempt, "{}", error.message);
                    if attempt > self.policy.max_attempts {
                        self.set(ServerStatus::Failed { error });
                        Next::Idle
                    } else {
                        let delay = self.policy.delay(attempt);
                        self.set(ServerStatus::Restarting {
                            attempt,
                            retry_in_ms: u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                            error,
                        });
                        tokio::select! {
                            _ = tokio::time::sleep(delay) => Next::Connect,
                            command = self.commands.recv() => match command {
                                None => return,
                                Some(Command::Stop(ack)) => { let _ = ack.send(()); Next::Idle }
                                Some(Command::Start) | Some(Command::Restart) => { attempt = 0; Next::Connect }
                            },
                        }
                    }
                }
            };
            if matches!(next, Next::Idle) && self.commands.is_closed() {
                return;
            }
        }
    }

    /// Runs while connected; returns what to do once the connection ends.
    async fn serve(&mut self, mut live: Live, attempt: &mut u32) -> Next {
        let connection = live.connection.clone();
        // Subscribed before the server is announced, so no list change is missed.
        let keeper = tokio::spawn(catalog::keep(
            connection.clone(),
            self.events.subscribe(),
            self.catalog.clone(),
            self.events.clone(),
        ));
        let ended = self.serve_connected(&mut live, attempt).await;
        keeper.abort();
        self.catalog.send_replace(None);
        self.connection.send_replace(None);
        live.shutdown().await;
        match ended {
            Ended::Lost(error) => Next::Failed(error),
            Ended::Restart => Next::Connect,
            Ended::Stop(ack) => {
                let _ = ack.send(());
                Next::Idle
            }
            Ended::Gone => Next::Idle,
        }
    }

    async fn serve_connected(&mut self, live: &mut Live, attempt: &mut u32) -> Ended {
        let connection = live.connection.clone();
        self.connection.send_replace(Some(connection.clone()));
        self.set(ServerStatus::Running {
            summary: connection.summary().clone(),
        });
        let since = Instant::now();
        let closed = live.closed.clone();
        loop {
            tokio::select! {
                _ = closed.cancelled() => {
                    let exit = match live.process.as_mut() {
                        Some(group) => tokio::time::timeout(Duration::from_millis(500), group.wait()).await.ok().flatten(),
                        None => None,
                    };
                    let error = connection_lost(&connection, exit);
                    if since.elapsed() >= self.policy.stable_after {
                        *attempt = 0;
                    }
                    return Ended::Lost(error);
                }
                command = self.commands.recv() => match command {
                    Some(Command::Start) => continue,
                    Some(Command::Restart) => { *attempt = 0; return Ended::Restart }
                    Some(Command::Stop(ack)) => return Ended::Stop(ack),
                    None => return Ended::Gone,
                },
            }
        }
    }
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
    ctx: HostContext,
    handles: Arc<RwLock<IndexMap<String, ServerHandle>>>,
}

impl Servers {
    /// Starts a supervisor for every server in `config`. Must run inside a tokio runtime.
    pub fn start(config: &Config, ctx: HostContext) -> Self {
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

    /// Adds (or replaces) a server and starts supervising it.
    pub async fn upsert(
        &self,
        name: &str,
        config: ServerConfig,
        roots: Vec<PathBuf>,
    ) -> Result<()> {
        let old = self.write()?.shift_remove(name);
        if let Some(old) = old {
            old.stop().await?;
        }
        let handle = ServerHandle::spawn(name, config, roots, &self.ctx);
        self.write()?.insert(name.to_owned(), handle);
        Ok(())
    }

    /// Stops and forgets a server.
    pub async fn remove(&self, name: &str) -> Result<()> {
        let old = self.write()?.shift_remove(name);
        match old {
            Some(h) => h.stop().await,
            None => Err(Error::new(
                ErrorCode::ServerNotFound,
                format!("no server named {name:?}"),
            )),
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
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_caps() {
        let p = RestartPolicy::default();
        assert_eq!(p.delay(1), Duration::from_secs(1));
        assert_eq!(p.delay(2), Duration::from_secs(2));
        assert_eq!(p.delay(4), Duration::from_secs(8));
        assert_eq!(p.delay(20), Duration::from_secs(60));
        assert_eq!(p.delay(200), Duration::from_secs(60));
    }
}

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
        }
    }
}
