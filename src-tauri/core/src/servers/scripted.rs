//! Servers on in-memory pipes, for tests of supervision in paused time: a scripted connector
//! whose attempts fail, hang or serve a bare rmcp server, counting what it served and what is
//! still alive.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::transport::async_rw::AsyncRwTransport;

use super::{Connector, RestartPolicy, SupervisorContext};
use crate::config::ServerConfig;
use crate::connection::{self, ConnectOptions, Live};
use crate::error::{Error, ErrorCode, Result};
use crate::events::Bus;
use crate::process::BaseEnv;

/// A server with nothing but the handshake.
#[derive(Clone)]
pub(crate) struct Bare;

impl rmcp::ServerHandler for Bare {}

/// What the next connection attempt does.
pub(crate) enum Plan {
    Fail,
    /// The server answers 401: sign-in required.
    NeedsSignIn,
    Hang,
    Serve,
    /// Serves once `gate` is opened: the start is under way until then.
    ServeAfter(Arc<tokio::sync::Notify>),
}

/// A scripted connector: each attempt takes the next plan (serving once the script runs out).
#[derive(Default)]
pub(crate) struct Script {
    plans: Mutex<VecDeque<Plan>>,
    pub(crate) attempts: AtomicUsize,
    /// Servers whose pipe is still open.
    pub(crate) alive: Arc<AtomicUsize>,
    /// The arguments of each definition served, in order.
    pub(crate) served: Mutex<Vec<Vec<String>>>,
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
    pub(crate) fn new(plans: impl IntoIterator<Item = Plan>) -> Arc<Self> {
        let s = Self::default();
        s.plans.lock().unwrap().extend(plans);
        Arc::new(s)
    }

    pub(crate) fn connector(self: &Arc<Self>) -> Connector {
        let script = self.clone();
        Arc::new(move |opts| {
            let script = script.clone();
            Box::pin(async move {
                script.attempts.fetch_add(1, Ordering::SeqCst);
                let plan = script.plans.lock().unwrap().pop_front();
                match plan.unwrap_or(Plan::Serve) {
                    Plan::Fail => Err(Error::new(ErrorCode::ConnectFailed, "refused")),
                    Plan::NeedsSignIn => Err(Error::new(ErrorCode::AuthRequired, "sign in")
                        .with_challenge("Bearer resource_metadata=\"https://s.example/prm\"")),
                    Plan::Hang => std::future::pending().await,
                    Plan::Serve => script.serve(opts).await,
                    Plan::ServeAfter(gate) => {
                        gate.notified().await;
                        script.serve(opts).await
                    }
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

    pub(crate) fn crash_last(&self) {
        if let Some(task) = self.servers.lock().unwrap().last() {
            task.abort();
        }
    }
}

pub(crate) fn context(script: &Arc<Script>, bus: &Bus) -> SupervisorContext {
    SupervisorContext {
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
            keepalive: Duration::from_secs(15),
        },
        connector: script.connector(),
        trust: crate::trust::Trust::everything(),
        records: None,
        sandbox: None,
        traffic: Default::default(),
    }
}

pub(crate) fn server() -> ServerConfig {
    ServerConfig::stdio("unused", vec![])
}
