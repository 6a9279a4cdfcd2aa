//! One live MCP connection: how it is opened (stdio child or HTTP, either protocol era through
//! rmcp's auto lifecycle) and every request the host makes on it, each under the server's request
//! timeout (restarted by progress, capped by a maximum total time) with `notifications/cancelled`
//! sent when a request is abandoned. Lists follow every cursor, with guards against servers that
//! never stop paging.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientRequest, CompleteRequestParams, CompleteResult,
    GetPromptRequestParams, GetPromptResult, ListResourcesResult, PaginatedRequestParams,
    PingRequest, Prompt, ProtocolVersion, ReadResourceRequestParams, ReadResourceResult, Resource,
    ResourceTemplate, Root, ServerNotification, SubscriptionFilter, Tool,
};
use rmcp::service::{
    ClientInitializeError, ClientLifecycleMode, PeerRequestOptions, RunningService,
    serve_client_with_lifecycle,
};
use rmcp::{RoleClient, ServiceError};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use ts_rs::TS;

use crate::approvals::Approver;
use crate::config::{Endpoint, RemoteTransport, ServerConfig};
use crate::error::{Error, ErrorCode, Result};
use crate::events::{EventSender, HostEvent, ListKind};
use crate::handler::{DEFAULT_MAX_INBOUND, HostHandler};
use crate::process::{self, BaseEnv, ProcessGroup, StderrRing};
use crate::secrets::{self, SecretStore};
use crate::transport::{
    CloseReason, Monitored, legacy_sse::LegacySseTransport, stdio::StdioTransport,
};

/// The shortest time a server gets to start and answer the handshake.
pub const MIN_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

/// The most pages a list may have before the host stops following cursors.
pub const MAX_PAGES: usize = 10_000;

/// Everything needed to open a connection to one server.
#[derive(Clone)]
pub struct ConnectOptions {
    pub server: String,
    pub config: ServerConfig,
    /// The file the config came from (for error messages).
    pub config_file: PathBuf,
    /// Overrides the server's request timeout (the CLI's `--timeout`).
    pub timeout: Option<Duration>,
    pub roots: watch::Receiver<Vec<Root>>,
    pub approver: Arc<dyn Approver>,
    pub events: EventSender,
    pub base_env: BaseEnv,
    pub secrets: Arc<dyn SecretStore>,
    pub stderr: StderrRing,
}

/// What the handshake told us about the server, as the UI and CLI show it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ServerSummary {
    pub protocol_version: String,
    #[ts(type = "Record<string, unknown> | null")]
    pub server_info: Value,
    #[ts(type = "Record<string, unknown>")]
    pub capabilities: Value,
    pub instructions: Option<String>,
}

/// A connection plus what must be torn down with it.
pub struct Live {
    pub connection: Connection,
    /// The child's process group for stdio servers.
    pub process: Option<ProcessGroup>,
    /// Cancelled when the transport closes.
    pub closed: CancellationToken,
}

impl Live {
    /// Closes the connection and, for stdio, runs the spec's shutdown on the process group.
    pub async fn shutdown(mut self) {
        self.connection.inner.service.cancellation_token().cancel();
        // The service task drops the transport (closing stdin) once it sees the cancellation.
        let _ = tokio::time::timeout(Duration::from_secs(1), self.closed.cancelled()).await;
        if let Some(mut group) = self.process.take() {
            group.shutdown(process::SHUTDOWN_STEP).await;
        }
    }
}

/// A live connection; cheap to clone, usable from many tasks at once.
#[derive(Clone)]
pub struct Connection {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("server", &self.inner.server)
            .field("protocol_version", &self.inner.summary.protocol_version)
            .finish_non_exhaustive()
    }
}

struct Inner {
    server: String,
    service: RunningService<RoleClient, HostHandler>,
    summary: ServerSummary,
    timeout: Duration,
    max_total: Duration,
    progress: watch::Receiver<u64>,
    close_reason: CloseReason,
    closed: CancellationToken,
    stderr: StderrRing,
    /// On 2026-07-28 connections: resource URIs the listen stream subscribes to.
    subscriptions: watch::Sender<BTreeSet<String>>,
    modern: bool,
}

