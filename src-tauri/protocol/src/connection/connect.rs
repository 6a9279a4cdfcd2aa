//! Opening a connection: a stdio child (its environment from the config, dotenv files and the
//! keychain) or a remote server (Streamable HTTP, falling back to legacy HTTP+SSE), the handshake
//! in either protocol era, and what a live connection is made of.

// What this module handles of sampling, roots or logging is deprecated by SEP-2577 for
// 2026-07-28 and later; Switchboard speaks every revision, and these are central to it.
#![allow(deprecated)]

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::ProtocolVersion;
use rmcp::service::{
    ClientInitializeError, ClientLifecycleMode, RunningService, serve_client_with_lifecycle,
};
use serde_json::Value;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::config::{Endpoint, RemoteTransport, ServerConfig};
use crate::error::{Error, ErrorCode, Result};
use crate::events::Bus;
pub use crate::events::ServerSummary;
use crate::handler::{DEFAULT_MAX_INBOUND, InboundHandler};
use crate::process::{self, ProcessGroup, StderrRing};
use crate::secrets::{self, SecretStore};
use crate::transport::{
    CloseReason, Monitored, legacy_sse::LegacySseTransport, recorded::Recorded,
    session_checked::SessionChecked, stdio::StdioTransport, task_fields::TaskFields,
};

use super::subscriptions::{base_filter, listen_loop};
use super::{ConnectOptions, Connection, Inner, Live, MIN_STARTUP_TIMEOUT};

/// Expands secret and environment references in a server's env (plus its `envFile`).
fn child_env(
    config: &ServerConfig,
    store: &dyn SecretStore,
    server: &str,
) -> Result<(BTreeMap<String, String>, Vec<String>)> {
    let store = Fetched::from(store);
    let mut env = BTreeMap::new();
    if let (Some(file), Some(read)) = (&config.env_file, crate::env_file::entries_of(config)) {
        env.extend(read.map_err(|why| {
            Error::new(
                ErrorCode::ConfigInvalid,
                format!("server {server:?}: envFile {}: {why}", file.display()),
            )
        })?);
    }
    for (k, v) in &config.env {
        env.insert(k.clone(), secrets::expand(v, &store, server)?);
    }
    Ok((env, store.values()))
}

/// A secret store that remembers every value it handed out: a keychain value written into a
/// longer env value (`Bearer ${secret:…}`) is hidden on its own too, should the server print it.
struct Fetched<'a> {
    store: &'a dyn SecretStore,
    values: std::sync::Mutex<Vec<String>>,
}

impl<'a> From<&'a dyn SecretStore> for Fetched<'a> {
    fn from(store: &'a dyn SecretStore) -> Self {
        Self {
            store,
            values: std::sync::Mutex::default(),
        }
    }
}

impl Fetched<'_> {
    fn values(self) -> Vec<String> {
        self.values.into_inner().unwrap_or_default()
    }

    fn kept(&self, value: Option<String>) -> Option<String> {
        if let (Some(v), Ok(mut values)) = (&value, self.values.lock()) {
            values.push(v.clone());
        }
        value
    }
}

impl SecretStore for Fetched<'_> {
    fn set(&self, name: &str, value: &str) -> Result<()> {
        self.store.set(name, value)
    }
    fn get(&self, name: &str) -> Result<Option<String>> {
        self.store.get(name).map(|v| self.kept(v))
    }
    fn delete(&self, name: &str) -> Result<()> {
        self.store.delete(name)
    }
    fn find(&self, name: &str) -> Result<Option<String>> {
        self.store.find(name).map(|v| self.kept(v))
    }
}

/// The values of `env` a server must not get into our logs by printing them: those read from
/// the keychain, and those whose name or shape says secret (from its env file too).
fn secret_values(config: &ServerConfig, env: &BTreeMap<String, String>) -> Vec<String> {
    env.iter()
        .filter(|(name, value)| {
            config
                .env
                .get(*name)
                .is_some_and(|v| v.contains("${secret:"))
                || crate::config::import::looks_secret(name)
                || process::looks_like_token(value)
        })
        .map(|(_, value)| value.clone())
        .collect()
}

/// Opens a connection: spawns or dials the server, negotiates a protocol version (2026-07-28 via
/// `server/discover`, else the newest initialize-era version the server accepts).
pub async fn connect(opts: ConnectOptions) -> Result<Live> {
    let auto = ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: Some(ProtocolVersion::V_2025_11_25),
    };
    match connect_with(opts.clone(), auto).await {
        Ok(live) => Ok(live),
        Err(Failure::Again(e, lifecycle)) => {
            tracing::info!(server = %opts.server, "server/discover went wrong ({}); starting again with {lifecycle:?}", e.message);
            connect_with(opts, lifecycle)
                .await
                .map_err(Failure::into_error)
        }
        Err(Failure::Error(e)) => Err(e),
    }
}

