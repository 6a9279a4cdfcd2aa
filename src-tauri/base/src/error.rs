//! The one error type the core hands to its callers: a stable machine-readable [`ErrorCode`] plus a
//! human message. The UI receives it as `{code, message}`; the CLI prints it as one line.
//! [`explain`] turns a transport's causes into those messages.

pub mod explain;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// Stable error codes. Callers match on these, never on message text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ErrorCode {
    /// A configuration file could not be read or written.
    ConfigIo,
    /// A configuration file is malformed or a field has an invalid value.
    ConfigInvalid,
    /// No server with that name is configured.
    ServerNotFound,
    /// The server is configured but not connected (stopped, failed or still starting).
    ServerNotRunning,
    /// The server process could not be started.
    SpawnFailed,
    /// Connecting or the protocol handshake failed.
    ConnectFailed,
    /// A request exceeded its timeout; the server was sent `notifications/cancelled`.
    Timeout,
    /// The request was cancelled by the user.
    Cancelled,
    /// A message from the server exceeded the configured size cap; the connection was closed.
    MessageTooLarge,
    /// The connection to the server closed.
    TransportClosed,
    /// The server answered with a JSON-RPC error.
    ServerError,
    /// The server does not offer this capability.
    NotSupported,
    /// The server has no tool by that name.
    ToolNotFound,
    /// Invalid input from the caller (bad JSON arguments, unknown flag values).
    InvalidInput,
    /// The OS keychain failed (no Secret Service, locked keyring, missing entry).
    Keychain,
    /// A server→client request was denied by the user or by policy.
    Denied,
    /// An I/O error unrelated to configuration.
    Io,
    /// The database could not be opened, migrated, read or written.
    Storage,
    /// A server changed a tool definition or its instructions since the user approved them; the
    /// tool is blocked until the user reviews the difference.
    PinChanged,
    /// A per-server sampling limit (requests per minute, tokens per request or per day) was hit.
    LimitExceeded,
    /// An LLM provider failed: unreachable, rejected the key, or answered with an error.
    Provider,
    /// An approval did not match the request that was shown, or no such request is pending.
    ApprovalMismatch,
    /// The server requires sign-in (OAuth): nobody is signed in, or the tokens were rejected and
    /// could not be refreshed.
    AuthRequired,
    /// The server refused a sign-in that used to work (the tokens expired and could not be
    /// refreshed, or were revoked): the person has to sign in again.
    SignInExpired,
    /// Signing in failed: discovery, registration, the authorization step or the token exchange.
    AuthFailed,
    /// The authorization server refused the credentials a server's configuration signs in with
    /// (a machine grant's secret, key or token): asking again would only be refused again.
    SignInRefused,
    /// The server needs more access (scopes) than the signed-in user granted, and asking again
    /// did not get it.
    InsufficientScope,
    /// A configured server's launch definition is new or changed since the user trusted it: it
    /// is not spawned or dialed until the user has seen it and trusted it.
    NotTrusted,
    /// A local server's OS sandbox could not be built on this system (no Landlock, no
    /// seccomp): the server is not started, and the message says how to opt out for it.
    Sandbox,
    /// An invariant broke inside Switchboard.
    Internal,
}

impl ErrorCode {
    /// The snake_case name used on the wire and in CLI output.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::ConfigIo => "config_io",
            ErrorCode::ConfigInvalid => "config_invalid",
            ErrorCode::ServerNotFound => "server_not_found",
            ErrorCode::ServerNotRunning => "server_not_running",
            ErrorCode::SpawnFailed => "spawn_failed",
            ErrorCode::ConnectFailed => "connect_failed",
            ErrorCode::Timeout => "timeout",
            ErrorCode::Cancelled => "cancelled",
            ErrorCode::MessageTooLarge => "message_too_large",
            ErrorCode::TransportClosed => "transport_closed",
            ErrorCode::ServerError => "server_error",
            ErrorCode::NotSupported => "not_supported",
            ErrorCode::ToolNotFound => "tool_not_found",
            ErrorCode::InvalidInput => "invalid_input",
            ErrorCode::Keychain => "keychain",
            ErrorCode::Denied => "denied",
            ErrorCode::Io => "io",
            ErrorCode::Storage => "storage",
            ErrorCode::PinChanged => "pin_changed",
            ErrorCode::LimitExceeded => "limit_exceeded",
            ErrorCode::Provider => "provider",
            ErrorCode::ApprovalMismatch => "approval_mismatch",
            ErrorCode::AuthRequired => "auth_required",
            ErrorCode::SignInExpired => "sign_in_expired",
            ErrorCode::AuthFailed => "auth_failed",
            ErrorCode::SignInRefused => "sign_in_refused",
            ErrorCode::InsufficientScope => "insufficient_scope",
            ErrorCode::NotTrusted => "not_trusted",
            ErrorCode::Sandbox => "sandbox",
            ErrorCode::Internal => "internal",
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error with a stable code and a message meant for people.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS, thiserror::Error)]
#[error("{code}: {message}")]
#[ts(export)]
pub struct Error {
    pub code: ErrorCode,
    /// What failed, for which server, and what to try: sentences for people.
    pub message: String,
    /// What lies behind it (an HTTP status and a short excerpt of the body, what the platform
    /// said), for the CLI's second line and the window's "details". Bounded, secrets redacted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub details: Option<String>,
    /// The server's `WWW-Authenticate` challenge behind an [`ErrorCode::AuthRequired`] or
    /// [`ErrorCode::InsufficientScope`], for signing in with what the server asked for. Never
    /// sent to the UI.
    #[serde(skip)]
    #[ts(skip)]
    pub challenge: Option<String>,
    /// The JSON-RPC error code of a server's error answer, for the core's own decisions. Never
    /// sent to the UI.
    #[serde(skip)]
    #[ts(skip)]
    pub rpc_code: Option<i32>,
}

