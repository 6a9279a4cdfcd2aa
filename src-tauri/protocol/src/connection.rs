//! One live MCP connection: how it is opened (stdio child or HTTP, either protocol era through
//! rmcp's auto lifecycle) and every request the host makes on it, each under the server's request
//! timeout (restarted only by the request's own progress, capped by a maximum total time) with
//! `notifications/cancelled` sent when a request is abandoned. Lists follow every cursor, with
//! guards against servers that never stop paging.

// What this module handles of sampling, roots or logging is deprecated by SEP-2577 for
// 2026-07-28 and later; Switchboard speaks every revision, and these are central to it.
#![allow(deprecated)]

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolResult, ClientRequest, CompleteRequest, CompleteRequestParams, CompleteResult,
    DiscoverRequest, DiscoverRequestParams, GetPromptRequestParams, GetPromptResult,
    ListResourcesResult, PaginatedRequestParams, PingRequest, Prompt, ReadResourceRequestParams,
    ReadResourceResult, Resource, ResourceTemplate, Root, ServerResult, SetLevelRequest,
    SubscribeRequest, Tool, UnsubscribeRequest,
};
use rmcp::service::{PeerRequestOptions, RunningService};
use rmcp::{RoleClient, ServiceError};
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::config::ServerConfig;
use crate::error::{Error, ErrorCode, Result};
use crate::handler::Approver;
mod connect;
mod request;
mod skills;
mod subscriptions;
mod task_call;

use crate::events::Bus;
pub use crate::events::ServerSummary;
use crate::handler::InboundHandler;
use crate::process::{self, BaseEnv, ProcessGroup, StderrRing};
use crate::secrets::SecretStore;
use crate::transport::CloseReason;
use crate::transport::task_fields::TaskFields;
pub use connect::{connect, connect_transport};
pub use skills::{
    DirectoryEntry, EXTENSION as SKILLS_EXTENSION, LoadedSkill, Skill, SkillFile, in_folder,
    skill_folder,
};
pub use task_call::LOST as TASK_LOST;

/// The shortest time a server gets to start and answer the handshake.
pub const MIN_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

/// The most pages a list may have before the host stops following cursors.
pub const MAX_PAGES: usize = 10_000;

/// The most items a list may have, across all its pages.
pub const MAX_LIST_ITEMS: usize = 200_000;

/// The most bytes (as JSON) a list may have, across all its pages.
pub const MAX_LIST_BYTES: usize = 64 * 1024 * 1024;

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
    pub events: Bus,
    pub base_env: BaseEnv,
    pub secrets: Arc<dyn SecretStore>,
    pub stderr: StderrRing,
    /// Where spawned children are recorded for reaping after a crash (none: not recorded).
    pub records: Option<process::records::ProcessRecords>,
    /// The OS sandbox a local server runs in (none: unsandboxed).
    pub sandbox: Option<Sandboxing>,
    /// Hosts its sandbox's proxy refused (a server limited to listed hosts).
    pub refused_hosts: crate::egress::RefusedHosts,
    /// Where what crosses the wire is recorded ([`TrafficRing::off`]: nowhere).
    pub traffic: crate::traffic::TrafficRing,
}

/// A local server's sandbox: where boxes live, and this server's profile.
#[derive(Debug, Clone, PartialEq)]
pub struct Sandboxing {
    pub place: switchboard_sandbox::BoxPlace,
    pub profile: crate::config::SandboxProfile,
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

impl Connection {
    /// Whether its process runs in the OS sandbox.
    pub fn sandboxed(&self) -> bool {
        self.inner.sandboxed
    }

    /// For a sandboxed server's result that reads as a refusal (EACCES, EPERM…): what the
    /// sandbox may have refused and where to allow it.
    pub fn sandbox_hint(&self, result: &CallToolResult) -> Option<String> {
        if !self.inner.sandboxed {
            return None;
        }
        result
            .content
            .iter()
            .filter_map(|c| c.as_text())
            .find_map(|t| switchboard_sandbox::hints::refusal_hint(&self.inner.server, &t.text))
    }