/// Why an attempt to connect failed.
enum Failure {
    Error(Error),
    /// The probe's `server/discover` went wrong in a way that says how to start the server
    /// again: see [`start_again_with`].
    Again(Error, ClientLifecycleMode),
}

impl Failure {
    fn into_error(self) -> Error {
        match self {
            Failure::Error(e) | Failure::Again(e, _) => e,
        }
    }

    /// `error` for a handshake that failed with `e` under `lifecycle`.
    fn of(error: Error, e: &ClientInitializeError, lifecycle: &ClientLifecycleMode) -> Self {
        match start_again_with(e, lifecycle) {
            Some(again) => Failure::Again(error, again),
            None => Failure::Error(error),
        }
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Error(e)
    }
}

/// How to start a server again whose probe went wrong under `Auto`, if it says:
/// - a success that is not a discover result (some legacy servers answer every unknown method
///   with `{}`): a legacy server, so `initialize`;
/// - the probe's answer after rmcp gave up on it (10 s) and sent `initialize`, as a first `uvx` or
///   `npx` run that downloads the server can take: an error is a legacy server's (`initialize`),
///   a result a modern server's (`server/discover`, waited for as long as a start may take).
fn start_again_with(
    e: &ClientInitializeError,
    lifecycle: &ClientLifecycleMode,
) -> Option<ClientLifecycleMode> {
    let ClientLifecycleMode::Auto {
        preferred_versions, ..
    } = lifecycle
    else {
        return None;
    };
    match e {
        ClientInitializeError::ExpectedInitResult(_)
        | ClientInitializeError::UncorrelatedErrorResponse { .. } => {
            Some(ClientLifecycleMode::Initialize)
        }
        ClientInitializeError::ConflictInitResponseId(..) => Some(ClientLifecycleMode::Discover {
            preferred_versions: preferred_versions.clone(),
        }),
        _ => None,
    }
}

async fn connect_with(
    opts: ConnectOptions,
    lifecycle: ClientLifecycleMode,
) -> std::result::Result<Live, Failure> {
    let endpoint = opts.config.endpoint(&opts.config_file, &opts.server)?;
    let timeout = opts
        .timeout
        .unwrap_or_else(|| opts.config.request_timeout());
    let dial = Dial {
        server: opts.server,
        max_message: opts.config.max_message_bytes(),
        config: opts.config,
        store: opts.secrets,
        approver: opts.approver,
        roots: opts.roots,
        events: opts.events,
        lifecycle,
        timeout,
        close_reason: CloseReason::default(),
        closed: CancellationToken::new(),
        task_fields: TaskFields::default(),
        traffic: opts.traffic,
    };
    let (stderr, events) = (opts.stderr, dial.events.clone());
    let shaken = match endpoint {
        Endpoint::Stdio { command, args, cwd } => {
            let child = Child {
                command: &command,
                args: &args,
                cwd: cwd.as_deref(),
                base_env: &opts.base_env,
                stderr: &stderr,
                records: opts.records.as_ref(),
                sandbox: opts.sandbox.as_ref(),
                refused: &opts.refused_hosts,
            };
            dial_stdio(&dial, child).await?
        }
        Endpoint::Remote { url, transport } => dial_remote(&dial, &url, transport).await?,
    };
    let Dial {
        server,
        config,
        close_reason,
        closed,
        task_fields,
        ..
    } = dial;
    let started = Started {
        service: shaken.service,
        process: shaken.process,
        close_reason,
        closed,
        signed_in: shaken.signed_in,
        task_fields,
        transport: shaken.transport,
    };
    Ok(go_live(
        speaks_known_version(&server, started).await?,
        server,
        &config,
        timeout,
        stderr,
        events,
    ))
}

/// What reaching a server and shaking hands with it needs, whatever the transport.
struct Dial {
    server: String,
    config: ServerConfig,
    store: Arc<dyn SecretStore>,
    approver: Arc<dyn crate::handler::Approver>,
    roots: watch::Receiver<Vec<rmcp::model::Root>>,
    events: Bus,
    lifecycle: ClientLifecycleMode,
    timeout: Duration,
    max_message: usize,
    close_reason: CloseReason,
    closed: CancellationToken,
    task_fields: TaskFields,
    traffic: crate::traffic::TrafficRing,
}

impl Dial {
    /// A handler for one handshake (a fallback's second try gets a fresh one).
    fn handler(&self) -> InboundHandler {
        InboundHandler::new(
            &self.server,
            self.approver.clone(),
            self.roots.clone(),
            self.events.clone(),
            DEFAULT_MAX_INBOUND,
        )
    }
}