impl Error {
    /// Builds an error from a code and a message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            details: None,
            challenge: None,
            rpc_code: None,
        }
    }

    /// Whether the person has to sign in (again) before the server lets Switchboard in.
    pub fn needs_sign_in(&self) -> bool {
        matches!(
            self.code,
            ErrorCode::AuthRequired | ErrorCode::SignInExpired
        )
    }

    /// The same error, with `details` behind its message.
    pub fn with_details(mut self, details: impl Into<String>) -> Self {
        self.details = Some(details.into());
        self
    }

    /// The same error, carrying the server's `WWW-Authenticate` challenge.
    pub fn with_challenge(mut self, challenge: impl Into<String>) -> Self {
        self.challenge = Some(challenge.into());
        self
    }
}

/// Shorthand for results carrying the core's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::new(ErrorCode::Io, e.to_string())
    }
}

impl From<rmcp::ServiceError> for Error {
    fn from(e: rmcp::ServiceError) -> Self {
        use rmcp::ServiceError as S;
        match &e {
            S::McpError(data) => {
                // SDKs often put "MCP error <code>: " in the message themselves.
                let own = format!("MCP error {}: ", data.code.0);
                let message = data.message.strip_prefix(&own).unwrap_or(&data.message);
                let mut error = Error::new(
                    ErrorCode::ServerError,
                    format!("server error {}: {message}", data.code.0),
                );
                error.rpc_code = Some(data.code.0);
                error
            }
            S::Timeout { .. } => Error::new(
                ErrorCode::Timeout,
                format!("{e}; the server was sent notifications/cancelled"),
            ),
            S::Cancelled { .. } => Error::new(ErrorCode::Cancelled, e.to_string()),
            S::TransportSend(send) => auth_challenge(send).unwrap_or_else(|| {
                let mut error = explain::request(send);
                if error.code == ErrorCode::ConnectFailed {
                    error.code = ErrorCode::TransportClosed;
                }
                error
            }),
            S::TransportClosed => Error::new(
                ErrorCode::TransportClosed,
                "The connection to the server closed.",
            ),
            _ => Error::new(ErrorCode::ServerError, e.to_string()),
        }
    }
}

/// The server's 401 or 403 among the causes of `error`, as the error a caller sees (sign-in
/// required, or more access needed) carrying the server's `WWW-Authenticate` challenge.
pub fn auth_challenge(error: &(dyn std::error::Error + 'static)) -> Option<Error> {
    use rmcp::transport::streamable_http_client::{AuthRequiredError, InsufficientScopeError};
    let mut cause = Some(error);
    while let Some(current) = cause {
        if let Some(e) = current.downcast_ref::<AuthRequiredError>() {
            return Some(
                Error::new(ErrorCode::AuthRequired, "the server requires sign-in")
                    .with_challenge(e.www_authenticate_header.clone()),
            );
        }
        if let Some(e) = current.downcast_ref::<InsufficientScopeError>() {
            return Some(
                Error::new(
                    ErrorCode::InsufficientScope,
                    "the server needs more access than was granted at sign-in",
                )
                .with_challenge(e.www_authenticate_header.clone()),
            );
        }
        cause = current.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_server_error_is_prefixed_once() {
        let data = rmcp::model::ErrorData::new(
            rmcp::model::ErrorCode(-32602),
            "MCP error -32602: Tool nope not found",
            None,
        );
        let e = Error::from(rmcp::ServiceError::McpError(data));
        assert_eq!(e.message, "server error -32602: Tool nope not found");
    }
}