/// Expands secret and environment references in a server's env (plus its `envFile`).
fn child_env(
    config: &ServerConfig,
    store: &dyn SecretStore,
    server: &str,
) -> Result<BTreeMap<String, String>> {
    let mut env = BTreeMap::new();
    if let Some(file) = &config.env_file {
        let text = std::fs::read_to_string(file).map_err(|e| {
            Error::new(
                ErrorCode::ConfigInvalid,
                format!("server {server:?}: envFile {}: {e}", file.display()),
            )
        })?;
        for line in text.lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let line = line.strip_prefix("export ").unwrap_or(line);
            if let Some((k, v)) = line.split_once('=') {
                let v = v.trim().trim_matches('"').trim_matches('\'');
                env.insert(k.trim().to_owned(), v.to_owned());
            }
        }
    }
    for (k, v) in &config.env {
        env.insert(k.clone(), secrets::expand(v, store)?);
    }
    Ok(env)
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
        // A legacy server that answers `server/discover` with something other than an error
        // (some answer every unknown method with `{}`) is a legacy server all the same.
        Err(Failure::DiscoverMisanswered(e)) => {
            tracing::info!(server = %opts.server, "server/discover got a non-discover answer ({}); using initialize", e.message);
            connect_with(opts, ClientLifecycleMode::Initialize)
                .await
                .map_err(Failure::into_error)
        }
        Err(Failure::Error(e)) => Err(e),
    }
}

/// Why an attempt to connect failed.
enum Failure {
    Error(Error),
    /// The server answered `server/discover` with a success that is not a discover result.
    DiscoverMisanswered(Error),
}

impl Failure {
    fn into_error(self) -> Error {
        match self {
            Failure::Error(e) | Failure::DiscoverMisanswered(e) => e,
        }
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Error(e)
    }
}

fn is_misanswered_discover(e: &ClientInitializeError, lifecycle: &ClientLifecycleMode) -> bool {
    matches!(lifecycle, ClientLifecycleMode::Auto { .. })
        && matches!(e, ClientInitializeError::ExpectedInitResult(_))
}

