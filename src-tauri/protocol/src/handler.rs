//! The one handler for everything a server sends to the client: server→client requests (sampling,
//! elicitation, roots/list — including the 2026-07-28 input requests rmcp routes here during
//! multi round-trip calls) and notifications. Requests that need a person go through the injected
//! [`Approver`]; a per-server semaphore bounds how many are in flight so a flooding server cannot
//! pile up work in the host. On 2025-11-25 a server may ask for sampling or elicitation as a task:
//! the handler answers at once and runs the review in the background ([`ClientTasks`]).

// What this module handles of sampling, roots or logging is deprecated by SEP-2577 for
// 2026-07-28 and later; Switchboard speaks every revision, and these are central to it.
#![allow(deprecated)]

use std::sync::Arc;

use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    CustomRequest, CustomResult, ElicitRequestParams, ElicitResult, ErrorCode as McpErrorCode,
    ErrorData as McpError, Implementation, ListRootsResult, LoggingMessageNotificationParam,
    ProgressNotificationParam, ResourceUpdatedNotificationParam, Root,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient};
use serde_json::{Value, json};
use tokio::sync::{Semaphore, watch};

use crate::events::{Bus, ListKind, ServerEvent};
use crate::tasks::client::ClientTasks;
use crate::transport::task_fields::TASK_AUGMENTED;
pub use approver::{Approver, Origin};

pub mod approver;
mod limits;
mod progress;

pub use limits::{LOGS_PER_SECOND, MAX_LOG_BYTES, MAX_PROGRESS_MESSAGE};
use limits::{LogAdmission, LogBudget, bounded_log_data, bounded_text};
pub use progress::{ProgressRoute, ProgressRoutes};

/// Default bound on concurrent server→client requests per server.
pub const DEFAULT_MAX_INBOUND: usize = 16;

/// The JSON-RPC error code for "too many concurrent requests" (implementation-defined range).
pub const TOO_MANY_REQUESTS: i32 = -32000;

/// Per-server client handler. The supervisor sends new roots through the roots watch; the
/// connection opens a progress route for each request it sends.
pub struct InboundHandler {
    server: String,
    approver: Arc<dyn Approver>,
    roots: watch::Receiver<Vec<Root>>,
    inbound: Semaphore,
    events: Bus,
    progress: ProgressRoutes,
    // A plain lock: held for one arithmetic step, never across an await.
    logs: std::sync::Mutex<LogBudget>,
    /// The tasks this server has the client run (task-augmented sampling and elicitation).
    client_tasks: ClientTasks,
}

impl InboundHandler {
    /// A handler for `server`.
    pub fn new(
        server: impl Into<String>,
        approver: Arc<dyn Approver>,
        roots: watch::Receiver<Vec<Root>>,
        events: Bus,
        max_inbound: usize,
    ) -> Self {
        Self {
            server: server.into(),
            approver,
            roots,
            inbound: Semaphore::new(max_inbound),
            events,
            progress: ProgressRoutes::default(),
            logs: Default::default(),
            client_tasks: ClientTasks::default(),
        }
    }

    /// Where the connection registers the progress tokens of its requests.
    pub fn progress_routes(&self) -> &ProgressRoutes {
        &self.progress
    }

    fn origin(&self) -> Origin {
        Origin {
            server: self.server.clone(),
        }
    }