/// A handshake that finished over one transport, before the connection goes live.
struct Shaken {
    service: RunningService<RoleClient, InboundHandler>,
    process: Option<ProcessGroup>,
    signed_in: bool,
    transport: &'static str,
}

/// A local server's command line and where its process is kept track of.
struct Child<'a> {
    command: &'a str,
    args: &'a [String],
    cwd: Option<&'a std::path::Path>,
    base_env: &'a process::BaseEnv,
    stderr: &'a StderrRing,
    records: Option<&'a process::records::ProcessRecords>,
    sandbox: Option<&'a super::Sandboxing>,
    refused: &'a crate::egress::RefusedHosts,
}

/// For a server limited to listed hosts, the proxy its box may reach (its port goes into the
/// box, and the refusals into its stderr tab and card).
async fn host_proxy(
    server: &str,
    sandboxing: &super::Sandboxing,
    stderr: &StderrRing,
    refused: &crate::egress::RefusedHosts,
    spec: &mut switchboard_sandbox::BoxSpec,
) -> Result<Option<crate::egress::HostProxy>> {
    let crate::config::NetworkSetting::Hosts(hosts) = &sandboxing.profile.network else {
        return Ok(None);
    };
    let ring = stderr.clone();
    let proxy = crate::egress::HostProxy::start(hosts.clone(), refused.clone(), move |host| {
        ring.push(format!(
            "[switchboard] The sandbox refused a connection to {host}: it is not among the hosts this server may reach. Allow it in the server's card."
        ));
    })
    .await
    .map_err(|e| {
        Error::new(
            ErrorCode::Sandbox,
            format!("Server \"{server}\" was not started: its network proxy could not start ({e})."),
        )
    })?;
    spec.proxy_port = Some(proxy.port());
    Ok(Some(proxy))
}

/// The box for `server` with the roots it has now (a root added later restarts it).
fn box_spec(
    server: &str,
    sandboxing: &super::Sandboxing,
    roots: &watch::Receiver<Vec<rmcp::model::Root>>,
) -> Result<switchboard_sandbox::BoxSpec> {
    let paths = roots
        .borrow()
        .iter()
        .filter_map(|r| url::Url::parse(&r.uri).ok()?.to_file_path().ok())
        .collect();
    sandboxing
        .place
        .spec(server, sandboxing.profile.clone(), paths)
        .map_err(|e| {
            Error::new(
                ErrorCode::Sandbox,
                format!("Server \"{server}\" was not started: its sandbox folders could not be made ({e})."),
            )
        })
}

/// Spawns a local server and shakes hands over its stdio; a child that fails the handshake is
/// stopped, and its last stderr lines say why.
async fn dial_stdio(d: &Dial, child: Child<'_>) -> std::result::Result<Shaken, Failure> {
    // The keychain may wait on an unlock prompt: never on a runtime worker.
    let (c, st, name) = (d.config.clone(), d.store.clone(), d.server.clone());
    let (mut env, fetched) =
        crate::store::off_thread(move || child_env(&c, st.as_ref(), &name)).await?;
    let mut secrets = secret_values(&d.config, &env);
    secrets.extend(fetched);
    d.traffic.hide(secrets.iter().cloned());
    child.stderr.hide(secrets);
    let mut boxed = child
        .sandbox
        .map(|s| box_spec(&d.server, s, &d.roots))
        .transpose()?;
    let proxy = match (&mut boxed, child.sandbox) {
        (Some(spec), Some(s)) => {
            host_proxy(&d.server, s, child.stderr, child.refused, spec).await?
        }
        _ => None,
    };
    if let Some(proxy) = &proxy {
        env.extend(proxy.env());
    }
    let spec = process::SpawnSpec {
        server: &d.server,
        command: child.command,
        args: child.args,
        cwd: child.cwd,
        env: &env,
        records: child.records,
        sandbox: boxed.as_ref(),
    };
    let stderr_mark = child.stderr.mark();
    let mut base = child.base_env.vars().await;
    if d.config.runs_a_container() {
        // Its engine (a rootless or remote one) is found as the person's shell finds it.
        Arc::make_mut(&mut base).extend(process::engine_vars());
    }
    let spawned = process::spawn(&spec, &base, child.stderr)?;
    let mut group = spawned.group;
    if let Some(proxy) = proxy {
        group.keep_proxy(proxy);
    }
    let transport = Monitored::new(
        StdioTransport::new(
            &d.server,
            spawned.stdout,
            spawned.stdin,
            d.max_message,
            d.close_reason.clone(),
        )
        .with_task_fields(d.task_fields.clone())
        .with_traffic(d.traffic.clone()),
        d.closed.clone(),
    );
    // Starting a local server (an `npx` download, an interpreter warming up) can take longer
    // than one request should; a remote one answers its handshake like any request.
    let startup = d.timeout.max(MIN_STARTUP_TIMEOUT);
    let serving = serve_client_with_lifecycle(d.handler(), transport, d.lifecycle.clone());
    let failed = match tokio::time::timeout(startup, serving).await {
        Ok(Ok(service)) => {
            return Ok(Shaken {
                service,
                process: Some(group),
                signed_in: false,
                transport: "stdio",
            });
        }
        Ok(Err(e)) => Some(e),
        Err(_) => None,
    };
    let why = match &failed {
        Some(e) => e.to_string(),
        None => format!("no answer within {}", super::spoken(startup)),
    };
    // Give the child a moment to finish writing stderr before it is reported.
    let exit = tokio::time::timeout(Duration::from_millis(300), group.wait())
        .await
        .ok()
        .flatten();
    group.shutdown(Duration::from_millis(500)).await;
    // Its last words say why: everything it wrote is read before the error is made (the pipe
    // closes once the group is gone; bounded all the same).
    group.stderr_read(STDERR_DRAIN).await;
    let said = child.stderr.lines_since(stderr_mark);
    let mut error = handshake_error(&d.server, &why, exit, &d.close_reason, &said);
    if group.sandboxed()
        && let Some(hint) = said
            .iter()
            .find_map(|l| switchboard_sandbox::hints::refusal_hint(&d.server, l))
    {
        error.message = format!("{} {hint}", error.message);
    }
    Err(match &failed {
        Some(e) => Failure::of(error, e, &d.lifecycle),
        None => Failure::Error(error),
    })
}

