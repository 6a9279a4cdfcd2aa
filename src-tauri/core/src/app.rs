//! The app as one facade: everything the desktop window and the CLI ask of Switchboard, built
//! once by one [`AppBuilder`] (store, configuration, keychain, providers, the approval door, the
//! supervised servers, chats) so the shell and the CLI never wire the core by hand. Each request
//! the window can make is one async method taking its argument type from [`requests`]; blocking
//! work (SQLite, the keychain, files) runs off the caller's thread, so nothing a command does can
//! freeze the window.

pub mod commands;
pub mod requests;

pub use auth::SignIn;
pub use gallery::{
    BundleChoice, BundleForm, BundleInstall, INSTALL_SCHEME, IconUrl, InstallForm, InstallInput,
    InstallLink, InstallOption, InstallRequest, Listing, Opened, Page, RegistryList, RegistryRef,
    RegistrySearch, RegistrySettings, UpdateView, pick_choice,
};
pub use skills::SkillForChat;
pub use trust::{Confirm, ConfirmRoots};

// Everything the shell and the CLI need besides `App`, in one place: they name nothing of the
// core but this module (src-tauri/core/tests/structure.rs checks it).
pub use crate::approvals::policy::PolicyEntry;
pub use crate::approvals::{ComparedAnswer, ModelChoice, Review, ReviewKind, Reviewer, Verdict};
pub use crate::audit::{AuditEntry, AuditQuery};
pub use crate::auth::loopback::{Loopback, Open};
pub use crate::auth::{Authorizer, MAX_AUTHORIZATIONS, SignInInfo, challenge_scopes};
pub use crate::chat::search::{Hit, ToolIndex};
pub use crate::chat::tokens::{self, TokenMeter};
pub use crate::chat::{Conversation, ConversationView, OfferedTool, WithheldTool};
pub use crate::chat::{SEARCH_LIMIT, search_tool_definition};
pub use crate::config::import::locations::{self as import_locations, ImportCandidate};
pub use crate::config::import::{ImportPlan, ImportReport};
pub use crate::config::{
    Config, NetworkSetting, OAuthClient, OAuthGrant, SandboxProfile, SandboxSetting, ServerConfig,
};
pub use crate::connection::{
    CompletionRef, Connection, DirectoryEntry, Live, LoadedSkill, Skill, SkillFile,
};
pub use crate::elicitation::choices as elicitation_choices;
pub use crate::events::{CoreEvent, Listener, ServerEvent};
pub use crate::host::RootsView;
pub use crate::logging::filter as log_filter;
pub use crate::mcp_apps::{AppView, SCHEME};
pub use crate::paths::Paths;
pub use crate::pins::PinItem;
pub use crate::process::BaseEnv;
pub use crate::providers::settings::ProviderSettings;
pub use crate::providers::{Models, Provider, ProviderKind};
pub use crate::secrets::{KEYCHAIN_FIX, Keychain, MemoryStore};
pub use crate::servers::ServerView;
pub use crate::tasks::TaskView;
pub use crate::tool_switches::{ToolRef, ToolSet, ToolSwitchesView};
pub use crate::traffic::kept::{KeptSession, KeptSessions};
pub use crate::traffic::{
    Traffic, TrafficLimits, TrafficMessage, TrafficPage, TrafficQuery, trace as traffic_trace,
};
pub use crate::trust::{LaunchReview, TrustVerdict};
pub use crate::visible::{reveal, reveal_json};

mod auth;
mod call_ids;
mod chat;
mod gallery;
mod mcp_apps;
mod reviews;
mod servers;
mod skills;
mod tasks;
mod traffic;
mod trust;

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::approvals::Door;
use crate::approvals::policy::Policies;
use crate::approvals::queue::ReviewQueue;
use crate::audit::Audit;
use crate::chat::{Chats, Turns};
use crate::connection::{self, ConnectOptions};
use crate::error::{Error, ErrorCode, Result};
use crate::events::Bus;
use crate::handler::roots_from_paths;
use crate::host::Host;
use crate::pins::Pins;
use crate::process::StderrRing;
use crate::process::records::ProcessRecords;
use crate::providers::settings::ProviderSettingsStore;
use crate::sampling::Sampling;
use crate::secrets::{IndexedKeychain, SecretStore};
use crate::servers::{Connector, RestartPolicy, SupervisorContext, real_connector};
use crate::store::{Store, off_thread};
use crate::tasks::log::{self as task_log, TaskLog};
use crate::trust::Trust;

