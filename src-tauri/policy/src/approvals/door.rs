//! [`Door`]: the one place where sampling, elicitation and model-initiated tool calls are
//! decided. A server's request first has to be within its limits (rate, budget, validity); one
//! that is not is refused without a row of its own ([`refusals`] counts them). For each admitted
//! request it writes the arrival to the audit log, applies the standing rule,
//! asks the [`Reviewer`] when a person must decide (with a timeout that counts as a denial),
//! records the decision and exactly what was shown, sends approved sampling to the chosen
//! provider, asks again about the completion, and records what went back. This file holds what
//! every kind of request shares (reviews, rules, the audit trail); each kind has its own file:
//! [`sampling`], [`elicitation`], [`tool_calls`] and [`views`].

// What this module handles of sampling, roots or logging is deprecated by SEP-2577 for
// 2026-07-28 and later; Switchboard speaks every revision, and these are central to it.
#![allow(deprecated)]

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationAction, ErrorData as McpError,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use ts_rs::TS;

use super::policy::{Policies, PolicyEntry, PolicyKind, Rule};
use super::{Approver, Origin, rejected_sampling};
use crate::audit::{Audit, Flow, FlowKind, Record, Step};
use crate::error::{Error, ErrorCode, Result};
use crate::pins::{PinItem, PinState, Pins};
use crate::rate::PerMinute;
use crate::sampling::{Sampling, invalid_params};
use crate::visible;

mod compare;
mod elicitation;
mod refusals;
mod sampling;
mod tool_calls;
mod views;

pub use compare::{ComparedAnswer, MAX_COMPARED, ModelChoice};
use refusals::Refusals;

/// How long a review waits for a person before it counts as denied.
pub const DEFAULT_REVIEW_TIMEOUT: Duration = Duration::from_secs(300);

/// How often a form with invalid values is shown again before the elicitation is cancelled.
const FORM_ATTEMPTS: usize = 3;

/// How many elicitations a server may send a minute: more than a person answers, few enough
/// that a server cannot flood the screen or the audit log with them.
pub const ELICITATIONS_PER_MINUTE: u32 = 10;

/// What a review is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ReviewKind {
    /// A server's sampling request, before it is sent: `{provider, model, request}`, editable.
    SamplingRequest,
    /// The model's answer, before it goes back to the server: the `CreateMessageResult`, editable.
    SamplingCompletion,
    /// A server asking the user: `{message, requestedSchema | url, values, error}`.
    Elicitation,
    /// A model or a view calling a tool: `{tool, arguments}`, arguments editable; the context's
    /// `from` is `"view"` when a view asks.
    ToolCall,
    /// A view asking to open a link in the browser: `{url}`, not editable.
    OpenLink,
}

/// Who asks for a tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Caller {
    /// The model, in a chat.
    Model,
    /// A server's view (MCP Apps), on the Tools screen or in a chat.
    View,
}

impl Caller {
    fn actor(self) -> &'static str {
        match self {
            Caller::Model => "model",
            Caller::View => "view",
        }
    }
}

/// Something put in front of a person.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Review {
    /// Identifies this review among the pending ones.
    pub id: String,
    /// The audit flow it belongs to.
    pub flow: String,
    pub server: String,
    pub kind: ReviewKind,
    /// The editable content. Approving returns it (edited or not).
    #[ts(type = "unknown")]
    pub content: Value,
    /// Read-only context: the request a completion answers, a tool's definition and pin state.
    #[ts(type = "unknown")]
    pub context: Value,
    /// Whether content or context hide characters (zero-width, bidi, tags, terminal escapes);
    /// show them through [`visible::reveal`].
    pub hidden_characters: bool,
    /// SHA-256 of exactly what is shown (kind, content, context). A decision must carry it.
    pub digest: String,
}

impl Review {
    #[cfg(test)]
    pub(crate) fn for_test(flow: &Flow, content: Value) -> Self {
        Self::new(flow, ReviewKind::SamplingRequest, content, Value::Null)
    }

    fn new(flow: &Flow, kind: ReviewKind, content: Value, context: Value) -> Self {
        let digest = crate::canonical::digest(
            &json!({"kind": kind, "content": content, "context": context}),
        );
        Self {
            id: crate::canonical::new_id(),
            flow: flow.id.clone(),
            server: flow.server.clone(),
            kind,
            hidden_characters: visible::json_has_hidden(&content)
                || visible::json_has_hidden(&context),
            content,
            context,
            digest,
        }
    }
}