/// Dials a remote server over `transport`. A server configured with a machine grant that asks
/// for sign-in (none yet, or the token expired: these grants give no refresh token) is signed in
/// to with no person present and dialled once more.
async fn dial_remote(
    d: &Dial,
    url: &url::Url,
    transport: RemoteTransport,
) -> std::result::Result<Shaken, Failure> {
    let first = dial_remote_once(d, url, transport).await;
    let unattended = d
        .config
        .oauth
        .as_ref()
        .is_some_and(|o| o.grant != crate::config::OAuthGrant::AuthorizationCode);
    let challenge = match &first {
        Err(Failure::Error(e)) if unattended => match &e.challenge {
            Some(c) => c.clone(),
            None => return first,
        },
        _ => return first,
    };
    let (c, st, name) = (d.config.oauth.clone(), d.store.clone(), d.server.clone());
    let identity = crate::store::off_thread(move || {
        crate::auth::ClientIdentity::from_config(c.as_ref(), st.as_ref(), &name)
    })
    .await?;
    crate::auth::sign_in_unattended(url.as_str(), Some(&challenge), &identity, d.store.clone())
        .await?;
    dial_remote_once(d, url, transport).await
}

/// Dials a remote server over `transport`: Streamable HTTP, legacy HTTP+SSE, or the spec's
/// fallback from the first to the second.
async fn dial_remote_once(
    d: &Dial,
    url: &url::Url,
    transport: RemoteTransport,
) -> std::result::Result<Shaken, Failure> {
    let (c, st, name) = (d.config.clone(), d.store.clone(), d.server.clone());
    let headers = crate::store::off_thread(move || remote_headers(&c, st.as_ref(), &name)).await?;
    d.traffic.hide(
        headers
            .values()
            .filter(|v| v.is_sensitive())
            .filter_map(|v| v.to_str().ok().map(str::to_owned)),
    );
    // With the tokens of an earlier sign-in, if any; without, a server that requires sign-in
    // answers 401 with the challenge to sign in with.
    let authorized = crate::auth::Authorized::stored(url, d.store.clone()).await?;
    let signed_in = authorized.is_some();
    let streamable = || streamable_http(d, url, &headers, authorized.as_ref());
    let (service, kind) = match transport {
        RemoteTransport::StreamableHttp => (streamable().await?, "streamable-http"),
        RemoteTransport::Sse => (legacy_sse(d, url, &headers).await?, "sse"),
        // The spec's backwards-compatible fallback: a server that rejects the Streamable HTTP
        // handshake is tried as a 2024-11-05 HTTP+SSE server.
        RemoteTransport::Auto => match streamable().await {
            Ok(done) => (done, "streamable-http"),
            Err(Failure::Again(e, lifecycle)) => return Err(Failure::Again(e, lifecycle)),
            // A server that wants sign-in is a Streamable HTTP server.
            Err(Failure::Error(e)) if e.challenge.is_some() => return Err(Failure::Error(e)),
            Err(Failure::Error(first)) => {
                tracing::info!(
                    server = d.server,
                    "Streamable HTTP failed ({}); trying legacy HTTP+SSE",
                    first.message
                );
                let legacy = legacy_sse(d, url, &headers)
                    .await
                    .map_err(|second| fallback_failed(first, second.into_error()))?;
                (legacy, "sse")
            }
        },
    };
    Ok(Shaken {
        service,
        process: None,
        signed_in,
        transport: kind,
    })
}