async fn connect_with(
    opts: ConnectOptions,
    lifecycle: ClientLifecycleMode,
) -> std::result::Result<Live, Failure> {
    let ConnectOptions {
        server,
        config,
        config_file,
        timeout,
        roots,
        approver,
        events,
        base_env,
        secrets: store,
        stderr,
    } = opts;
    let endpoint = config.endpoint(&config_file, &server)?;
    let timeout = timeout.unwrap_or_else(|| config.request_timeout());
    // Starting a server (an `npx` download, an interpreter warming up) can take longer than one
    // request should.
    let startup = timeout.max(MIN_STARTUP_TIMEOUT);
    let max_message = config.max_message_bytes();
    let handler = HostHandler::new(
        &server,
        approver.clone(),
        roots.clone(),
        events.clone(),
        DEFAULT_MAX_INBOUND,
    );
    let mut progress = handler.progress_watch();
    let close_reason = CloseReason::default();
    let closed = CancellationToken::new();

    let (service, process) = match endpoint {
        Endpoint::Stdio { command, args, cwd } => {
            let env = child_env(&config, store.as_ref(), &server)?;
            let spec = process::SpawnSpec {
                server: &server,
                command: &command,
                args: &args,
                cwd: cwd.as_deref(),
                env: &env,
            };
            let stderr_mark = stderr.mark();
            let child = process::spawn(&spec, &base_env, &stderr)?;
            let mut group = child.group;
            let transport = Monitored::new(
                StdioTransport::new(
                    &server,
                    child.stdout,
                    child.stdin,
                    max_message,
                    close_reason.clone(),
                ),
                closed.clone(),
            );
            let handshake = tokio::time::timeout(
                startup,
                serve_client_with_lifecycle(handler, transport, lifecycle.clone()),
            )
            .await;
            match handshake {
                Ok(Ok(service)) => (service, Some(group)),
                failed => {
                    let misanswered =
                        matches!(&failed, Ok(Err(e)) if is_misanswered_discover(e, &lifecycle));
                    let why = match failed {
                        Ok(Err(e)) => e.to_string(),
                        _ => format!("no answer within {}s", startup.as_secs()),
                    };
                    // Give the child a moment to finish writing stderr before it is reported.
                    let exit = tokio::time::timeout(Duration::from_millis(300), group.wait())
                        .await
                        .ok()
                        .flatten();
                    group.shutdown(Duration::from_millis(500)).await;
                    let error = handshake_error(
                        &server,
                        &why,
                        exit,
                        &close_reason,
                        &stderr.lines_since(stderr_mark),
                    );
                    return Err(if misanswered {
                        Failure::DiscoverMisanswered(error)
                    } else {
                        Failure::Error(error)
                    });
                }
            }
        }
        Endpoint::Remote { url, transport } => {
            let headers = remote_headers(&config, store.as_ref(), &server)?;
            let fresh_handler = || {
                HostHandler::new(
                    &server,
                    approver.clone(),
                    roots.clone(),
                    events.clone(),
                    DEFAULT_MAX_INBOUND,
                )
            };
            let streamable = async || {
                let mut http = rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(url.as_str())
                    .custom_headers(headers.clone());
                http.max_sse_event_size = max_message;
                let transport = Monitored::new(
                    rmcp::transport::StreamableHttpClientTransport::from_config(http),
                    closed.clone(),
                );
                let handler = fresh_handler();
                let progress = handler.progress_watch();
                handshake(
                    &server,
                    &url,
                    startup,
                    &lifecycle,
                    serve_client_with_lifecycle(handler, transport, lifecycle.clone()),
                )
                .await
                .map(|s| (s, progress))
            };
            let legacy = async || {
                let header_map = headers
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                let sse = LegacySseTransport::connect(
                    &server,
                    url.clone(),
                    header_map,
                    max_message,
                    close_reason.clone(),
                )
                .await
                .map_err(Failure::Error)?;
                let handler = fresh_handler();
                let progress = handler.progress_watch();
                let transport = Monitored::new(sse, closed.clone());
                // The 2024-11-05 transport implies the initialize era.
                let initialize = ClientLifecycleMode::Initialize;
                handshake(
                    &server,
                    &url,
                    startup,
                    &initialize,
                    serve_client_with_lifecycle(handler, transport, initialize.clone()),
                )
                .await
                .map(|s| (s, progress))
            };
            let (service, remote_progress) = match transport {
                RemoteTransport::StreamableHttp => streamable().await?,
                RemoteTransport::Sse => legacy().await?,
                // The spec's backwards-compatible fallback: a server that rejects the
                // Streamable HTTP handshake is tried as a 2024-11-05 HTTP+SSE server.
                RemoteTransport::Auto => match streamable().await {
                    Ok(done) => done,
                    Err(Failure::DiscoverMisanswered(e)) => {
                        return Err(Failure::DiscoverMisanswered(e));
                    }
                    Err(Failure::Error(first)) => {
                        tracing::info!(
                            server,
                            "Streamable HTTP failed ({}); trying legacy HTTP+SSE",
                            first.message
                        );
                        legacy().await.map_err(|second| {
                            Error::new(
                                ErrorCode::ConnectFailed,
                                format!(
                                    "{}; the legacy HTTP+SSE fallback failed too: {}",
                                    first.message,
                                    second.into_error().message
                                ),
                            )
                        })?
                    }
                },
            };
            progress = remote_progress;
            (service, None)
        }
    };

    let summary = summarize(&service);
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
    Ok(Live {
        connection: Connection {
            inner: Arc::new(Inner {
                server,
                service,
                summary,
                timeout,
                max_total: config.max_total().max(timeout),
                progress,
                close_reason,
                closed: closed.clone(),
                stderr,
                subscriptions,
                modern,
            }),
        },
        process,
        closed,
    })
}