/// How often old audit rows are pruned while the app runs.
const PRUNE_EVERY: Duration = Duration::from_secs(6 * 3600);

/// Switchboard: one per desktop app or CLI run; cheap to clone.
#[derive(Clone)]
pub struct App(Arc<Inner>);

struct Inner {
    paths: Paths,
    host: Host,
    door: Door,
    /// The desktop's review queue (absent when the CLI decides on the terminal).
    reviews: Option<Arc<ReviewQueue>>,
    providers: ProviderSettingsStore,
    /// What crossed the wire to each server.
    traffic: crate::traffic::Traffic,
    /// The traffic sessions the person keeps (the desktop's; the CLI has `--trace`).
    kept: Option<Arc<crate::traffic::kept::Kept>>,
    chats: Chats,
    turns: Turns,
    events: Bus,
    /// The views (MCP Apps) the window has open.
    views: crate::mcp_apps::Views,
    /// The tasks servers ran, kept across reloads.
    tasks: TaskLog,
    /// Cancels the sign-in waiting for the browser, if one is.
    sign_in: std::sync::Mutex<Option<tokio_util::sync::CancellationToken>>,
    /// The OS keychain behind its index (absent when a store was given instead).
    keychain: Option<Arc<IndexedKeychain>>,
    /// The ids of the window's tool calls, each made once.
    call_ids: call_ids::CallIds,
    /// The gallery's last listing of each registry.
    registry_cache: gallery::RegistryCache,
    /// The registry icons fetched this run.
    icons: gallery::Icons,
}

/// Builds an [`App`]: the desktop's defaults, or the CLI's choices.
pub struct AppBuilder {
    paths: Paths,
    reviewer: Option<Arc<dyn Reviewer>>,
    models: Option<Models>,
    secrets: Option<Arc<dyn SecretStore>>,
    supervise: bool,
    refuse_allow_rules: bool,
    restart: RestartPolicy,
    connector: Connector,
    base_env: Option<BaseEnv>,
    review_timeout: Option<Duration>,
    traffic: crate::traffic::Traffic,
}

impl AppBuilder {
    /// The desktop's app on `paths`: servers supervised, reviews queued for the window, the
    /// user's providers, the OS keychain.
    pub fn new(paths: Paths) -> Self {
        Self {
            paths,
            reviewer: None,
            models: None,
            secrets: None,
            supervise: true,
            refuse_allow_rules: false,
            restart: RestartPolicy::default(),
            connector: real_connector(),
            base_env: None,
            review_timeout: None,
            traffic: crate::traffic::Traffic::new(Default::default()),
        }
    }

    /// Where servers' traffic is recorded, instead of rings kept for the window (the CLI keeps
    /// none, or taps them for `--trace`).
    pub fn traffic(mut self, traffic: crate::traffic::Traffic) -> Self {
        self.traffic = traffic;
        self
    }

    /// Who decides reviews (the CLI's terminal, allow or deny) instead of the window's queue.
    pub fn reviewer(mut self, reviewer: Arc<dyn Reviewer>) -> Self {
        self.reviewer = Some(reviewer);
        self
    }

    /// Where sampling goes, instead of the providers on the Models screen.
    pub fn models(mut self, models: Models) -> Self {
        self.models = Some(models);
        self
    }

    /// Where secrets live, instead of the OS keychain (tests).
    pub fn secrets(mut self, secrets: Arc<dyn SecretStore>) -> Self {
        self.secrets = Some(secrets);
        self
    }

    /// Whether configured servers are started and supervised (the CLI connects per command).
    pub fn supervise(mut self, supervise: bool) -> Self {
        self.supervise = supervise;
        self
    }

    /// Standing "allow" rules let nothing through (the CLI's `--approve deny`).
    pub fn refuse_allow_rules(mut self) -> Self {
        self.refuse_allow_rules = true;
        self
    }

    /// How crashed servers are restarted.
    pub fn restart_policy(mut self, policy: RestartPolicy) -> Self {
        self.restart = policy;
        self
    }

    /// How servers are reached (tests pass in-memory ones).
    pub fn connector(mut self, connector: Connector) -> Self {
        self.connector = connector;
        self
    }

    /// The environment children start from, instead of asking the login shell.
    pub fn base_env(mut self, env: BaseEnv) -> Self {
        self.base_env = Some(env);
        self
    }

    /// How long a review waits for a decision before it counts as denied.
    pub fn review_timeout(mut self, timeout: Duration) -> Self {
        self.review_timeout = Some(timeout);
        self
    }