/// A person's decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "decision", rename_all = "snake_case")]
#[ts(export)]
pub enum Verdict {
    /// Go ahead with `content` (the shown content, possibly edited); optionally remember a rule
    /// for this server (or this tool) from now on.
    Approve {
        #[ts(type = "unknown")]
        content: Value,
        #[serde(default)]
        remember: Option<Rule>,
    },
    /// No (sampling: error -1; elicitation: decline; tool call: not made).
    Deny,
    /// Dismissed without an answer (elicitation: cancel).
    Cancel,
    /// Nobody answered in time; treated as a denial.
    TimedOut,
}

/// The person behind the door: dialogs in the app, the terminal in the CLI.
pub trait Reviewer: Send + Sync + 'static {
    /// Shows `review` and resolves with the decision. Dropping the future withdraws the review.
    fn review(&self, review: Review) -> BoxFuture<'static, Verdict>;

    /// Text of a completion as it streams from the provider, before the completion review.
    fn streamed(&self, _flow: &str, _text: &str) {}

    /// Text of one column of a comparison (see [`Door::compare_sampling`]) as it streams.
    fn compared(&self, _flow: &str, _column: usize, _text: &str) {}

    /// Who the audit log says decided: `user` for a person; scripted reviewers name themselves.
    fn actor(&self) -> &'static str {
        "user"
    }

    /// Why this reviewer denies, when it denies everything (the server is told in its words).
    fn denial(&self) -> Option<String> {
        None
    }

    /// Whether a person can write answers here (the manual provider needs one).
    fn writes_answers(&self) -> bool {
        true
    }
}

/// How a sampling flow stopped before its answer went back.
enum Halt {
    /// Denied by a rule or the user; already audited.
    Refused,
    /// Failed; audited as the flow's failure by [`Door::sample`].
    Failed(McpError),
}

struct Inner {
    reviewer: Arc<dyn Reviewer>,
    policies: Policies,
    pins: Pins,
    audit: Audit,
    sampling: Sampling,
    /// Elicitations admitted per server in the last minute.
    elicitations: PerMinute,
    /// Requests refused before admission, written down at most once a minute.
    refusals: Refusals,
    timeout: Duration,
    /// False when the one deciding said "deny everything" (the CLI's `--approve deny`): standing
    /// rules may still deny, but none lets a request through.
    allow_rules: std::sync::atomic::AtomicBool,
}

/// The approval door. Cheap to clone.
#[derive(Clone)]
pub struct Door(Arc<Inner>);

impl std::fmt::Debug for Door {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Door")
            .field("timeout", &self.0.timeout)
            .finish()
    }
}

fn value<T: Serialize>(t: &T) -> Value {
    serde_json::to_value(t).unwrap_or(Value::Null)
}

/// What the audit log keeps of a review: what was shown, except the values of an elicitation
/// form's secret fields, and its digest unless that hashes such a value (a short password could
/// be guessed back from it).
fn audited_review(review: &Review) -> Value {
    let mut content = review.content.clone();
    let mut digest = Value::String(review.digest.clone());
    if review.kind == ReviewKind::Elicitation
        && let Some(values) = content.get("values")
    {
        let hidden = crate::elicitation::redacted(&content["requestedSchema"], values);
        if hidden != *values {
            content["values"] = hidden;
            digest = Value::Null;
        }
    }
    json!({"review": review.kind, "content": content, "context": review.context, "digest": digest})
}

/// A sampling request as JSON, with its temperature as the server wrote it (not as an `f32`).
fn request_json(params: &CreateMessageRequestParams) -> Value {
    let mut request = value(params);
    if let Some(t) = crate::providers::temperature(&request) {
        request["temperature"] = t;
    }
    request
}

impl Door {
    /// A door asking `reviewer`, applying `policies` and `pins`, logging to `audit` and sending
    /// sampling through `sampling`.
    pub fn new(
        reviewer: Arc<dyn Reviewer>,
        policies: Policies,
        pins: Pins,
        audit: Audit,
        sampling: Sampling,
    ) -> Self {
        Self(Arc::new(Inner {
            reviewer,
            policies,
            pins,
            audit,
            sampling,
            elicitations: PerMinute::default(),
            refusals: Refusals::default(),
            timeout: DEFAULT_REVIEW_TIMEOUT,
            allow_rules: std::sync::atomic::AtomicBool::new(true),
        }))
    }

