//! The approval door. Every server→client request that needs a person (sampling and elicitation,
//! in both protocol eras) reaches the connection handler's one [`Approver`]; the real one is
//! [`Door`], which applies the user's standing rules ([`policy`]), writes every step to the audit
//! log, and puts what needs a decision in front of a [`Reviewer`] — dialogs in the desktop app
//! ([`queue`]), the terminal in the CLI. Model-initiated tool calls go through the same door with
//! tool pinning ([`crate::pins`]). A review is bound to exactly the content shown: its digest
//! travels with the decision. [`Deny`] and [`AcceptDefaults`] remain for scripts and tests.

// What this module handles of sampling, roots or logging is deprecated by SEP-2577 for
// 2026-07-28 and later; Switchboard speaks every revision, and these are central to it.
#![allow(deprecated)]

pub mod door;
pub mod policy;
pub mod queue;

pub use door::{
    ComparedAnswer, Door, MAX_COMPARED, ModelChoice, Review, ReviewKind, Reviewer, Verdict,
};

pub use crate::handler::approver::{Approver, Origin, USER_REJECTED, rejected_sampling};

use futures::future::BoxFuture;
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationAction, ErrorCode as McpErrorCode, ErrorData as McpError,
};
use serde_json::Value;

/// Denies everything: sampling gets -1, elicitation is declined.
#[derive(Debug, Clone, Copy, Default)]
pub struct Deny;

impl Approver for Deny {
    fn sampling(
        &self,
        _origin: Origin,
        _params: CreateMessageRequestParams,
    ) -> BoxFuture<'static, Result<CreateMessageResult, McpError>> {
        Box::pin(async { Err(rejected_sampling()) })
    }

    fn elicitation(
        &self,
        _origin: Origin,
        _params: ElicitRequestParams,
    ) -> BoxFuture<'static, Result<ElicitResult, McpError>> {
        Box::pin(async { Ok(ElicitResult::new(ElicitationAction::Decline)) })
    }
}

/// Accepts form elicitations with the schema's defaults and declines URL elicitations (which need
/// a person to open a browser). Sampling needs a provider, so it is rejected here.
#[derive(Debug, Clone, Copy, Default)]
pub struct AcceptDefaults;

impl Approver for AcceptDefaults {
    fn sampling(
        &self,
        _origin: Origin,
        _params: CreateMessageRequestParams,
    ) -> BoxFuture<'static, Result<CreateMessageResult, McpError>> {
        Box::pin(async {
            Err(McpError::new(
                McpErrorCode(USER_REJECTED),
                "User rejected sampling request: no LLM provider is configured",
                None,
            ))
        })
    }

    fn elicitation(
        &self,
        _origin: Origin,
        params: ElicitRequestParams,
    ) -> BoxFuture<'static, Result<ElicitResult, McpError>> {
        Box::pin(async move {
            let value = serde_json::to_value(&params).unwrap_or(Value::Null);
            if value.get("mode").and_then(Value::as_str) == Some("url") {
                return Ok(ElicitResult::new(ElicitationAction::Decline));
            }
            let content =
                crate::elicitation::defaults(value.get("requestedSchema").unwrap_or(&Value::Null));
            Ok(ElicitResult::new(ElicitationAction::Accept).with_content(Value::Object(content)))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn defaults_from_flat_schema() {
        let s = json!({"type":"object","properties":{
            "name":{"type":"string","default":"Ada"},
            "ok":{"type":"boolean","default":true},
            "n":{"type":"number"}}});
        let d = crate::elicitation::defaults(&s);
        assert_eq!(Value::Object(d), json!({"name":"Ada","ok":true}));
    }

    #[tokio::test]
    async fn deny_returns_minus_one() {
        let params: CreateMessageRequestParams = serde_json::from_value(json!({
            "messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":10
        }))
        .unwrap();
        let e = Deny
            .sampling(Origin { server: "s".into() }, params)
            .await
            .unwrap_err();
        assert_eq!(e.code.0, -1);
        assert_eq!(e.message, "User rejected sampling request");
    }
}
