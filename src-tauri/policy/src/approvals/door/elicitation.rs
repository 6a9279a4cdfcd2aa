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

    /// What to answer an elicitation: the rule's answer, or the person's. Returns the answer
    /// and who gave it.
    pub(super) async fn elicitation_answer(
        &self,
        flow: &Flow,
        server: &str,
        request: &Value,
    ) -> Answer {
        let rule = self.rule(server, PolicyKind::Elicitation, None).await;
        if rule == Rule::Deny {
            self.note(flow, Step::Decided, "policy", Some("declined"), Value::Null)
                .await;
            return (ElicitationAction::Decline, None, "policy");
        }
        let asked = Asked::of(request);
        let schema = &asked.schema;
        if asked.url.is_none()
            && rule.allows()
            && crate::elicitation::defaults_cover_required(schema)
        {
            let values = Value::Object(crate::elicitation::defaults(schema));
            let audited = crate::elicitation::redacted(schema, &values);
            self.note(flow, Step::Decided, "policy", Some("approved"), audited)
                .await;
            return (ElicitationAction::Accept, Some(values), "policy");
        }
        self.persons_answer(flow, server, &asked).await
    }

    /// The person's answer: a link accepted or declined, or a form shown again (saying why)
    /// while what was filled in does not validate, at most [`FORM_ATTEMPTS`] times.
    async fn persons_answer(&self, flow: &Flow, server: &str, asked: &Asked) -> Answer {
        let actor = self.0.reviewer.actor();
        let mut values = Value::Object(crate::elicitation::defaults(&asked.schema));
        let mut error = Value::Null;
        for _ in 0..FORM_ATTEMPTS {
            let shown = asked.shown(&values, &error);
            match self
                .ask(flow, ReviewKind::Elicitation, shown, Value::Null)
                .await
            {
                Verdict::Approve { .. } if asked.url.is_some() => {
                    self.note(flow, Step::Decided, actor, Some("approved"), Value::Null)
                        .await;
                    return (ElicitationAction::Accept, None, actor);
                }
                Verdict::Approve { content, remember } => {
                    values = content.get("values").cloned().unwrap_or(Value::Null);
                    match self
                        .checked_form(flow, server, &asked.schema, &values, remember)
                        .await
                    {
                        Ok(valid) => return (ElicitationAction::Accept, Some(valid), actor),
                        Err(problem) => error = problem,
                    }
                }
                Verdict::Deny => {
                    self.note(flow, Step::Decided, actor, Some("declined"), Value::Null)
                        .await;
                    return (ElicitationAction::Decline, None, actor);
                }
                other => {
                    self.refused(flow, &other).await;
                    return (ElicitationAction::Cancel, None, actor);
                }
            }
        }
        (ElicitationAction::Cancel, None, "host")
    }

    /// A filled-in form checked against its schema and written down (secrets redacted): the
    /// valid values, with the rule the person chose to keep kept; or why they are not valid.
    async fn checked_form(
        &self,
        flow: &Flow,
        server: &str,
        schema: &Value,
        values: &Value,
        remember: Option<Rule>,
    ) -> std::result::Result<Value, Value> {
        let actor = self.0.reviewer.actor();
        let redacted = crate::elicitation::redacted(schema, values);
        match crate::elicitation::validate(schema, values) {
            Ok(valid) => {
                self.note(flow, Step::Decided, actor, Some("approved"), redacted)
                    .await;
                self.remember(server, PolicyKind::Elicitation, None, remember)
                    .await;
                Ok(Value::Object(valid))
            }
            Err(problem) => {
                let problem = Value::from(problem);
                let detail = json!({"values": redacted, "error": problem});
                self.note(flow, Step::Decided, actor, Some("invalid"), detail)
                    .await;
                Err(problem)
            }
        }
    }
}

/// What to answer an elicitation, and who gave the answer.
type Answer = (ElicitationAction, Option<Value>, &'static str);

/// What a server asked for in one elicitation: a link to open, or a form.
struct Asked {
    url: Option<String>,
    schema: Value,
    message: Value,
}

impl Asked {
    fn of(request: &Value) -> Self {
        Self {
            url: request
                .get("url")
                .and_then(Value::as_str)
                .map(str::to_owned),
            schema: request
                .get("requestedSchema")
                .cloned()
                .unwrap_or(Value::Null),
            message: request.get("message").cloned().unwrap_or(Value::Null),
        }
    }

    /// What the person is shown: the link, or the form with what is filled in and why the last
    /// answer was not valid.
    fn shown(&self, values: &Value, error: &Value) -> Value {
        match &self.url {
            Some(url) => json!({"message": self.message, "url": url}),
            None => json!({
                "message": self.message,
                "requestedSchema": self.schema,
                "values": values,
                "error": error,
            }),
        }
    }
}