    /// Stops applying standing "allow" rules on this door (and its clones): every request goes
    /// to the reviewer; deny rules still deny. For a reviewer told to deny everything.
    pub fn refuse_allow_rules(&self) {
        self.0
            .allow_rules
            .store(false, std::sync::atomic::Ordering::SeqCst);
    }

    /// The same door with another review timeout.
    pub fn with_timeout(self, timeout: Duration) -> Self {
        match Arc::try_unwrap(self.0) {
            Ok(mut inner) => {
                inner.timeout = timeout;
                Self(Arc::new(inner))
            }
            Err(shared) => Self(shared),
        }
    }

    /// The standing rules.
    pub fn policies(&self) -> &Policies {
        &self.0.policies
    }

    /// The pins.
    pub fn pins(&self) -> &Pins {
        &self.0.pins
    }

    /// The audit log.
    pub fn audit(&self) -> &Audit {
        &self.0.audit
    }

    /// Where sampling goes, and its limits.
    pub fn sampler(&self) -> &Sampling {
        &self.0.sampling
    }

    /// Writes a step of `flow` to the audit log; returns once it is committed.
    async fn note(
        &self,
        flow: &Flow,
        step: Step,
        actor: &str,
        decision: Option<&str>,
        detail: Value,
    ) {
        let record = Record {
            flow,
            step,
            actor,
            decision,
            detail,
        };
        self.0.audit.note(record).await;
    }

    /// Runs work on the door's stores (rules, pins, sampling usage) off the runtime's threads.
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Inner) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let door = self.0.clone();
        crate::store::off_thread(move || work(&door)).await
    }

    async fn rule(&self, server: &str, kind: PolicyKind, tool: Option<&str>) -> Rule {
        let (server, tool) = (server.to_owned(), tool.map(str::to_owned));
        let rule = self
            .blocking(move |door| door.policies.rule(&server, kind, tool.as_deref()))
            .await
            .unwrap_or_else(|e| {
                tracing::error!(error = %e, "could not read approval rules; asking");
                Rule::Ask
            });
        if rule.allows() && !self.0.allow_rules.load(std::sync::atomic::Ordering::SeqCst) {
            return Rule::Ask;
        }
        rule
    }

    async fn remember(
        &self,
        server: &str,
        kind: PolicyKind,
        tool: Option<&str>,
        rule: Option<Rule>,
    ) {
        if let Some(rule) = rule {
            let entry = PolicyEntry {
                server: server.to_owned(),
                kind,
                tool: tool.map(str::to_owned),
                rule,
                warning: None,
            };
            let saved = self.blocking(move |door| door.policies.set(&entry)).await;
            if let Err(e) = saved {
                tracing::error!(error = %e, "could not save the approval rule");
            }
        }
    }

    /// Shows a review and waits (bounded) for the decision; records what was shown.
    async fn ask(&self, flow: &Flow, kind: ReviewKind, content: Value, context: Value) -> Verdict {
        self.ask_within(Some(self.0.timeout), flow, kind, content, context)
            .await
    }

    /// [`Door::ask`] with its own time limit (`None`: wait as long as the caller does).
    async fn ask_within(
        &self,
        limit: Option<Duration>,
        flow: &Flow,
        kind: ReviewKind,
        content: Value,
        context: Value,
    ) -> Verdict {
        let review = Review::new(flow, kind, content, context);
        self.note(flow, Step::Shown, "host", None, audited_review(&review))
            .await;
        let answer = self.0.reviewer.review(review);
        let Some(limit) = limit else {
            return answer.await;
        };
        match tokio::time::timeout(limit, answer).await {
            Ok(v) => v,
            Err(_) => Verdict::TimedOut,
        }
    }

    /// Asks the person about `shown` and writes down what they decided: approved as shown,
    /// edited, or refused. Returns what they approved and the rule they chose to keep, if any;
    /// else the verdict that refused it (already written down).
    async fn decided(
        &self,
        flow: &Flow,
        kind: ReviewKind,
        shown: &Value,
        context: Value,
    ) -> std::result::Result<(Value, Option<Rule>), Verdict> {
        match self.ask(flow, kind, shown.clone(), context).await {
            Verdict::Approve { content, remember } => {
                let decision = if content == *shown {
                    "approved"
                } else {
                    "edited"
                };
                let actor = self.0.reviewer.actor();
                self.note(flow, Step::Decided, actor, Some(decision), content.clone())
                    .await;
                Ok((content, remember))
            }
            other => {
                self.refused(flow, &other).await;
                Err(other)
            }
        }
    }

    async fn refused(&self, flow: &Flow, verdict: &Verdict) {
        let (actor, decision) = match verdict {
            Verdict::TimedOut => ("timeout", "timed_out"),
            Verdict::Cancel => (self.0.reviewer.actor(), "cancelled"),
            _ => (self.0.reviewer.actor(), "denied"),
        };
        self.note(flow, Step::Decided, actor, Some(decision), Value::Null)
            .await;
    }

    /// Notes a request of `server` refused before admission (`why`): a warning and an audit row
    /// counting the refusals, at most once a minute per server and kind, never the request.
    async fn refusal(&self, kind: FlowKind, server: &str, why: &McpError) {
        let Some(refused) = self.0.refusals.count(server, kind) else {
            return;
        };
        let message = crate::canonical::cut(&why.message, 300);
        tracing::warn!(server, ?kind, refused, reason = %message, "refused requests from a server");
        let flow = Flow::new(kind, server, None);
        let detail = json!({"code": why.code.0, "message": message, "refused": refused});
        self.note(&flow, Step::Failed, "host", Some("refused"), detail)
            .await;
    }

    /// Forgets what was decided for `server` (rules and pinned tools): it was removed, and a
    /// server added later under its name must be approved afresh.
    pub async fn forget_server(&self, server: &str) -> Result<()> {
        let server = server.to_owned();
        self.blocking(move |door| {
            door.policies.forget(&server)?;
            door.pins.forget(&server)
        })
        .await
    }

    /// Carries `from`'s rules and pins over to its new name `to`.
    pub async fn rename_server(&self, from: &str, to: &str) -> Result<()> {
        let (from, to) = (from.to_owned(), to.to_owned());
        self.blocking(move |door| {
            door.policies.rename(&from, &to)?;
            door.pins.rename(&from, &to)
        })
        .await
    }
}