    /// Whether `other` is this same connection (not a later one to the same server).
    pub fn same_as(&self, other: &Connection) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Whether `other` is this very connection (not a later one to the same server).
    pub fn same(&self, other: &Connection) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
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
    service: RunningService<RoleClient, InboundHandler>,
    summary: ServerSummary,
    timeout: Duration,
    max_total: Duration,
    close_reason: CloseReason,
    closed: CancellationToken,
    stderr: StderrRing,
    /// On 2026-07-28 connections: resource URIs the listen stream subscribes to.
    subscriptions: watch::Sender<BTreeSet<String>>,
    modern: bool,
    /// Whether requests carry the tokens of a sign-in.
    signed_in: bool,
    /// The challenge of the server's last 403 `insufficient_scope`: what to sign in with to get
    /// the access it asked for. Only held for a swap, never across an await.
    scope_challenge: std::sync::Mutex<Option<String>>,
    /// Where task status changes are reported.
    events: Bus,
    /// What the transport saw of tasks that rmcp's types drop (2025-11-25, stdio).
    task_fields: TaskFields,
    /// Whether the server is reached over the network (its loss shows only as silence).
    remote: bool,
    /// Woken when a request failed at the transport or went unanswered: the supervisor then
    /// checks at once whether the server is still there.
    suspect: tokio::sync::Notify,
    /// Whether its process runs in the OS sandbox.
    sandboxed: bool,
}

/// Builds an rmcp parameter struct from wire JSON (rmcp's structs are non-exhaustive).
pub fn params<T: DeserializeOwned>(value: Value) -> Result<T> {
    serde_json::from_value(value)
        .map_err(|e| Error::new(ErrorCode::InvalidInput, format!("invalid parameters: {e}")))
}

/// How many bytes `value` takes as JSON, without writing it anywhere.
fn json_len<T: serde::Serialize>(value: &T) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, value);
    count.0
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

    /// Runs one list page under the request timeout (a list is no long-running work, so
    /// progress does not extend it). Dropping `fut` makes rmcp send `notifications/cancelled`.
    async fn page_within<T>(
        &self,
        fut: impl Future<Output = Result<T, ServiceError>>,
    ) -> Result<T> {
        let inner = &self.inner;
        match tokio::time::timeout(inner.timeout, fut).await {
            Ok(r) => r.map_err(|e| self.map_error(e)),
            Err(_) => Err(self.request_error(ServiceError::Timeout {
                timeout: inner.timeout,
            })),
        }
    }

    fn map_error(&self, e: ServiceError) -> Error {
        let error = self.map_service_error(e);
        if error.code == ErrorCode::TransportClosed {
            self.suspect();
        }
        match error.code {
            ErrorCode::AuthRequired => self.lose_sign_in(error),
            ErrorCode::InsufficientScope => {
                *self.scope_slot() = error.challenge.clone();
                error
            }
            _ => error,
        }
    }

    /// A 401 in mid-session (after rmcp's one refresh and retry): the sign-in is gone, so the
    /// connection ends with that as its reason, and the supervisor shows the server as waiting
    /// for the person to sign in again instead of retrying.
    fn lose_sign_in(&self, mut error: Error) -> Error {
        if self.inner.signed_in {
            error.code = ErrorCode::SignInExpired;
            error.message = format!(
                "server {:?} no longer accepts the sign-in (it expired or was revoked); sign in again",
                self.inner.server
            );
        }
        self.inner.close_reason.set(error.clone());
        self.inner.service.cancellation_token().cancel();
        error
    }

    fn scope_slot(&self) -> std::sync::MutexGuard<'_, Option<String>> {
        // Only ever held for a swap: a poisoned lock holds no broken state.
        self.inner
            .scope_challenge
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// What the server said when it asked for more access (its last 403 `insufficient_scope`
    /// challenge), for signing in again with the scopes it named.
    pub fn scope_challenge(&self) -> Option<String> {
        self.scope_slot().clone()
    }

    /// Why the connection closed, when Switchboard knows better than "disconnected".
    pub fn close_reason(&self) -> Option<Error> {
        self.inner.close_reason.get()
    }

    /// Whether the server is reached over the network.
    pub fn is_remote(&self) -> bool {
        self.inner.remote
    }

    /// Says a request failed in a way a server that went away would explain.
    pub(crate) fn suspect(&self) {
        if self.inner.remote {
            self.inner.suspect.notify_one();
        }
    }

    /// Resolves when a request on this connection failed in a way a lost server would explain.
    pub async fn suspected(&self) {
        self.inner.suspect.notified().await;
    }

    /// Ends the connection because the server is gone: requests still waiting fail at once
    /// with `error`, and the supervisor reconnects.
    pub fn lose(&self, error: Error) {
        self.inner.close_reason.set(error);
        self.inner.service.cancellation_token().cancel();
    }

    fn map_service_error(&self, e: ServiceError) -> Error {
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
        T: serde::Serialize,
        F: FnMut(Option<PaginatedRequestParams>) -> Fut,
        Fut: Future<Output = Result<(Vec<T>, Option<String>), ServiceError>>,
    {
        let mut items = Vec::new();
        let mut bytes = 0;
        let mut cursor: Option<String> = None;
        let mut seen = std::collections::HashSet::new();
        for pages in 1..=MAX_PAGES {
            let (mut batch, next) = self.page_within(fetch(page(cursor.take()))).await?;
            bytes += json_len(&batch);
            items.append(&mut batch);
            if items.len() > MAX_LIST_ITEMS || bytes > MAX_LIST_BYTES {
                return Err(self.list_too_long(format!(
                    "more than {MAX_LIST_ITEMS} items or {} MiB",
                    MAX_LIST_BYTES >> 20
                )));
            }
            match next {
                Some(next) if !next.is_empty() => {
                    if !seen.insert(next.clone()) {
                        return Err(self.list_too_long(format!("the cursor {next:?} twice")));
                    }
                    cursor = Some(next);
                }
                _ => return Ok((items, pages)),
            }
        }
        Err(self.list_too_long(format!("more than {MAX_PAGES} pages")))
    }

    fn list_too_long(&self, what: String) -> Error {
        Error::new(
            ErrorCode::ServerError,
            format!(
                "server {:?} sent a list with {what}; Switchboard stopped reading it",
                self.inner.server
            ),
        )
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
        self.page_within(self.inner.service.peer().list_resources(page(cursor)))
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
        self.call_tool_for(None, name, arguments).await
    }

    /// Reads a resource.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult> {
        self.require("resources")?;
        let p: ReadResourceRequestParams = params(serde_json::json!({ "uri": uri }))?;
        self.read(p).await
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
        self.prompt(p).await
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
        match self
            .request(
                ClientRequest::CompleteRequest(CompleteRequest::new(p)),
                None,
            )
            .await?
        {
            ServerResult::CompleteResult(r) => Ok(r),
            _ => Err(self.unexpected("completion/complete")),
        }
    }

    /// `ping`.
    /// Checks the server answers: `ping` up to 2025-11-25; on 2026-07-28, which removed `ping`,
    /// a `server/discover` sent to the server (never answered from rmcp's cache).
    pub async fn ping(&self) -> Result<()> {
        self.ping_within(self.inner.timeout).await
    }

    /// [`Connection::ping`], waiting at most `within` for the answer.
    pub async fn ping_within(&self, within: Duration) -> Result<()> {
        let peer = self.inner.service.peer();
        let request = if self.inner.modern {
            ClientRequest::DiscoverRequest(DiscoverRequest::new(DiscoverRequestParams {}))
        } else {
            ClientRequest::PingRequest(PingRequest::default())
        };
        let handle = peer
            .send_request_with_option(request, PeerRequestOptions::with_timeout(within))
            .await
            .map_err(|e| self.map_error(e))?;
        handle
            .await_response()
            .await
            .map(|_| ())
            .map_err(|e| self.request_error(e))
    }

    /// `logging/setLevel`.
    #[allow(deprecated)]
    pub async fn set_log_level(&self, level: &str) -> Result<()> {
        self.require("logging")?;
        let p = params(serde_json::json!({ "level": level }))?;
        let request = ClientRequest::SetLevelRequest(SetLevelRequest::new(p));
        self.request(request, None).await.map(|_| ())
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
        let request = ClientRequest::SubscribeRequest(SubscribeRequest::new(p));
        self.request(request, None).await.map(|_| ())
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
        let request = ClientRequest::UnsubscribeRequest(UnsubscribeRequest::new(p));
        self.request(request, None).await.map(|_| ())
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

/// A timeout as a person reads it: `60 s`, `1.5 s`, `600 ms` (not `0s`).
pub(crate) fn spoken(d: Duration) -> String {
    if d.subsec_nanos() == 0 {
        format!("{} s", d.as_secs())
    } else if d < Duration::from_secs(1) {
        format!("{} ms", d.as_millis().max(1))
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}
