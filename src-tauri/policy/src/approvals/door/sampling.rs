//! Sampling through the door: a server's request is admitted (limits, validity), shown and
//! perhaps edited, sent to the chosen provider, and its answer shown again before it goes back;
//! the chat's manual model writes its answer here too.

// What this module handles of sampling, roots or logging is deprecated by SEP-2577 for
// 2026-07-28 and later; Switchboard speaks every revision, and these are central to it.
#![allow(deprecated)]

use super::*;

impl Door {
    /// -1 for a request the user (or the CLI on their behalf) denied, saying why when the
    /// reviewer knows.
    pub(super) fn rejected_sampling(&self) -> McpError {
        match self.0.reviewer.denial() {
            Some(why) => McpError::new(
                rmcp::model::ErrorCode(crate::handler::approver::USER_REJECTED),
                format!("User rejected sampling request: {why}"),
                None,
            ),
            None => rejected_sampling(),
        }
    }

    /// A server's sampling request through the door, in four steps, each audited before the next
    /// begins: admit (limits, rules, a model) → review the request → complete → review the answer.
    /// A request over the server's limits is refused before its first step.
    pub(super) async fn sample(
        &self,
        origin: Origin,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, McpError> {
        let server = origin.server.as_str();
        self.0.sampling.read_models().await;
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

    pub(super) async fn sampling_steps(
        &self,
        flow: &Flow,
        server: &str,
        params: &CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, Halt> {
        // Read once: a rename or an edit while the person reviews cannot widen it.
        let allowed = self.0.sampling.allowed(server).map_err(Halt::Failed)?;
        let (rule, provider, model) = self.admit_sampling(flow, server, params, &allowed).await?;
        let shown = json!({"provider": provider, "model": model, "request": request_json(params)});
        let approved = self
            .review_sampling_request(flow, server, rule, shown, &allowed)
            .await?;
        let (edited, provider, model) =
            self.edited_request(server, &approved, (provider, model), &allowed)?;
        // The person compared models and picked (perhaps edited) one's answer: that is the answer.
        if let Some(answer) = approved.get("answer") {
            return self.picked_answer(flow, answer.clone()).await;
        }
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
    pub(super) async fn within_sampling_limits(
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
    pub(super) async fn admit_sampling(
        &self,
        flow: &Flow,
        server: &str,
        params: &CreateMessageRequestParams,
        allowed: &[String],
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
            .choose_among(prefs.as_ref(), allowed)
            .filter(|(provider, _)| {
                self.0.reviewer.writes_answers() || !self.0.sampling.is_manual(provider)
            });
        let Some((provider, model)) = chosen else {
            if !allowed.is_empty() {
                return Err(Halt::Failed(McpError::internal_error(
                    format!(
                        "none of the models {server:?} may be sampled on ({}) is among your \
                         models; change its sampling models in its settings",
                        allowed.join(", ")
                    ),
                    None,
                )));
            }
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
    pub(super) async fn review_sampling_request(
        &self,
        flow: &Flow,
        server: &str,
        rule: Rule,
        shown: Value,
        allowed: &[String],
    ) -> Result<Value, Halt> {
        if rule.allows() {
            self.note(flow, Step::Decided, "policy", Some("approved"), Value::Null)
                .await;
            return Ok(shown);
        }
        // The models it may go to, for the dialog to show (and offer no other).
        let context = if allowed.is_empty() {
            Value::Null
        } else {
            serde_json::json!({ "allowedModels": allowed })
        };
        let decided = self
            .decided(flow, ReviewKind::SamplingRequest, &shown, context)
            .await;
        match decided {
            Ok((content, remember)) => {
                self.remember(server, PolicyKind::Sampling, None, remember)
                    .await;
                Ok(content)
            }
            Err(_) => Err(Halt::Refused),
        }
    }

    /// Reads the approved request back: provider, model and parameters, validated again (the
    /// user may have edited anything) and held to the server's token limit.
    pub(super) fn edited_request(
        &self,
        server: &str,
        approved: &Value,
        (provider, model): (String, String),
        allowed: &[String],
    ) -> Result<(CreateMessageRequestParams, String, String), Halt> {
        let field = |k: &str, default: String| {
            approved
                .get(k)
                .and_then(Value::as_str)
                .map_or(default, str::to_owned)
        };
        let (provider, model) = (field("provider", provider), field("model", model));
        // The person may pick another model in the dialog, but only one this server may use.
        if !crate::providers::is_allowed(allowed, &provider, &model) {
            return Err(Halt::Failed(invalid_params(format!(
                "{server:?} may only be sampled on {}, not {provider}/{model}",
                allowed.join(", ")
            ))));
        }
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
    pub(super) async fn complete_sampling(
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
    pub(super) async fn review_sampling_answer(
        &self,
        flow: &Flow,
        completion: Value,
        context: Value,
    ) -> Result<(Value, &'static str), Halt> {
        let decided = self
            .decided(flow, ReviewKind::SamplingCompletion, &completion, context)
            .await;
        match decided {
            Ok((content, _)) => Ok((content, self.0.reviewer.actor())),
            Err(_) => Err(Halt::Refused),
        }
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
}
