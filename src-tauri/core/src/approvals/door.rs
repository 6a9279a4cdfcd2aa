//! [`Door`]: the one place where sampling, elicitation and model-initiated tool calls are
//! decided. A server's request first has to be within its limits (rate, budget, validity); one
//! that is not is refused without a row of its own ([`refusals`] counts them). For each admitted
//! request it writes the arrival to the audit log, applies the standing rule,
//! asks the [`Reviewer`] when a person must decide (with a timeout that counts as a denial),
//! records the decision and exactly what was shown, sends approved sampling to the chosen
//! provider, asks again about the completion, and records what went back.

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
use crate::elicitation;
use crate::error::{Error, ErrorCode, Result};
use crate::pins::{PinState, Pins};
use crate::rate::PerMinute;
use crate::sampling::{Sampling, invalid_params};
use crate::visible;

mod refusals;
mod views;

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
        let hidden = elicitation::redacted(&content["requestedSchema"], values);
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

    /// -1 for a request the user (or the CLI on their behalf) denied, saying why when the
    /// reviewer knows.
    fn rejected_sampling(&self) -> McpError {
        match self.0.reviewer.denial() {
            Some(why) => McpError::new(
                rmcp::model::ErrorCode(super::USER_REJECTED),
                format!("User rejected sampling request: {why}"),
                None,
            ),
            None => rejected_sampling(),
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

    /// A server's sampling request through the door, in four steps, each audited before the next
    /// begins: admit (limits, rules, a model) → review the request → complete → review the answer.
    /// A request over the server's limits is refused before its first step.
    async fn sample(
        &self,
        origin: Origin,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, McpError> {
        let server = origin.server.as_str();
        if let Err(e) = self.within_sampling_limits(server, &params).await {
            self.refusal(FlowKind::Sampling, server, &e).await;
            return Err(e);
        }
        let flow = Flow::new(FlowKind::Sampling, server, None);
        self.note(
            &flow,
            Step::Requested,
            "server",
            None,
            request_json(&params),
        )
        .await;
        match self.sampling_steps(&flow, server, &params).await {
            Ok(result) => Ok(result),
            Err(Halt::Refused) => Err(self.rejected_sampling()),
            Err(Halt::Failed(e)) => {
                let detail = json!({"code": e.code.0, "message": e.message});
                self.note(&flow, Step::Failed, "host", None, detail).await;
                Err(e)
            }
        }
    }

    async fn sampling_steps(
        &self,
        flow: &Flow,
        server: &str,
        params: &CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, Halt> {
        let (rule, provider, model) = self.admit_sampling(flow, server, params).await?;
        let shown = json!({"provider": provider, "model": model, "request": request_json(params)});
        let approved = self
            .review_sampling_request(flow, server, rule, shown)
            .await?;
        let (edited, provider, model) = self.edited_request(server, &approved, provider, model)?;
        let manual = self.0.sampling.is_manual(&provider);
        let (completion, cut) = if manual {
            let blank = json!({"role": "assistant", "content": {"type": "text", "text": ""}, "model": model, "stopReason": "endTurn"});
            (blank, None)
        } else {
            self.complete_sampling(flow, server, &provider, &model, &edited)
                .await?
        };
        let mut context =
            json!({"provider": provider, "model": model, "request": request_json(&edited)});
        if let Some(why) = &cut {
            context["cut"] = json!(why);
        }
        // A cut answer is never sent on by a standing rule: the person sees what arrived.
        let (returned, actor) = if rule.allows() && !manual && cut.is_none() {
            (completion, "policy")
        } else {
            self.review_sampling_answer(flow, completion, context)
                .await?
        };
        let result: CreateMessageResult =
            serde_json::from_value(returned.clone()).map_err(|e| {
                Halt::Failed(invalid_params(format!(
                    "the edited completion is invalid: {e}"
                )))
            })?;
        self.note(flow, Step::Returned, actor, None, returned).await;
        Ok(result)
    }

    /// Whether a request is valid and within the server's sampling limits (counting it if so).
    async fn within_sampling_limits(
        &self,
        server: &str,
        params: &CreateMessageRequestParams,
    ) -> Result<(), McpError> {
        let (name, request) = (server.to_owned(), params.clone());
        self.blocking(move |door| Ok(door.sampling.admit(&name, &request)))
            .await
            .map_err(|e| McpError::internal_error(e.message, None))?
    }

    /// Admits a request within its limits: not denied by a rule, and a model to send it to.
    /// Returns the rule and the chosen provider and model.
    async fn admit_sampling(
        &self,
        flow: &Flow,
        server: &str,
        params: &CreateMessageRequestParams,
    ) -> Result<(Rule, String, String), Halt> {
        let rule = self.rule(server, PolicyKind::Sampling, None).await;
        if rule == Rule::Deny {
            self.note(flow, Step::Decided, "policy", Some("denied"), Value::Null)
                .await;
            return Err(Halt::Refused);
        }
        // A reviewer that denies everything would deny this unseen: its reason is the answer,
        // whatever model there would have been.
        if !rule.allows() && self.0.reviewer.denial().is_some() {
            self.refused(flow, &Verdict::Deny).await;
            return Err(Halt::Refused);
        }
        let prefs = params.model_preferences.as_ref().map(value);
        let chosen = self
            .0
            .sampling
            .choose(prefs.as_ref())
            .filter(|(provider, _)| {
                self.0.reviewer.writes_answers() || !self.0.sampling.is_manual(provider)
            });
        let Some((provider, model)) = chosen else {
            return Err(Halt::Failed(McpError::internal_error(
                "Switchboard has no LLM provider to send this request to: add one on the Models \
                 screen (or pass --provider to switchboard-cli); the manual provider needs a \
                 person to write the answer",
                None,
            )));
        };
        Ok((rule, provider, model))
    }

    /// The request as the user approved it (possibly edited, possibly to another model).
    async fn review_sampling_request(
        &self,
        flow: &Flow,
        server: &str,
        rule: Rule,
        shown: Value,
    ) -> Result<Value, Halt> {
        if rule.allows() {
            self.note(flow, Step::Decided, "policy", Some("approved"), Value::Null)
                .await;
            return Ok(shown);
        }
        let verdict = self
            .ask(
                flow,
                ReviewKind::SamplingRequest,
                shown.clone(),
                Value::Null,
            )
            .await;
        match verdict {
            Verdict::Approve { content, remember } => {
                let decision = if content == shown {
                    "approved"
                } else {
                    "edited"
                };
                let actor = self.0.reviewer.actor();
                self.note(flow, Step::Decided, actor, Some(decision), content.clone())
                    .await;
                self.remember(server, PolicyKind::Sampling, None, remember)
                    .await;
                Ok(content)
            }
            other => {
                self.refused(flow, &other).await;
                Err(Halt::Refused)
            }
        }
    }

    /// Reads the approved request back: provider, model and parameters, validated again (the
    /// user may have edited anything) and held to the server's token limit.
    fn edited_request(
        &self,
        server: &str,
        approved: &Value,
        provider: String,
        model: String,
    ) -> Result<(CreateMessageRequestParams, String, String), Halt> {
        let field = |k: &str, default: String| {
            approved
                .get(k)
                .and_then(Value::as_str)
                .map_or(default, str::to_owned)
        };
        let (provider, model) = (field("provider", provider), field("model", model));
        let request = approved.get("request").cloned().unwrap_or(Value::Null);
        let edited: CreateMessageRequestParams = serde_json::from_value(request).map_err(|e| {
            Halt::Failed(invalid_params(format!(
                "the edited request is invalid: {e}"
            )))
        })?;
        crate::sampling::validate(&edited).map_err(Halt::Failed)?;
        if edited.max_tokens > self.0.sampling.limits(server).max_tokens {
            return Err(Halt::Failed(invalid_params(format!(
                "maxTokens {} is over this server's limit",
                edited.max_tokens
            ))));
        }
        Ok((edited, provider, model))
    }

    /// Sends the request to the provider, streaming its text to the reviewer; counts the usage.
    async fn complete_sampling(
        &self,
        flow: &Flow,
        server: &str,
        provider: &str,
        model: &str,
        edited: &CreateMessageRequestParams,
    ) -> Result<(Value, Option<String>), Halt> {
        let failed = |e: Error| Halt::Failed(McpError::internal_error(e.message, None));
        let p = self.0.sampling.provider(provider).map_err(failed)?;
        let sent = json!({"provider": provider, "model": model});
        self.note(flow, Step::Sent, "host", None, sent).await;
        let reviewer = self.0.reviewer.clone();
        let flow_id = flow.id.clone();
        // The reviewer sees the answer's text stream; its tool calls are shown once complete.
        let mut on_text = move |s: crate::providers::Streamed<'_>| {
            if let crate::providers::Streamed::Text(t) = s {
                reviewer.streamed(&flow_id, t);
            }
        };
        let c = p
            .complete(model, &request_json(edited), &mut on_text)
            .await
            .map_err(failed)?;
        let (name, usage) = (server.to_owned(), c.usage);
        if let Err(e) = self
            .blocking(move |door| door.sampling.record(&name, usage))
            .await
        {
            tracing::error!(error = %e, "could not record sampling usage");
        }
        let detail = json!({"completion": c.result, "usage": c.usage, "cut": c.cut});
        self.note(flow, Step::Sent, "provider", None, detail).await;
        Ok((c.result, c.cut))
    }

    /// The answer as the user approved it (possibly edited), and who approved it.
    async fn review_sampling_answer(
        &self,
        flow: &Flow,
        completion: Value,
        context: Value,
    ) -> Result<(Value, &'static str), Halt> {
        let verdict = self
            .ask(
                flow,
                ReviewKind::SamplingCompletion,
                completion.clone(),
                context,
            )
            .await;
        match verdict {
            Verdict::Approve { content, .. } => {
                let decision = if content == completion {
                    "approved"
                } else {
                    "edited"
                };
                let actor = self.0.reviewer.actor();
                self.note(flow, Step::Decided, actor, Some(decision), content.clone())
                    .await;
                Ok((content, actor))
            }
            other => {
                self.refused(flow, &other).await;
                Err(Halt::Refused)
            }
        }
    }

    async fn elicit(
        &self,
        origin: Origin,
        params: ElicitRequestParams,
    ) -> Result<ElicitResult, McpError> {
        let server = origin.server.as_str();
        if !self.0.elicitations.admit(server, ELICITATIONS_PER_MINUTE) {
            let e = crate::rate::over_limit(format!(
                "too many elicitation requests: this server may send {ELICITATIONS_PER_MINUTE} per minute"
            ));
            self.refusal(FlowKind::Elicitation, server, &e).await;
            return Err(e);
        }
        let flow = Flow::new(FlowKind::Elicitation, server, None);
        let request = value(&params);
        self.note(&flow, Step::Requested, "server", None, request.clone())
            .await;
        let (action, content, actor) = self.elicitation_answer(&flow, server, &request).await;
        let mut r = ElicitResult::new(action);
        if let Some(c) = content {
            r = r.with_content(c);
        }
        let mut returned = value(&r);
        if let Some(c) = returned.get_mut("content") {
            *c = elicitation::redacted(&request["requestedSchema"], c);
        }
        self.note(&flow, Step::Returned, actor, None, returned)
            .await;
        Ok(r)
    }

    /// What to answer an elicitation: the rule's answer, or the user's (a form is shown again
    /// while what was filled in does not validate). Returns the answer and who gave it.
    async fn elicitation_answer(
        &self,
        flow: &Flow,
        server: &str,
        request: &Value,
    ) -> (ElicitationAction, Option<Value>, &'static str) {
        let rule = self.rule(server, PolicyKind::Elicitation, None).await;
        if rule == Rule::Deny {
            self.note(flow, Step::Decided, "policy", Some("declined"), Value::Null)
                .await;
            return (ElicitationAction::Decline, None, "policy");
        }
        let url = request
            .get("url")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let schema = request
            .get("requestedSchema")
            .cloned()
            .unwrap_or(Value::Null);
        let message = request.get("message").cloned().unwrap_or(Value::Null);
        if url.is_none() && rule.allows() && elicitation::defaults_cover_required(&schema) {
            let values = Value::Object(elicitation::defaults(&schema));
            let audited = elicitation::redacted(&schema, &values);
            self.note(flow, Step::Decided, "policy", Some("approved"), audited)
                .await;
            return (ElicitationAction::Accept, Some(values), "policy");
        }
        let mut values = Value::Object(elicitation::defaults(&schema));
        let mut error = Value::Null;
        for _ in 0..FORM_ATTEMPTS {
            let content = match &url {
                Some(u) => json!({"message": message, "url": u}),
                None => {
                    json!({"message": message, "requestedSchema": schema, "values": values, "error": error})
                }
            };
            match self
                .ask(flow, ReviewKind::Elicitation, content, Value::Null)
                .await
            {
                Verdict::Approve { content, remember } => {
                    if url.is_some() {
                        self.note(
                            flow,
                            Step::Decided,
                            self.0.reviewer.actor(),
                            Some("approved"),
                            Value::Null,
                        )
                        .await;
                        return (ElicitationAction::Accept, None, self.0.reviewer.actor());
                    }
                    values = content.get("values").cloned().unwrap_or(Value::Null);
                    match elicitation::validate(&schema, &values) {
                        Ok(valid) => {
                            self.note(
                                flow,
                                Step::Decided,
                                self.0.reviewer.actor(),
                                Some("approved"),
                                elicitation::redacted(&schema, &values),
                            )
                            .await;
                            self.remember(server, PolicyKind::Elicitation, None, remember)
                                .await;
                            return (
                                ElicitationAction::Accept,
                                Some(Value::Object(valid)),
                                self.0.reviewer.actor(),
                            );
                        }
                        Err(problem) => {
                            self.note(
                                flow,
                                Step::Decided,
                                self.0.reviewer.actor(),
                                Some("invalid"),
                                json!({"values": elicitation::redacted(&schema, &values), "error": problem}),
                            )
                            .await;
                            error = problem.into();
                        }
                    }
                }
                Verdict::Deny => {
                    self.note(
                        flow,
                        Step::Decided,
                        self.0.reviewer.actor(),
                        Some("declined"),
                        Value::Null,
                    )
                    .await;
                    return (ElicitationAction::Decline, None, self.0.reviewer.actor());
                }
                other => {
                    self.refused(flow, &other).await;
                    return (ElicitationAction::Cancel, None, self.0.reviewer.actor());
                }
            }
        }
        (ElicitationAction::Cancel, None, "host")
    }

    /// Decides a model's call of `tool` (its full definition) on `server` with `arguments`.
    /// Refuses changed (pinned) definitions, applies the rule, asks when needed, pins definitions
    /// approved for the first time. Returns the flow (pass it to [`Door::tool_call_finished`])
    /// and the arguments to send, as the user left them.
    pub async fn authorize_tool_call(
        &self,
        server: &str,
        tool: &Value,
        instructions: Option<&str>,
        arguments: Value,
    ) -> Result<(Flow, Value)> {
        self.authorize_call(Caller::Model, server, tool, instructions, arguments)
            .await
    }

    /// [`Door::authorize_tool_call`] for `caller`: the review's context says who asked.
    async fn authorize_call(
        &self,
        caller: Caller,
        server: &str,
        tool: &Value,
        instructions: Option<&str>,
        arguments: Value,
    ) -> Result<(Flow, Value)> {
        let name = tool
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let flow = Flow::new(FlowKind::ToolCall, server, Some(name.clone()));
        self.note(
            &flow,
            Step::Requested,
            caller.actor(),
            None,
            json!({"arguments": arguments}),
        )
        .await;
        let check = (
            server.to_owned(),
            tool.clone(),
            instructions.map(str::to_owned),
        );
        let review = self
            .blocking(move |door| door.pins.check_call(&check.0, &check.1, check.2.as_deref()))
            .await;
        let review = match review {
            Ok(r) => r,
            Err(e) => {
                self.note(
                    &flow,
                    Step::Failed,
                    "host",
                    None,
                    json!({"code": e.code, "message": e.message}),
                )
                .await;
                return Err(e);
            }
        };
        let rule = self.rule(server, PolicyKind::ToolCall, Some(&name)).await;
        if rule == Rule::Deny {
            self.note(&flow, Step::Decided, "policy", Some("denied"), Value::Null)
                .await;
            return Err(denied_by_rule(server, &name));
        }
        let unpinned: Vec<(String, Value)> = review
            .iter()
            .filter(|i| i.state == PinState::New)
            .map(|i| (i.item.clone(), i.current.clone()))
            .collect();
        if rule.allows() && unpinned.is_empty() {
            self.note(
                &flow,
                Step::Decided,
                "policy",
                Some("approved"),
                Value::Null,
            )
            .await;
            return Ok((flow, arguments));
        }
        let shown = json!({"tool": name, "arguments": arguments});
        let mut context = json!({"definition": tool, "instructions": instructions, "pins": review});
        if let Caller::View = caller {
            context["from"] = json!("view");
        }
        match self
            .ask(&flow, ReviewKind::ToolCall, shown.clone(), context)
            .await
        {
            Verdict::Approve { content, remember } => {
                let decision = if content == shown {
                    "approved"
                } else {
                    "edited"
                };
                self.note(
                    &flow,
                    Step::Decided,
                    self.0.reviewer.actor(),
                    Some(decision),
                    content.clone(),
                )
                .await;
                let pin = server.to_owned();
                self.blocking(move |door| door.pins.approve(&pin, &unpinned))
                    .await?;
                self.remember(server, PolicyKind::ToolCall, Some(&name), remember)
                    .await;
                Ok((
                    flow,
                    content.get("arguments").cloned().unwrap_or(Value::Null),
                ))
            }
            other => {
                self.refused(&flow, &other).await;
                Err(Error::new(
                    ErrorCode::Denied,
                    if other == Verdict::TimedOut {
                        format!("nobody approved the call to {name} in time")
                    } else {
                        format!("you denied the call to {name}")
                    },
                ))
            }
        }
    }

    /// Pins the definitions the user approved after reviewing them: `approved` names each item
    /// with the digest that was shown; `defs` is what the server offers now. Refuses (pinning
    /// nothing) when an item is no longer offered or changed since it was shown.
    pub async fn approve_pins(
        &self,
        server: &str,
        defs: &[(String, Value)],
        approved: &[(String, String)],
    ) -> Result<usize> {
        let mut chosen = Vec::with_capacity(approved.len());
        for (item, shown) in approved {
            let def = defs
                .iter()
                .find(|(i, _)| i == item)
                .map(|(_, d)| d)
                .ok_or_else(|| {
                    Error::new(
                        ErrorCode::ApprovalMismatch,
                        format!("{server:?} no longer offers {item}"),
                    )
                })?;
            if crate::canonical::digest(def) != *shown {
                return Err(Error::new(
                    ErrorCode::ApprovalMismatch,
                    format!("{item} changed again since it was shown; review it again"),
                ));
            }
            chosen.push((item.clone(), def.clone()));
        }
        let (pin, pinned) = (server.to_owned(), chosen.clone());
        self.blocking(move |door| door.pins.approve(&pin, &pinned))
            .await?;
        let flow = Flow::new(FlowKind::Pin, server, None);
        let items: Vec<&str> = chosen.iter().map(|(i, _)| i.as_str()).collect();
        self.note(
            &flow,
            Step::Decided,
            self.0.reviewer.actor(),
            Some("approved"),
            json!({"items": items, "definitions": chosen.iter().map(|(_, d)| d).collect::<Vec<_>>()}),
        ).await;
        Ok(chosen.len())
    }

    /// Has the person write the model's answer to a chat `request` (the manual provider): the
    /// request is shown, the answer is theirs, as text or as JSON content (tool calls included).
    /// Returns the assistant message they wrote.
    pub async fn write_answer(&self, model: &str, request: &Value) -> Result<Value> {
        let flow = Flow::new(FlowKind::Sampling, "chat", Some(model.to_owned()));
        self.note(&flow, Step::Requested, "chat", None, request.clone())
            .await;
        let blank = json!({
            "role": "assistant",
            "content": {"type": "text", "text": ""},
            "model": model,
            "stopReason": "endTurn",
        });
        let context = json!({"provider": "manual", "model": model, "request": request});
        // The person is writing at their own pace; Stop ends the turn if they walk away.
        match self
            .ask_within(None, &flow, ReviewKind::SamplingCompletion, blank, context)
            .await
        {
            Verdict::Approve { content, .. } => {
                let actor = self.0.reviewer.actor();
                if let Err(e) = written_answer_problem(&content) {
                    self.note(
                        &flow,
                        Step::Failed,
                        actor,
                        None,
                        json!({"code": e.code, "message": e.message, "answer": content}),
                    )
                    .await;
                    return Err(e);
                }
                self.note(&flow, Step::Decided, actor, Some("written"), Value::Null)
                    .await;
                self.note(&flow, Step::Returned, actor, None, content.clone())
                    .await;
                Ok(content)
            }
            other => {
                self.refused(&flow, &other).await;
                Err(Error::new(
                    ErrorCode::Denied,
                    "no answer was written (you are the model with the manual provider)",
                ))
            }
        }
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

    /// Records a tool call the user makes themselves (the Tools screen, the CLI's `call`): nobody
    /// is asked, but it is in the audit log like every other call, and a "deny" rule for the
    /// tool (or its server) refuses it here as everywhere else. End it with
    /// [`Door::tool_call_finished`].
    pub async fn user_tool_call(
        &self,
        server: &str,
        tool: &str,
        arguments: Option<&Value>,
    ) -> Result<Flow> {
        let flow = Flow::new(FlowKind::ToolCall, server, Some(tool.to_owned()));
        self.note(
            &flow,
            Step::Requested,
            "user",
            None,
            json!({"arguments": arguments}),
        )
        .await;
        if self.rule(server, PolicyKind::ToolCall, Some(tool)).await == Rule::Deny {
            self.note(&flow, Step::Decided, "policy", Some("denied"), Value::Null)
                .await;
            return Err(denied_by_rule(server, tool));
        }
        Ok(flow)
    }

    /// Records that the person stopped an approved tool call before it returned. Called where
    /// nothing can wait (a stopped turn's `Drop`), so the row is written in the background.
    pub fn tool_call_stopped(&self, flow: &Flow, message: &str) {
        self.0.audit.note_detached(Record {
            flow,
            step: Step::Failed,
            actor: "user",
            decision: Some("stopped"),
            detail: json!({"code": ErrorCode::Cancelled, "message": message}),
        });
    }

    /// Records how an approved tool call ended.
    pub async fn tool_call_finished<T: Serialize>(
        &self,
        flow: &Flow,
        outcome: std::result::Result<&T, &Error>,
    ) {
        match outcome {
            Ok(result) => {
                let result = serde_json::to_value(result).unwrap_or(Value::Null);
                self.note(flow, Step::Returned, "server", None, result)
                    .await
            }
            Err(e) => {
                self.note(
                    flow,
                    Step::Failed,
                    "server",
                    None,
                    json!({"code": e.code, "message": e.message}),
                )
                .await
            }
        }
    }
}

/// Why an answer written by hand cannot stand for the model's, if it cannot: it needs content,
/// some text or a tool call, and every tool call an id and a name.
pub(crate) fn written_answer_problem(answer: &Value) -> Result<()> {
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