    /// Opens the store, reads the configuration and the providers, and starts the servers.
    /// Must run inside a tokio runtime.
    pub async fn build(self) -> Result<App> {
        let (paths, supervise) = (self.paths.clone(), self.supervise);
        let data_dir = paths.data_dir.clone();
        // The desktop opens its database at start, so a broken one is said before anything else;
        // a CLI command opens it only if it reads or writes it (most need none).
        let store = Arc::new(match supervise {
            true => off_thread(move || Store::open(&data_dir)).await?,
            false => Store::open_when_used(&data_dir)?,
        });
        // The desktop reads (and then watches) the file once its servers are supervised.
        let file = paths.config_file.clone();
        let (config, config_error) = match supervise {
            true => (Config::default(), None),
            false => match off_thread(move || Config::load(&file)).await {
                Ok(c) => (c, None),
                Err(e) => (Config::default(), Some(e)),
            },
        };
        let (keychain, secrets) = secrets(self.secrets.clone(), &store);
        let providers = ProviderSettingsStore::new(store.clone(), secrets.clone());
        let models = match (self.models.clone(), supervise) {
            (Some(m), _) => ModelsGiven::Now(m),
            (None, true) => ModelsGiven::Now(user_models(&providers).await?),
            (None, false) => ModelsGiven::WhenUsed(models_loader(providers.clone())),
        };
        let trust = match supervise {
            true => {
                let store = store.clone();
                off_thread(move || Trust::load(store)).await?
            }
            false => Trust::load_when_used(store.clone()),
        };
        // What a host killed before it could stop its servers left behind goes first.
        let records = ProcessRecords::new(&paths.data_dir);
        let reaper = records.clone();
        off_thread(move || Ok(reaper.reap())).await?;
        let events = Bus::default();
        let (reviewer, reviews) = reviewer(self.reviewer.clone(), &events);
        // Sampling limits come from the live configuration, which the host owns; the host is
        // made after the door it hands to every connection.
        let host_cell: Arc<OnceLock<Host>> = Arc::default();
        let door = self.door(reviewer, &store, models, host_cell.clone());
        let ctx = SupervisorContext {
            config_file: paths.config_file.clone(),
            approver: Arc::new(door.clone()),
            events: events.clone(),
            base_env: self.base_env.unwrap_or_else(BaseEnv::detect),
            secrets,
            restart: self.restart,
            connector: self.connector,
            trust,
            records: Some(records),
            sandbox: Some(box_place(&paths)),
            traffic: self.traffic.clone(),
        };
        let tasks = TaskLog::new(store.clone());
        // Only the desktop keeps tasks: a CLI run sharing the database must not call the
        // desktop's running tasks lost.
        if supervise {
            task_log::announce_lost(&tasks, &events, None, task_log::LOST_WITH_HOST).await;
            task_log::keep(tasks.clone(), events.clone());
        }
        let host = if supervise {
            Host::start_watching(ctx, crate::host::config_file::WATCH_EVERY)
        } else {
            Host::unsupervised(config, ctx, config_error)
        };
        let _ = host_cell.set(host.clone());
        if let Ok(config) = host.config() {
            self.traffic.set_limits(traffic::limits_of(config.traffic));
        }
        let kept = match supervise {
            true => Some(traffic::keep_sessions(&store, &self.traffic).await?),
            false => None,
        };
        if supervise {
            let retention = host.config()?.audit_retention();
            keep_audit_pruned(door.audit().clone(), retention);
            if let Some(keychain) = &keychain {
                announce_keychain_problems(keychain.watch_problem(), events.clone());
            }
        }
        Ok(App(Arc::new(Inner {
            paths,
            host,
            door,
            reviews,
            providers,
            traffic: self.traffic.clone(),
            kept,
            registry_cache: gallery::RegistryCache::new(store.clone()),
            icons: gallery::Icons::default(),
            chats: Chats::new(store),
            turns: Turns::default(),
            events,
            views: crate::mcp_apps::Views::default(),
            tasks,
            sign_in: std::sync::Mutex::default(),
            keychain,
            call_ids: call_ids::CallIds::default(),
        })))
    }

