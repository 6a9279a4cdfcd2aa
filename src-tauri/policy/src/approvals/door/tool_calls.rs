//! Tool calls through the door: the model's (and a view's) calls are decided by rules, pins and
//! the person; the person's own calls are checked against deny rules and written down as they end.

use super::*;

impl Door {
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
    pub(super) async fn authorize_call(
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
        let review = self.pins_of_call(&flow, server, tool, instructions).await?;
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
        let mut context = json!({"definition": tool, "instructions": instructions, "pins": review});
        if let Caller::View = caller {
            context["from"] = json!("view");
        }
        let shown = json!({"tool": name, "arguments": arguments});
        let arguments = self
            .persons_verdict_on_call(&flow, server, &name, shown, context, unpinned)
            .await?;
        Ok((flow, arguments))
    }

    /// The pins' view of a call: each definition it rests on (the tool, the server's
    /// instructions) as pinned, new or changed; a changed one refuses the call, written down.
    async fn pins_of_call(
        &self,
        flow: &Flow,
        server: &str,
        tool: &Value,
        instructions: Option<&str>,
    ) -> Result<Vec<PinItem>> {
        let check = (
            server.to_owned(),
            tool.clone(),
            instructions.map(str::to_owned),
        );
        let review = self
            .blocking(move |door| door.pins.check_call(&check.0, &check.1, check.2.as_deref()))
            .await;
        if let Err(e) = &review {
            let detail = json!({"code": e.code, "message": e.message});
            self.note(flow, Step::Failed, "host", None, detail).await;
        }
        review
    }

    /// Asks the person about a call (`shown`: the tool and its arguments) and keeps what they
    /// decided: the definitions they saw are pinned, the rule they chose is kept, and the
    /// arguments they left are returned; a refusal or no answer in time is the call's error.
    async fn persons_verdict_on_call(
        &self,
        flow: &Flow,
        server: &str,
        name: &str,
        shown: Value,
        context: Value,
        unpinned: Vec<(String, Value)>,
    ) -> Result<Value> {
        match self
            .decided(flow, ReviewKind::ToolCall, &shown, context)
            .await
        {
            Ok((content, remember)) => {
                let pin = server.to_owned();
                self.blocking(move |door| door.pins.approve(&pin, &unpinned))
                    .await?;
                self.remember(server, PolicyKind::ToolCall, Some(name), remember)
                    .await;
                Ok(content.get("arguments").cloned().unwrap_or(Value::Null))
            }
            Err(other) => Err(Error::new(
                ErrorCode::Denied,
                if other == Verdict::TimedOut {
                    format!("nobody approved the call to {name} in time")
                } else {
                    format!("you denied the call to {name}")
                },
            )),
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
