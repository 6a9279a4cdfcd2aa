//! Elicitation through the door: a server's form or link request, within its rate, shown to the
//! person, the answer checked against the schema (and shown again when invalid) before it goes back.

use super::*;

impl Door {
    pub(super) async fn elicit(
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
            *c = crate::elicitation::redacted(&request["requestedSchema"], c);
        }
        self.note(&flow, Step::Returned, actor, None, returned)
            .await;
        Ok(r)
    }

    /// What to answer an elicitation: the rule's answer, or the user's (a form is shown again
    /// while what was filled in does not validate). Returns the answer and who gave it.
    pub(super) async fn elicitation_answer(
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
        if url.is_none() && rule.allows() && crate::elicitation::defaults_cover_required(&schema) {
            let values = Value::Object(crate::elicitation::defaults(&schema));
            let audited = crate::elicitation::redacted(&schema, &values);
            self.note(flow, Step::Decided, "policy", Some("approved"), audited)
                .await;
            return (ElicitationAction::Accept, Some(values), "policy");
        }
        let mut values = Value::Object(crate::elicitation::defaults(&schema));
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
                    match crate::elicitation::validate(&schema, &values) {
                        Ok(valid) => {
                            self.note(
                                flow,
                                Step::Decided,
                                self.0.reviewer.actor(),
                                Some("approved"),
                                crate::elicitation::redacted(&schema, &values),
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
                                json!({"values": crate::elicitation::redacted(&schema, &values), "error": problem}),
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
}