    fn permit(&self) -> Result<tokio::sync::SemaphorePermit<'_>, McpError> {
        self.inbound.try_acquire().map_err(|_| {
            tracing::warn!(server = %self.server, "rejected a server→client request: too many in flight");
            McpError::new(
                McpErrorCode(TOO_MANY_REQUESTS),
                "too many concurrent requests from this server",
                None,
            )
        })
    }

    fn emit(&self, event: ServerEvent) {
        self.events.publish(event);
    }

    /// Starts a task-augmented sampling or elicitation request as a client task: the review runs
    /// in the background, through the approver like any other.
    fn start_client_task(&self, method: &str, params: Value) -> Result<Value, McpError> {
        let ttl = params.pointer("/task/ttl").and_then(Value::as_u64);
        let (approver, origin) = (self.approver.clone(), self.origin());
        let work: futures::future::BoxFuture<'static, Result<Value, McpError>> = match method {
            "sampling/createMessage" => {
                let params: CreateMessageRequestParams = typed(params)?;
                Box::pin(async move { to_json(approver.sampling(origin, params).await?) })
            }
            "elicitation/create" => {
                let params: ElicitRequestParams = typed(params)?;
                Box::pin(async move { to_json(approver.elicitation(origin, params).await?) })
            }
            other => {
                return Err(McpError::new(
                    McpErrorCode::METHOD_NOT_FOUND,
                    other.to_owned(),
                    None,
                ));
            }
        };
        self.client_tasks.create(ttl, work)
    }
}

fn typed<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, McpError> {
    serde_json::from_value(params).map_err(|e| McpError::invalid_params(e.to_string(), None))
}

fn to_json<T: serde::Serialize>(value: T) -> Result<Value, McpError> {
    serde_json::to_value(value).map_err(|e| McpError::internal_error(e.to_string(), None))
}

fn task_id(params: Option<&Value>) -> Result<&str, McpError> {
    params
        .and_then(|p| p.get("taskId"))
        .and_then(Value::as_str)
        .ok_or_else(|| McpError::invalid_params("taskId is missing", None))
}

/// What Switchboard declares: roots with change notifications, sampling with tools (never
/// `includeContext`), elicitation in form and URL modes, MCP Apps (views in their HTML type) and
/// the 2026-07-28 tasks extension (the 2025-11-25 `tasks` capability has no place in rmcp's type:
/// the stdio transport adds it, see [`crate::transport::task_fields`]).
pub fn client_config() -> ClientConfig {
    let capabilities: ClientCapabilities = serde_json::from_value(json!({
        "roots": {"listChanged": true},
        "sampling": {"tools": {}},
        "elicitation": {"form": {}, "url": {}},
        "extensions": {
            crate::mcp_apps::EXTENSION_ID: crate::mcp_apps::capability(),
            (crate::tasks::wire::EXTENSION): {}
        }
    }))
    .unwrap_or_default();
    let mut info = Implementation::from_build_env();
    info.name = "switchboard".into();
    info.title = Some("Switchboard".into());
    info.version = env!("CARGO_PKG_VERSION").into();
    // `initialize` can only offer an initialize-era version; 2026-07-28 goes through discover.
    ClientConfig::new(capabilities, info)
        .with_protocol_version(rmcp::model::ProtocolVersion::LATEST_WITH_INITIALIZE)
}

impl ClientHandler for InboundHandler {
    fn get_info(&self) -> ClientConfig {
        client_config()
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, McpError> {
        let _permit = self.permit()?;
        tokio::select! {
            r = self.approver.sampling(self.origin(), params) => r,
            _ = context.ct.cancelled() => Err(McpError::new(McpErrorCode(-32800), "request cancelled by the server", None)),
        }
    }

    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        let _permit = self.permit()?;
        tokio::select! {
            r = self.approver.elicitation(self.origin(), params) => r,
            _ = context.ct.cancelled() => Err(McpError::new(McpErrorCode(-32800), "request cancelled by the server", None)),
        }
    }