/// Both remote transports failed: the first one's sentence, with the second's behind it.
fn fallback_failed(first: Error, second: Error) -> Error {
    let details = match &first.details {
        Some(d) => format!("{d}; legacy HTTP+SSE: {}", second.message),
        None => format!("legacy HTTP+SSE: {}", second.message),
    };
    Error::new(
        ErrorCode::ConnectFailed,
        format!(
            "{} The legacy HTTP+SSE transport was tried too, and failed.",
            first.message
        ),
    )
    .with_details(details)
}

type Headers = std::collections::HashMap<reqwest::header::HeaderName, reqwest::header::HeaderValue>;

/// A Streamable HTTP handshake, with the tokens of a sign-in when there is one.
async fn streamable_http(
    d: &Dial,
    url: &url::Url,
    headers: &Headers,
    authorized: Option<&crate::auth::Authorized>,
) -> std::result::Result<RunningService<RoleClient, InboundHandler>, Failure> {
    use rmcp::transport::StreamableHttpClientTransport as Http;
    use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig as Config;
    let mut http = Config::with_uri(url.as_str()).custom_headers(headers.clone());
    http.max_sse_event_size = d.max_message;
    let lifecycle = &d.lifecycle;
    match authorized {
        Some(signed_in) => {
            let client = Recorded::new(SessionChecked(signed_in.transport_client()), &d.traffic);
            let transport = Monitored::new(Http::with_client(client, http), d.closed.clone());
            let serving = serve_client_with_lifecycle(d.handler(), transport, lifecycle.clone());
            handshake(&d.server, url, d.timeout, lifecycle, serving).await
        }
        None => {
            let client = Recorded::new(
                SessionChecked(plain_http_client().map_err(Failure::Error)?),
                &d.traffic,
            );
            let transport = Monitored::new(Http::with_client(client, http), d.closed.clone());
            let serving = serve_client_with_lifecycle(d.handler(), transport, lifecycle.clone());
            handshake(&d.server, url, d.timeout, lifecycle, serving).await
        }
    }
}

/// The HTTP client of a server not signed in to: redirects only within its origin, and no idle
/// connections kept (rmcp's default: a reused connection whose last body was not read to its
/// end stalls on delayed ACKs).
fn plain_http_client() -> Result<reqwest::Client> {
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .redirect(crate::transport::same_origin_redirects())
        .build()
        .map_err(|e| Error::new(ErrorCode::Internal, format!("HTTP client: {e}")))
}

/// A 2024-11-05 HTTP+SSE handshake (that transport implies the initialize era).
async fn legacy_sse(
    d: &Dial,
    url: &url::Url,
    headers: &Headers,
) -> std::result::Result<RunningService<RoleClient, InboundHandler>, Failure> {
    let header_map = headers
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let sse = LegacySseTransport::connect(
        &d.server,
        url.clone(),
        header_map,
        d.max_message,
        d.close_reason.clone(),
    )
    .await
    .map_err(Failure::Error)?;
    let transport = Monitored::new(sse, d.closed.clone()).recording(d.traffic.clone());
    let initialize = ClientLifecycleMode::Initialize;
    let serving = serve_client_with_lifecycle(d.handler(), transport, initialize.clone());
    handshake(&d.server, url, d.timeout, &initialize, serving).await
}

/// Disconnects from a server that answered with a protocol version Switchboard does not speak,
/// as the spec says a client should (rmcp would carry on with it).
async fn speaks_known_version(server: &str, started: Started) -> Result<Started> {
    let version = started
        .service
        .peer()
        .peer_info()
        .map(|i| i.protocol_version.clone());
    let Some(version) = version.filter(|v| !ProtocolVersion::KNOWN_VERSIONS.contains(v)) else {
        return Ok(started);
    };
    started.service.cancellation_token().cancel();
    if let Some(mut group) = started.process {
        group.shutdown(Duration::from_millis(500)).await;
    }
    let known: Vec<String> = ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .map(ToString::to_string)
        .collect();
    Err(Error::new(
        ErrorCode::ConnectFailed,
        format!(
            "server {server:?} answered with protocol version {version}, which Switchboard does \
             not speak (it speaks {}); disconnected",
            known.join(", ")
        ),
    ))
}

/// How long a child that exited may take for its stderr to be read to the end.
const STDERR_DRAIN: Duration = Duration::from_secs(2);

/// A finished handshake and what it must be torn down with.
struct Started {
    service: RunningService<RoleClient, InboundHandler>,
    process: Option<ProcessGroup>,
    close_reason: CloseReason,
    closed: CancellationToken,
    /// Whether requests carry the tokens of a sign-in.
    signed_in: bool,
    task_fields: TaskFields,
    /// The transport in use, as the server card shows it.
    transport: &'static str,
}