    fn door(
        &self,
        reviewer: Arc<dyn Reviewer>,
        store: &Arc<Store>,
        models: ModelsGiven,
        host: Arc<OnceLock<Host>>,
    ) -> Door {
        let config_of = {
            let host = host.clone();
            move |server: &str| {
                host.get()
                    .and_then(|h| h.config().ok())
                    .and_then(|c| c.mcp_servers.get(server).cloned())
            }
        };
        let of = config_of.clone();
        let limits =
            Arc::new(move |server: &str| of(server).and_then(|s| s.sampling).unwrap_or_default());
        let allowed = Arc::new(move |server: &str| match config_of(server) {
            Some(s) => Some(s.sampling_models),
            // Not in the file: the CLI's server given on the spot (`--stdio`) has no setting and
            // may use any model; in the app, a server renamed or removed meanwhile none.
            None => {
                let supervised = host.get().is_none_or(Host::is_supervised);
                (!supervised).then(Vec::new)
            }
        });
        let sampling = match models {
            ModelsGiven::Now(models) => Sampling::new(models, limits, store.clone()),
            ModelsGiven::WhenUsed(load) => {
                Sampling::new(manual_only(), limits, store.clone()).with_models_when_used(load)
            }
        };
        let mut door = Door::new(
            reviewer,
            Policies::new(store.clone()),
            Pins::new(store.clone()),
            Audit::new(store.clone()),
            sampling.with_allowed(allowed),
        );
        if let Some(timeout) = self.review_timeout {
            door = door.with_timeout(timeout);
        }
        if self.refuse_allow_rules {
            door.refuse_allow_rules();
        }
        door
    }
}

/// Tells the window when the keychain turns out to be missing (the banner).
fn announce_keychain_problems(
    mut problems: tokio::sync::watch::Receiver<Option<Error>>,
    events: Bus,
) {
    tokio::spawn(async move {
        while problems.changed().await.is_ok() {
            let error = problems.borrow_and_update().clone();
            if let Some(error) = error {
                events.publish(crate::events::ServerEvent::KeychainProblem { error });
            }
        }
    });
}

/// The models sampling goes to: had at once, or read when a sampling request first needs them.
enum ModelsGiven {
    Now(Models),
    WhenUsed(crate::sampling::ModelsLoader),
}

/// The providers on the Models screen; the manual one alone if they cannot be read.
async fn user_models(providers: &ProviderSettingsStore) -> Result<Models> {
    let settings = providers.clone();
    Ok(or_manual(off_thread(move || settings.models()).await))
}

/// Reads the providers on the Models screen (and their keys) when sampling first needs them.
fn models_loader(providers: ProviderSettingsStore) -> crate::sampling::ModelsLoader {
    Arc::new(move || or_manual(providers.models()))
}

fn or_manual(read: Result<Models>) -> Models {
    read.unwrap_or_else(|e| {
        tracing::error!(error = %e, "could not read the providers; sampling is manual");
        manual_only()
    })
}

/// The manual provider alone: the person writes each completion.
fn manual_only() -> Models {
    Models::single(Provider::manual(), "manual")
}

/// Prunes audit rows older than `retention` now and every few hours, in the background.
fn keep_audit_pruned(audit: Audit, retention: Option<Duration>) {
    let Some(keep) = retention else {
        return;
    };
    tokio::spawn(async move {
        let mut every = tokio::time::interval(PRUNE_EVERY);
        loop {
            every.tick().await;
            let audit = audit.clone();
            match off_thread(move || audit.prune(keep)).await {
                Ok(0) => {}
                Ok(n) => tracing::info!(rows = n, "pruned old audit rows"),
                Err(e) => tracing::warn!(error = %e, "could not prune the audit log"),
            }
        }
    });
}

impl App {
    /// The app's event buses.
    pub fn events(&self) -> &Bus {
        &self.0.events
    }

    /// The approval door (audit, rules, pins, sampling).
    pub fn door(&self) -> &Door {
        &self.0.door
    }

    /// The configuration and the servers started from it.
    pub fn host(&self) -> &Host {
        &self.0.host
    }

    /// Why the configuration file cannot be used, if it cannot: broken from the start (the app
    /// then runs with no servers and says so), or since an edit in an editor (the servers go on
    /// as they were).
    pub fn config_error(&self) -> Option<Error> {
        self.0.host.problem().0
    }

    /// Whether a sign-in is held in memory only, for this run, for want of a keychain.
    pub fn keeps_sign_ins_for_this_run(&self) -> bool {
        self.0
            .keychain
            .as_ref()
            .is_some_and(|k| k.keeps_sign_ins_for_this_run())
    }

    /// Where the app keeps its files.
    pub fn paths(&self) -> &Paths {
        &self.0.paths
    }

    /// Stops every server (app exit).
    pub async fn shutdown(&self) {
        self.0.host.shutdown().await;
    }

