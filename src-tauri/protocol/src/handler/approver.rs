//! The port through which the handler asks for a decision on a server's request: who asked
//! ([`Origin`]) and who decides ([`Approver`]). It lives with the protocol that consumes it; the
//! policy layer ([`crate::approvals`]) implements it.

// What this module handles of sampling, roots or logging is deprecated by SEP-2577 for
// 2026-07-28 and later; Switchboard speaks every revision, and these are central to it.
#![allow(deprecated)]

use futures::future::BoxFuture;
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ErrorCode as McpErrorCode, ErrorData as McpError,
};

/// The JSON-RPC code a client returns when the user rejects a sampling request.
pub const USER_REJECTED: i32 = -1;

/// Who asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The configured server name.
    pub server: String,
}

/// Decides server→client requests. Implementations must answer even if no person does (a
/// timeout counts as a denial) and must honour cancellation by dropping the future.
pub trait Approver: Send + Sync + 'static {
    /// `sampling/createMessage`: return the (possibly edited) completion, or an error such as
    /// [`rejected_sampling`].
    fn sampling(
        &self,
        origin: Origin,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'static, Result<CreateMessageResult, McpError>>;

    /// `elicitation/create`: return accept (with content), decline or cancel.
    fn elicitation(
        &self,
        origin: Origin,
        params: ElicitRequestParams,
    ) -> BoxFuture<'static, Result<ElicitResult, McpError>>;
}

/// The error returned when sampling is rejected, as the spec's examples give it.
pub fn rejected_sampling() -> McpError {
    McpError::new(
        McpErrorCode(USER_REJECTED),
        "User rejected sampling request",
        None,
    )
}