/// Turns a finished handshake into a live connection; on 2026-07-28, opens the subscription
/// stream that carries list changes and resource updates.
fn go_live(
    started: Started,
    server: String,
    config: &ServerConfig,
    timeout: Duration,
    stderr: StderrRing,
    events: Bus,
) -> Live {
    let Started {
        service,
        process,
        close_reason,
        closed,
        signed_in,
        task_fields,
        transport,
    } = started;
    let mut summary = summarize(&service);
    summary.transport = transport.to_owned();
    // rmcp's capabilities have no place for 2025-11-25 `tasks`; the transport kept it.
    if let (Some(tasks), Some(capabilities)) = (
        task_fields.server_tasks(),
        summary.capabilities.as_object_mut(),
    ) {
        capabilities.insert("tasks".into(), tasks);
    }
    tracing::info!(server, protocol = %summary.protocol_version, "connected");
    let (subscriptions, uris) = watch::channel(BTreeSet::new());
    let modern = is_modern(&service);
    if modern {
        tokio::spawn(listen_loop(
            service.peer().clone(),
            server.clone(),
            base_filter(&summary),
            uris,
            events.clone(),
            closed.clone(),
        ));
    }
    Live {
        connection: Connection {
            inner: Arc::new(Inner {
                server,
                service,
                summary,
                timeout,
                max_total: config.max_total().max(timeout),
                close_reason,
                closed: closed.clone(),
                stderr,
                subscriptions,
                modern,
                signed_in,
                scope_challenge: Default::default(),
                events,
                task_fields,
                remote: config.url.is_some(),
                suspect: tokio::sync::Notify::new(),
                sandboxed: process.as_ref().is_some_and(ProcessGroup::sandboxed),
            }),
        },
        process,
        closed,
    }
}

/// Connects over a transport that is already open (an in-process server, a test's in-memory
/// pipe), with the initialize handshake; `opts.config` supplies only the timeouts.
pub async fn connect_transport<T>(opts: ConnectOptions, transport: T) -> Result<Live>
where
    T: rmcp::transport::Transport<RoleClient> + Send + 'static,
{
    let handler = InboundHandler::new(
        &opts.server,
        opts.approver.clone(),
        opts.roots.clone(),
        opts.events.clone(),
        DEFAULT_MAX_INBOUND,
    );
    let closed = CancellationToken::new();
    let timeout = opts
        .timeout
        .unwrap_or_else(|| opts.config.request_timeout());
    let service = serve_client_with_lifecycle(
        handler,
        Monitored::new(transport, closed.clone()),
        ClientLifecycleMode::Initialize,
    )
    .await
    .map_err(|e| {
        Error::new(
            ErrorCode::ConnectFailed,
            format!("server {:?}: {e}", opts.server),
        )
    })?;
    let started = Started {
        service,
        process: None,
        close_reason: CloseReason::default(),
        closed,
        signed_in: false,
        task_fields: TaskFields::default(),
        transport: "memory",
    };
    Ok(go_live(
        speaks_known_version(&opts.server, started).await?,
        opts.server,
        &opts.config,
        timeout,
        opts.stderr,
        opts.events,
    ))
}

/// Runs a remote handshake under the timeout, with errors that name the server and URL.
async fn handshake<F>(
    server: &str,
    url: &url::Url,
    timeout: Duration,
    lifecycle: &ClientLifecycleMode,
    fut: F,
) -> std::result::Result<RunningService<RoleClient, InboundHandler>, Failure>
where
    F: Future<
        Output = std::result::Result<
            RunningService<RoleClient, InboundHandler>,
            ClientInitializeError,
        >,
    >,
{
    match tokio::time::timeout(timeout, fut).await {
        Ok(Ok(service)) => Ok(service),
        Ok(Err(e)) => {
            if let Some(challenge) = e.auth_challenge() {
                let mut error = crate::error::auth_challenge(&e).unwrap_or_else(|| {
                    Error::new(ErrorCode::AuthRequired, "the server requires sign-in")
                        .with_challenge(challenge)
                });
                error.message = format!("server {server:?} at {url}: {}", error.message);
                return Err(Failure::Error(error));
            }
            // The whole chain, for `-vv`; people read the sentence `explain` makes of it.
            tracing::debug!(server, %url, "handshake failed: {}", crate::error::explain::causes(&e));
            let error = crate::error::explain::handshake(server, url, &e);
            Err(Failure::of(error, &e, lifecycle))
        }
        Err(_) => Err(Failure::Error(Error::new(
            ErrorCode::Timeout,
            format!(
                "Server {server:?} at {url} did not answer within {}: check that this is its \
                 MCP endpoint, or raise requestTimeoutSecs for a slow server.",
                super::spoken(timeout)
            ),
        ))),
    }
}