    /// Task-augmented sampling and elicitation (renamed by the transport so they arrive whole)
    /// and the `tasks/*` requests about them.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleClient>,
    ) -> Result<CustomResult, McpError> {
        let _permit = self.permit()?;
        let params = request.params.as_ref();
        let answer = match request.method.as_str() {
            "tasks/get" => self.client_tasks.get(task_id(params)?),
            "tasks/list" => Ok(self.client_tasks.list()),
            "tasks/cancel" => self.client_tasks.cancel(task_id(params)?),
            "tasks/result" => {
                let id = task_id(params)?;
                tokio::select! {
                    r = self.client_tasks.result(id) => r,
                    _ = context.ct.cancelled() => Err(McpError::new(McpErrorCode(-32800), "request cancelled by the server", None)),
                }
            }
            method => match method.strip_prefix(TASK_AUGMENTED) {
                Some(method) => self.start_client_task(method, request.params.unwrap_or_default()),
                None => Err(McpError::new(
                    McpErrorCode::METHOD_NOT_FOUND,
                    method.to_owned(),
                    None,
                )),
            },
        };
        answer.map(CustomResult::new)
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, McpError> {
        let _permit = self.permit()?;
        Ok(ListRootsResult::new(self.roots.borrow().clone()))
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        // Heard, it restarts the idle timeout of the request that owns the token.
        let Some(call_id) = self.progress.hear(&params.progress_token) else {
            tracing::trace!(server = %self.server, "dropped progress for no request in flight");
            return;
        };
        self.emit(ServerEvent::Progress {
            server: self.server.clone(),
            call_id,
            progress_token: serde_json::to_value(&params.progress_token).unwrap_or_default(),
            progress: params.progress,
            total: params.total,
            message: params
                .message
                .map(|m| bounded_text(m, MAX_PROGRESS_MESSAGE)),
        });
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let admission = self
            .logs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .admit(std::time::Instant::now());
        let LogAdmission::Pass { dropped } = admission else {
            return;
        };
        if dropped > 0 {
            tracing::warn!(server = %self.server, dropped, "dropped server log messages over the budget");
            self.emit(ServerEvent::Log {
                server: self.server.clone(),
                level: "warning".into(),
                logger: Some("switchboard".into()),
                data: json!(format!(
                    "dropped {dropped} log messages from this server (more than {LOGS_PER_SECOND} a second)"
                )),
            });
        }
        let level = serde_json::to_value(params.level)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_else(|| "info".into());
        tracing::debug!(server = %self.server, %level, "server log message");
        self.emit(ServerEvent::Log {
            server: self.server.clone(),
            level,
            logger: params.logger.map(|l| bounded_text(l, MAX_PROGRESS_MESSAGE)),
            data: bounded_log_data(params.data),
        });
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.emit(ServerEvent::ResourceUpdated {
            server: self.server.clone(),
            uri: params.uri,
        });
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.emit(ServerEvent::ListChanged {
            server: self.server.clone(),
            list: ListKind::Resources,
        });
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.emit(ServerEvent::ListChanged {
            server: self.server.clone(),
            list: ListKind::Tools,
        });
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.emit(ServerEvent::ListChanged {
            server: self.server.clone(),
            list: ListKind::Prompts,
        });
    }
}

/// Converts filesystem paths to `file://` roots, skipping ones that cannot be expressed as URLs.
pub fn roots_from_paths(paths: &[std::path::PathBuf]) -> Vec<Root> {
    paths
        .iter()
        .filter_map(|p| {
            let abs = std::path::absolute(p).ok()?;
            let url = url::Url::from_directory_path(&abs)
                .or_else(|_| url::Url::from_file_path(&abs))
                .ok()?;
            let mut uri = url.to_string();
            // The filesystem server and most others expect no trailing slash.
            if uri.ends_with('/') && uri.len() > "file:///".len() {
                uri.pop();
            }
            let name = abs.file_name().map(|n| n.to_string_lossy().into_owned());
            let mut root = Root::new(uri);
            root.name = name;
            Some(root)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declares_sampling_with_tools_but_never_context() {
        let declared = serde_json::to_value(&client_config().capabilities).unwrap_or_default();
        // Without `sampling.context`, servers must not ask for `includeContext`.
        assert_eq!(declared["sampling"], json!({"tools": {}}));
        assert_eq!(declared["roots"], json!({"listChanged": true}));
        assert_eq!(declared["elicitation"], json!({"form": {}, "url": {}}));
        assert_eq!(
            declared["extensions"]["io.modelcontextprotocol/ui"],
            json!({"mimeTypes": ["text/html;profile=mcp-app"]})
        );
    }
}