/// Runs a remote handshake under the timeout, with errors that name the server and URL.
async fn handshake<F>(
    server: &str,
    url: &url::Url,
    timeout: Duration,
    lifecycle: &ClientLifecycleMode,
    fut: F,
) -> std::result::Result<RunningService<RoleClient, HostHandler>, Failure>
where
    F: Future<
        Output = std::result::Result<
            RunningService<RoleClient, HostHandler>,
            ClientInitializeError,
        >,
    >,
{
    match tokio::time::timeout(timeout, fut).await {
        Ok(Ok(service)) => Ok(service),
        Ok(Err(e)) => {
            let error = Error::new(
                ErrorCode::ConnectFailed,
                format!("server {server:?} at {url}: {e}"),
            );
            Err(if is_misanswered_discover(&e, lifecycle) {
                Failure::DiscoverMisanswered(error)
            } else {
                Failure::Error(error)
            })
        }
        Err(_) => Err(Failure::Error(Error::new(
            ErrorCode::ConnectFailed,
            format!(
                "server {server:?}: no answer from {url} within {}s",
                timeout.as_secs()
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
    let mut message = match exit {
        Some(status) => format!("server {server:?} exited during startup ({status})"),
        None => format!("server {server:?} failed to initialize: {why}"),
    };
    if !tail.is_empty() {
        let start = tail.len().saturating_sub(5);
        message.push_str("; stderr: ");
        message.push_str(&tail[start..].join(" | "));
    }
    Error::new(ErrorCode::ConnectFailed, message)
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
        let value =
            reqwest::header::HeaderValue::from_str(&secrets::expand(v, store)?).map_err(|e| {
                Error::new(
                    ErrorCode::ConfigInvalid,
                    format!("server {server:?}: field `headers.{k}`: {e}"),
                )
            })?;
        out.insert(name, value);
    }
    Ok(out)
}

fn summarize(service: &RunningService<RoleClient, HostHandler>) -> ServerSummary {
    match service.peer().peer_info() {
        Some(info) => ServerSummary {
            protocol_version: info.protocol_version.to_string(),
            server_info: serde_json::to_value(&info.server_info).unwrap_or(Value::Null),
            capabilities: serde_json::to_value(&info.capabilities).unwrap_or_default(),
            instructions: info.instructions.clone(),
        },
        None => ServerSummary {
            protocol_version: String::new(),
            server_info: Value::Null,
            capabilities: Value::Object(Default::default()),
            instructions: None,
        },
    }
}

/// Builds an rmcp parameter struct from wire JSON (rmcp's structs are non-exhaustive).
pub fn params<T: DeserializeOwned>(value: Value) -> Result<T> {
    serde_json::from_value(value)
        .map_err(|e| Error::new(ErrorCode::InvalidInput, format!("invalid parameters: {e}")))
}

fn page(cursor: Option<String>) -> Option<PaginatedRequestParams> {
    cursor.map(|c| serde_json::from_value(serde_json::json!({ "cursor": c })).unwrap_or_default())
}

impl Connection {
    /// The configured server name.
    pub fn server(&self) -> &str {
        &self.inner.server
    }

    /// Protocol version, server info, capabilities and instructions.
    pub fn summary(&self) -> &ServerSummary {
        &self.inner.summary
    }

    /// Whether the transport has closed.
    pub fn is_closed(&self) -> bool {
        self.inner.closed.is_cancelled()
    }

    /// The server's recent stderr lines.
    pub fn stderr(&self) -> Vec<String> {
        self.inner.stderr.lines()
    }

    fn has_capability(&self, name: &str) -> bool {
        self.inner
            .summary
            .capabilities
            .get(name)
            .is_some_and(|v| !v.is_null())
    }

    fn require(&self, capability: &str) -> Result<()> {
        if self.has_capability(capability) {
            Ok(())
        } else {
            Err(Error::new(
                ErrorCode::NotSupported,
                format!("server {:?} does not offer {capability}", self.inner.server),
            ))
        }
    }

    /// Runs one request under the timeout rules. Dropping `fut` on timeout makes rmcp send
    /// `notifications/cancelled` for it.
    async fn run<T>(&self, fut: impl Future<Output = Result<T, ServiceError>>) -> Result<T> {
        let inner = &self.inner;
        let mut progress = inner.progress.clone();
        let idle = tokio::time::sleep(inner.timeout);
        let total = tokio::time::sleep(inner.max_total);
        tokio::pin!(fut, idle, total);
        loop {
            tokio::select! {
                r = &mut fut => return r.map_err(|e| self.map_error(e)),
                _ = &mut idle => return Err(Error::new(ErrorCode::Timeout, format!(
                    "server {:?} did not answer within {}s; the request was cancelled",
                    inner.server, inner.timeout.as_secs()))),
                _ = &mut total => return Err(Error::new(ErrorCode::Timeout, format!(
                    "server {:?} exceeded the maximum total time of {}s; the request was cancelled",
                    inner.server, inner.max_total.as_secs()))),
                changed = progress.changed() => {
                    if changed.is_ok() {
                        idle.as_mut().reset(tokio::time::Instant::now() + inner.timeout);
                    } else {
                        // The handler is gone: wait for the request itself to fail.
                        return fut.await.map_err(|e| self.map_error(e));
                    }
                }
            }
        }
    }

    fn map_error(&self, e: ServiceError) -> Error {
        if matches!(
            e,
            ServiceError::TransportClosed | ServiceError::TransportSend(_)
        ) && let Some(reason) = self.inner.close_reason.get()
        {
            return reason;
        }
        let mut err = Error::from(e);
        if err.code == ErrorCode::TransportClosed {
            err.message = format!(
                "the connection to server {:?} closed before it answered",
                self.inner.server
            );
        }
        err
    }

    async fn all_pages<T, F, Fut>(&self, mut fetch: F) -> Result<(Vec<T>, usize)>
    where
        F: FnMut(Option<PaginatedRequestParams>) -> Fut,
        Fut: Future<Output = Result<(Vec<T>, Option<String>), ServiceError>>,
    {
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen = std::collections::HashSet::new();
        for pages in 1..=MAX_PAGES {
            let (mut batch, next) = self.run(fetch(page(cursor.take()))).await?;
            items.append(&mut batch);
            match next {
                Some(next) if !next.is_empty() => {
                    if !seen.insert(next.clone()) {
                        return Err(Error::new(
                            ErrorCode::ServerError,
                            format!(
                                "server {:?} repeated the cursor {next:?}",
                                self.inner.server
                            ),
                        ));
                    }
                    cursor = Some(next);
                }
                _ => return Ok((items, pages)),
            }
        }
        Err(Error::new(
            ErrorCode::ServerError,
            format!(
                "server {:?} returned more than {MAX_PAGES} pages",
                self.inner.server
            ),
        ))
    }

    /// Every tool, following every cursor.
    pub async fn list_tools(&self) -> Result<Vec<Tool>> {
        self.require("tools")?;
        let peer = self.inner.service.peer();
        Ok(self
            .all_pages(|p| async move {
                let r = peer.list_tools(p).await?;
                Ok((r.tools, r.next_cursor))
            })
            .await?
            .0)
    }

    /// Every resource and how many pages it took.
    pub async fn list_resources(&self) -> Result<(Vec<Resource>, usize)> {
        self.require("resources")?;
        let peer = self.inner.service.peer();
        self.all_pages(|p| async move {
            let r = peer.list_resources(p).await?;
            Ok((r.resources, r.next_cursor))
        })
        .await
    }

    /// One page of resources, for browsers that load incrementally: pass the previous page's
    /// `next_cursor` to get the next one.
    pub async fn list_resources_page(&self, cursor: Option<String>) -> Result<ListResourcesResult> {
        self.require("resources")?;
        self.run(self.inner.service.peer().list_resources(page(cursor)))
            .await
    }

    /// Every resource template.
    pub async fn list_resource_templates(&self) -> Result<Vec<ResourceTemplate>> {
        self.require("resources")?;
        let peer = self.inner.service.peer();
        Ok(self
            .all_pages(|p| async move {
                let r = peer.list_resource_templates(p).await?;
                Ok((r.resource_templates, r.next_cursor))
            })
            .await?
            .0)
    }

    /// Every prompt.
    pub async fn list_prompts(&self) -> Result<Vec<Prompt>> {
        self.require("prompts")?;
        let peer = self.inner.service.peer();
        Ok(self
            .all_pages(|p| async move {
                let r = peer.list_prompts(p).await?;
                Ok((r.prompts, r.next_cursor))
            })
            .await?
            .0)
    }

    /// Calls a tool. Input requests of a 2026-07-28 server are answered through the handler.
    pub async fn call_tool(&self, name: &str, arguments: Option<Value>) -> Result<CallToolResult> {
        self.require("tools")?;
        let mut p = serde_json::json!({ "name": name });
        if let Some(args) = arguments {
            if !args.is_object() {
                return Err(Error::new(
                    ErrorCode::InvalidInput,
                    "tool arguments must be a JSON object",
                ));
            }
            p["arguments"] = args;
        }
        let p: CallToolRequestParams = params(p)?;
        self.run(self.inner.service.call_tool(p)).await
    }

    /// Reads a resource.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult> {
        self.require("resources")?;
        let p: ReadResourceRequestParams = params(serde_json::json!({ "uri": uri }))?;
        self.run(self.inner.service.read_resource(p)).await
    }

    /// Gets a prompt with arguments.
    pub async fn get_prompt(
        &self,
        name: &str,
        arguments: Option<Value>,
    ) -> Result<GetPromptResult> {
        self.require("prompts")?;
        let mut p = serde_json::json!({ "name": name });
        if let Some(args) = arguments {
            p["arguments"] = args;
        }
        let p: GetPromptRequestParams = params(p)?;
        self.run(self.inner.service.get_prompt(p)).await
    }

    /// `completion/complete` for a prompt argument or a resource-template argument.
    pub async fn complete(
        &self,
        reference: CompletionRef,
        argument: &str,
        value: &str,
        context: Option<Value>,
    ) -> Result<CompleteResult> {
        self.require("completions")?;
        let r = match reference {
            CompletionRef::Prompt(name) => serde_json::json!({"type": "ref/prompt", "name": name}),
            CompletionRef::Template(uri) => {
                serde_json::json!({"type": "ref/resource", "uri": uri})
            }
        };
        let mut p = serde_json::json!({"ref": r, "argument": {"name": argument, "value": value}});
        if let Some(c) = context {
            p["context"] = serde_json::json!({ "arguments": c });
        }
        let p: CompleteRequestParams = params(p)?;
        self.run(self.inner.service.peer().complete(p)).await
    }

    /// `ping`.
    pub async fn ping(&self) -> Result<()> {
        let peer = self.inner.service.peer();
        self.run(async {
            let handle = peer
                .send_request_with_option(
                    ClientRequest::PingRequest(PingRequest::default()),
                    PeerRequestOptions::with_timeout(self.inner.timeout),
                )
                .await?;
            handle.await_response().await.map(|_| ())
        })
        .await
    }

    /// `logging/setLevel`.
    #[allow(deprecated)]
    pub async fn set_log_level(&self, level: &str) -> Result<()> {
        self.require("logging")?;
        let p = params(serde_json::json!({ "level": level }))?;
        self.run(self.inner.service.peer().set_level(p)).await
    }

    /// Subscribes to updates of a resource: `resources/subscribe` up to 2025-11-25, the
    /// `subscriptions/listen` filter on 2026-07-28.
    #[allow(deprecated)]
    pub async fn subscribe(&self, uri: &str) -> Result<()> {
        self.require("resources")?;
        if self.inner.modern {
            self.inner
                .subscriptions
                .send_if_modified(|s| s.insert(uri.to_owned()));
            return Ok(());
        }
        let p = params(serde_json::json!({ "uri": uri }))?;
        self.run(self.inner.service.peer().subscribe(p)).await
    }

    /// Ends a resource subscription.
    #[allow(deprecated)]
    pub async fn unsubscribe(&self, uri: &str) -> Result<()> {
        self.require("resources")?;
        if self.inner.modern {
            self.inner.subscriptions.send_if_modified(|s| s.remove(uri));
            return Ok(());
        }
        let p = params(serde_json::json!({ "uri": uri }))?;
        self.run(self.inner.service.peer().unsubscribe(p)).await
    }

    /// `notifications/roots/list_changed`.
    pub async fn notify_roots_changed(&self) -> Result<()> {
        self.inner
            .service
            .peer()
            .notify_roots_list_changed()
            .await
            .map_err(|e| self.map_error(e))
    }
}

/// What `completion/complete` completes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompletionRef {
    /// A prompt argument.
    Prompt(String),
    /// A resource-template argument (the template's URI).
    Template(String),
}

/// Whether the connection uses the stateless 2026-07-28 era (no `initialize`).
fn is_modern(service: &RunningService<RoleClient, HostHandler>) -> bool {
    service
        .peer()
        .peer_info()
        .is_some_and(|info| !info.protocol_version.has_initialize())
}

/// The list-changed notifications a modern server's capabilities say it can send.
fn base_filter(summary: &ServerSummary) -> SubscriptionFilter {
    let offers = |cap: &str| {
        summary
            .capabilities
            .pointer(&format!("/{cap}/listChanged"))
            .and_then(Value::as_bool)
            .unwrap_or(false)
            .then_some(true)
    };
    let mut filter = SubscriptionFilter::new();
    filter.tools_list_changed = offers("tools");
    filter.prompts_list_changed = offers("prompts");
    filter.resources_list_changed = offers("resources");
    filter
}

/// On 2026-07-28, list changes and resource updates arrive only on a `subscriptions/listen`
/// stream. This task keeps one open with the current filter, re-listening when the set of
/// subscribed resources changes, and turns what arrives into host events.
async fn listen_loop(
    peer: rmcp::service::Peer<RoleClient>,
    server: String,
    base: SubscriptionFilter,
    mut uris: watch::Receiver<BTreeSet<String>>,
    events: EventSender,
    closed: CancellationToken,
) {
    loop {
        let mut filter = base.clone();
        let wanted: Vec<String> = uris.borrow_and_update().iter().cloned().collect();
        if !wanted.is_empty() {
            filter.resource_subscriptions = Some(wanted);
        }
        let nothing = filter == SubscriptionFilter::new();
        let mut subscription = if nothing {
            None
        } else {
            tokio::select! {
                r = peer.listen(filter) => match r {
                    Ok(s) => Some(s),
                    Err(e) => {
                        tracing::warn!(server, "subscriptions/listen failed: {e}");
                        None
                    }
                },
                _ = closed.cancelled() => return,
            }
        };
        loop {
            tokio::select! {
                n = async {
                    match subscription.as_mut() {
                        Some(s) => s.next().await,
                        None => std::future::pending().await,
                    }
                } => match n {
                    Ok(Some(notification)) => {
                        if let Some(event) = subscription_event(&server, notification) {
                            let _ = events.send(event);
                        }
                    }
                    // The server ended the stream; wait for a new filter before asking again.
                    Ok(None) | Err(_) => subscription = None,
                },
                changed = uris.changed() => {
                    if changed.is_err() {
                        return;
                    }
                    if let Some(mut s) = subscription.take() {
                        let _ = s.cancel().await;
                    }
                    break;
                }
                _ = closed.cancelled() => return,
            }
        }
    }
}

fn subscription_event(server: &str, notification: ServerNotification) -> Option<HostEvent> {
    let server = server.to_owned();
    match notification {
        ServerNotification::ToolListChangedNotification(_) => Some(HostEvent::ListChanged {
            server,
            list: ListKind::Tools,
        }),
        ServerNotification::PromptListChangedNotification(_) => Some(HostEvent::ListChanged {
            server,
            list: ListKind::Prompts,
        }),
        ServerNotification::ResourceListChangedNotification(_) => Some(HostEvent::ListChanged {
            server,
            list: ListKind::Resources,
        }),
        ServerNotification::ResourceUpdatedNotification(n) => Some(HostEvent::ResourceUpdated {
            server,
            uri: n.params.uri,
        }),
        _ => None,
    }
}