    /// Connects to configured server `name` once, outside supervision (the CLI), with `extra`
    /// roots besides its configured ones; refused unless its definition is trusted.
    pub async fn connect_configured(
        &self,
        name: &str,
        extra: &[PathBuf],
        timeout: Option<Duration>,
    ) -> Result<Live> {
        // One reading of its env file is checked and spawned with.
        let server = switchboard_protocol::env_file::read_once(&self.configured_server(name)?);
        // The CLI reads the trust book only now (its database, off the runtime's thread), and a
        // database it cannot read is said as such, not as "not trusted".
        let trust = self.0.host.context().trust.clone();
        off_thread(move || trust.ready()).await?;
        self.admit(name, &server)?;
        let mut roots = self.0.host.config()?.roots_for(name);
        roots.extend(extra.iter().cloned());
        self.connect_to(name, server, &roots, timeout).await
    }

    /// The definition of configured server `name`.
    pub fn configured_server(&self, name: &str) -> Result<ServerConfig> {
        let config = self.0.host.config()?;
        if let Some(invalid) = config.invalid_servers.get(name) {
            return Err(Error::new(
                ErrorCode::ConfigInvalid,
                format!(
                    "Server {name:?} does not run: its entry in the configuration file is not \
                     valid. {}",
                    invalid.problem.message
                ),
            ));
        }
        config.mcp_servers.get(name).cloned().ok_or_else(|| {
            Error::new(
                ErrorCode::ServerNotFound,
                format!(
                    "no server named {name:?} in {}",
                    self.0.paths.config_file.display()
                ),
            )
        })
    }

    /// Connects once to a server given on the spot (the CLI's `--stdio` and `--url`).
    pub async fn connect_to(
        &self,
        name: &str,
        server: ServerConfig,
        roots: &[PathBuf],
        timeout: Option<Duration>,
    ) -> Result<Live> {
        let ctx = self.0.host.context();
        let (_roots, watch) = tokio::sync::watch::channel(roots_from_paths(roots));
        let mut opts = ConnectOptions {
            server: name.to_owned(),
            config: server,
            config_file: self.0.paths.config_file.clone(),
            timeout,
            roots: watch,
            approver: ctx.approver.clone(),
            events: ctx.events.clone(),
            base_env: ctx.base_env.clone(),
            secrets: ctx.secrets.clone(),
            stderr: StderrRing::new(200),
            records: ctx.records.clone(),
            sandbox: None,
            refused_hosts: Default::default(),
            traffic: ctx.traffic.ring(name),
        };
        opts.sandbox = crate::servers::sandboxing(&ctx.trust, ctx.sandbox.as_ref(), &opts);
        connection::connect(opts).await
    }

    fn reviews(&self) -> Result<&ReviewQueue> {
        self.0.reviews.as_deref().ok_or_else(|| {
            Error::new(
                ErrorCode::NotSupported,
                "reviews are decided on the terminal in this run",
            )
        })
    }
}

/// Where local servers' sandboxes live (beside the database, which no box may reach), and the
/// host's own files no automatic grant may contain.
fn box_place(paths: &Paths) -> switchboard_sandbox::BoxPlace {
    switchboard_sandbox::BoxPlace {
        dir: paths.data_dir.join("boxes"),
        home: directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf()),
        protected: vec![paths.config_file.clone(), paths.data_dir.clone()],
        bundles: Some(paths.data_dir.join("bundles")),
    }
}

/// The keychain Switchboard opens only when a secret is needed (with its index in the store),
/// unless the builder was given a secret store (tests, benchmarks): the keychain to watch for
/// problems, if any, and the store every secret goes through.
fn secrets(
    given: Option<Arc<dyn SecretStore>>,
    store: &Arc<Store>,
) -> (Option<Arc<IndexedKeychain>>, Arc<dyn SecretStore>) {
    match given {
        Some(given) => (None, given),
        None => {
            let keychain = Arc::new(IndexedKeychain::new(
                Arc::new(Keychain::default()),
                store.clone(),
            ));
            (Some(keychain.clone()), keychain)
        }
    }
}

/// Who decides what needs a person: the builder's reviewer (the CLI's terminal, a test's), or
/// the window's queue of reviews.
fn reviewer(
    given: Option<Arc<dyn Reviewer>>,
    events: &Bus,
) -> (Arc<dyn Reviewer>, Option<Arc<ReviewQueue>>) {
    match given {
        Some(r) => (r, None),
        None => {
            let queue = Arc::new(ReviewQueue::new(events.clone()));
            (queue.clone() as Arc<dyn Reviewer>, Some(queue))
        }
    }
}

#[cfg(test)]
mod tests;