fn handshake_error(
    server: &str,
    why: &str,
    exit: Option<String>,
    close_reason: &CloseReason,
    tail: &[String],
) -> Error {
    if let Some(reason) = close_reason.get() {
        return reason;
    }
    // A process that died explains itself better than the protocol error it caused.
    let mut message = match &exit {
        Some(status) => format!("Server {server:?} exited during startup ({status})."),
        None => format!("Server {server:?} did not complete the MCP handshake."),
    };
    // npm prints its notices (a newer npm exists) after the error that ended it: they would
    // take the place of the lines that say why.
    let said: Vec<&str> = tail
        .iter()
        .map(String::as_str)
        .filter(|line| !line.starts_with("npm notice"))
        .collect();
    if !said.is_empty() {
        let start = said.len().saturating_sub(5);
        message.push_str(" It said: ");
        message.push_str(&said[start..].join(" | "));
    }
    let error = Error::new(ErrorCode::ConnectFailed, message);
    match exit {
        Some(_) => error,
        None => error.with_details(crate::error::explain::excerpt(why)),
    }
}

fn remote_headers(
    config: &ServerConfig,
    store: &dyn SecretStore,
    server: &str,
) -> Result<std::collections::HashMap<reqwest::header::HeaderName, reqwest::header::HeaderValue>> {
    let mut out = std::collections::HashMap::new();
    for (k, v) in &config.headers {
        let name = reqwest::header::HeaderName::from_bytes(k.as_bytes()).map_err(|e| {
            Error::new(
                ErrorCode::ConfigInvalid,
                format!("server {server:?}: field `headers.{k}`: {e}"),
            )
        })?;
        let mut value = reqwest::header::HeaderValue::from_str(&secrets::expand(v, store, server)?)
            .map_err(|e| {
                Error::new(
                    ErrorCode::ConfigInvalid,
                    format!("server {server:?}: field `headers.{k}`: {e}"),
                )
            })?;
        // Printed as "Sensitive" in any Debug output or log, and kept out of HTTP/2 compression
        // tables: a header whose value came from the keychain (or could carry a credential).
        if v.contains("${") || is_credential_header(&name) {
            value.set_sensitive(true);
        }
        out.insert(name, value);
    }
    Ok(out)
}

/// Headers that carry credentials whatever their value looks like.
fn is_credential_header(name: &reqwest::header::HeaderName) -> bool {
    let name = name.as_str();
    name == "authorization"
        || name == "proxy-authorization"
        || name == "cookie"
        || name.contains("token")
        || name.contains("key")
        || name.contains("secret")
}

fn summarize(service: &RunningService<RoleClient, InboundHandler>) -> ServerSummary {
    match service.peer().peer_info() {
        Some(info) => ServerSummary {
            protocol_version: info.protocol_version.to_string(),
            transport: String::new(),
            server_info: serde_json::to_value(&info.server_info).unwrap_or(Value::Null),
            capabilities: serde_json::to_value(&info.capabilities).unwrap_or_default(),
            instructions: info.instructions.clone(),
        },
        None => ServerSummary {
            protocol_version: String::new(),
            transport: String::new(),
            server_info: Value::Null,
            capabilities: Value::Object(Default::default()),
            instructions: None,
        },
    }
}