/// Why an answer written by hand cannot stand for the model's, if it cannot: it needs content,
/// some text or a tool call, and every tool call an id and a name.
pub fn written_answer_problem(answer: &Value) -> Result<()> {
    let bad = |m: &str| Err(Error::new(ErrorCode::InvalidInput, m.to_owned()));
    let blocks = crate::providers::blocks(answer.get("content").unwrap_or(&Value::Null));
    let mut said = false;
    for b in &blocks {
        match crate::providers::block_type(b) {
            "text" => said |= b["text"].as_str().is_some_and(|t| !t.trim().is_empty()),
            "tool_use" => {
                let named = |k: &str| b[k].as_str().is_some_and(|v| !v.is_empty());
                if !named("id") || !named("name") {
                    return bad("a tool call in the answer needs an id and a name");
                }
                said = true;
            }
            "image" | "audio" => said = true,
            other => return bad(&format!("an answer cannot hold a {other:?} block")),
        }
    }
    if !said {
        return bad("the answer is empty: write what the model says, or reject to end the turn");
    }
    Ok(())
}

impl Approver for Door {
    fn sampling(
        &self,
        origin: Origin,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'static, Result<CreateMessageResult, McpError>> {
        let door = self.clone();
        Box::pin(async move { door.sample(origin, params).await })
    }

    fn elicitation(
        &self,
        origin: Origin,
        params: ElicitRequestParams,
    ) -> BoxFuture<'static, Result<ElicitResult, McpError>> {
        let door = self.clone();
        Box::pin(async move { door.elicit(origin, params).await })
    }
}

#[cfg(test)]
mod tests;

/// The refusal of a call a "deny" rule covers, wherever it was made.
fn denied_by_rule(server: &str, tool: &str) -> Error {
    Error::new(
        ErrorCode::Denied,
        format!(
            "calls to {tool} on {server} are denied by your rules; change the rule on the \
             Approvals screen to call it"
        ),
    )
}