/// Whether the connection uses the stateless 2026-07-28 era (no `initialize`).
fn is_modern(service: &RunningService<RoleClient, InboundHandler>) -> bool {
    service
        .peer()
        .peer_info()
        .is_some_and(|info| !info.protocol_version.has_initialize())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// npm's closing notices do not hide the line that says why it stopped.
    #[test]
    fn a_start_that_failed_says_why_past_npms_notices() {
        let tail: Vec<String> = [
            "npm error code ECONNRESET",
            "npm error network aborted",
            "npm notice",
            "npm notice New minor version of npm available! 11.19.1 -> 11.21.2",
            "npm notice Changelog: https://github.com/npm/cli/releases/tag/v11.21.2",
            "npm notice To update run: npm install -g npm@11.21.2",
            "npm notice",
        ]
        .map(String::from)
        .into();
        let e = handshake_error(
            "probe",
            "closed",
            Some("exit status: 1".into()),
            &CloseReason::default(),
            &tail,
        );
        assert!(e.message.contains("ECONNRESET"), "{}", e.message);
        assert!(!e.message.contains("npm notice"), "{}", e.message);
    }

    /// A probe gone wrong says how to start again: its late result is a modern server's (probe
    /// again, waiting), its late error or non-discover success a legacy server's; nothing else
    /// starts again, and nothing does outside `Auto`.
    #[test]
    fn a_probe_gone_wrong_says_how_to_start_again() {
        use rmcp::model::RequestId;
        let auto = ClientLifecycleMode::Auto {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            legacy_version: Some(ProtocolVersion::V_2025_11_25),
        };
        let (probe, init) = (RequestId::Number(0), RequestId::Number(1));
        let late_result =
            ClientInitializeError::ConflictInitResponseId(init.clone(), probe.clone());
        let late_error = ClientInitializeError::UncorrelatedErrorResponse {
            expected: init,
            received: probe,
        };
        let odd_success = ClientInitializeError::ExpectedInitResult(None);
        let closed = ClientInitializeError::ConnectionClosed("gone".into());
        assert_eq!(
            start_again_with(&late_result, &auto),
            Some(ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28]
            })
        );
        for legacy in [&late_error, &odd_success] {
            assert_eq!(
                start_again_with(legacy, &auto),
                Some(ClientLifecycleMode::Initialize)
            );
        }
        assert_eq!(start_again_with(&closed, &auto), None);
        assert_eq!(
            start_again_with(&late_error, &ClientLifecycleMode::Initialize),
            None
        );
    }

    #[test]
    fn secret_header_values_never_print() {
        let store = crate::secrets::MemoryStore::default();
        crate::secrets::SecretStore::set(&store, "tok", "canary-secret-value").unwrap();
        let mut headers = BTreeMap::new();
        headers.insert(
            "Authorization".to_owned(),
            "Bearer literal-canary".to_owned(),
        );
        headers.insert("X-Custom".to_owned(), "${secret:tok}".to_owned());
        headers.insert("X-Trace".to_owned(), "visible".to_owned());
        let mut config = ServerConfig::remote("https://example.com/mcp", Default::default());
        config.headers = headers.into_iter().collect();
        let out = remote_headers(&config, &store, "s").unwrap();
        let printed = format!("{out:?}");
        assert!(!printed.contains("canary"), "{printed}");
        assert!(printed.contains("visible"));
        let custom = reqwest::header::HeaderName::from_static("x-custom");
        assert_eq!(out[&custom], "canary-secret-value", "still sent as it is");
    }

    #[test]
    fn an_env_file_is_read_as_dotenv_and_the_config_env_wins() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(".env");
        std::fs::write(
            &file,
            "# a comment, isn't it $HOME\nexport A=1\nB=\"two words\" # trailing\nC='single ${NOT_EXPANDED}'\nD=\"line1\\nline2\"\nE=from-file\nF=\"ab$cd\"\nG=$HOME/x\nH=\"${PATH}\"\nI='it''s'\n",
        )
        .unwrap();
        let mut config = ServerConfig::stdio("x", vec![]);
        config.env_file = Some(file);
        config.env.insert("E".into(), "from-config".into());
        let (env, _) = child_env(&config, &crate::secrets::MemoryStore::default(), "s").unwrap();
        assert_eq!(env["A"], "1");
        assert_eq!(env["B"], "two words");
        assert_eq!(env["C"], "single ${NOT_EXPANDED}");
        assert_eq!(env["D"], "line1\nline2");
        assert_eq!(env["E"], "from-config");
        // Literal, never expanded from the host: `$` in double quotes and bare.
        assert_eq!(env["F"], "ab$cd");
        assert_eq!(env["G"], "$HOME/x");
        assert_eq!(env["H"], "${PATH}");
        assert_eq!(env["I"], "its");
        config.env_file = Some(dir.path().join("missing.env"));
        let e = child_env(&config, &crate::secrets::MemoryStore::default(), "s").unwrap_err();
        assert_eq!(e.code, ErrorCode::ConfigInvalid);
    }

    /// The start that was trusted on one reading of the env file spawns with that reading: an
    /// edit between the trust check and the spawn does not reach the child.
    #[test]
    fn a_start_spawns_with_the_env_file_as_it_was_read_for_its_trust_check() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(".env");
        std::fs::write(&file, "A=1\n").unwrap();
        let mut config = ServerConfig::stdio("x", vec![]);
        config.env_file = Some(file.clone());
        let read = crate::env_file::read_once(&config);
        std::fs::write(&file, "A=1\nLD_PRELOAD=/tmp/evil.so\n").unwrap();
        let store = crate::secrets::MemoryStore::default();
        let (env, _) = child_env(&read, &store, "s").unwrap();
        assert!(!env.contains_key("LD_PRELOAD"), "{env:?}");
        // Unread, it is read now.
        let (env, _) = child_env(&config, &store, "s").unwrap();
        assert_eq!(env["LD_PRELOAD"], "/tmp/evil.so");
        // The reading's Debug names variables, never values.
        let shown = format!("{:?}", crate::env_file::read_once(&config));
        assert!(
            shown.contains("LD_PRELOAD") && !shown.contains("evil"),
            "{shown}"
        );
    }
}
