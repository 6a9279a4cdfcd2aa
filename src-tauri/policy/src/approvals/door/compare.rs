//! One sampling request on several models side by side. From a sampling request's dialog (or a
//! past request in the audit log) the person sends the request, as edited, to two or three of
//! their models at once; each answer streams into its own column and comes back with its
//! latency and tokens. Every call is a provider call the person asked for, audited as such and
//! counted against the server's daily tokens. The answer the person picks (or edits) goes back
//! to the server as the request dialog's decision (see `sampling_steps`).

use super::*;

/// At most this many models in one comparison.
pub const MAX_COMPARED: usize = 3;

/// A model to compare on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[ts(export)]
pub struct ModelChoice {
    pub provider: String,
    pub model: String,
}

/// One model's answer in a comparison.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ComparedAnswer {
    pub provider: String,
    pub model: String,
    /// The `CreateMessageResult`, when the model answered.
    #[ts(type = "unknown")]
    pub result: Option<Value>,
    /// Why there is no answer, as a sentence.
    pub error: Option<String>,
    /// Why the answer stopped early, when it did.
    pub cut: Option<String>,
    pub latency_ms: f64,
    pub input_tokens: Option<u32>,
    pub output_tokens: Option<u32>,
    /// In US dollars, from the prices the person set for the model (absent where unknown).
    pub cost_usd: Option<f64>,
}

impl Door {
    /// Sends `shown` (a sampling request's dialog content, `{request, …}`, as edited) from
    /// `server`'s flow `flow` to each of `models` at once, streaming each column's text to the
    /// reviewer. A model the server may not be sampled on, or one that is not the person's, is
    /// refused before anything is sent.
    pub async fn compare_sampling(
        &self,
        flow: &Flow,
        shown: &Value,
        models: &[ModelChoice],
    ) -> Result<Vec<ComparedAnswer>> {
        self.0.sampling.read_models().await;
        let requests = self.comparable(flow, shown, models)?;
        let calls = requests
            .into_iter()
            .enumerate()
            .map(|(column, (choice, params))| self.compare_one(flow, column, choice, params));
        Ok(futures::future::join_all(calls).await)
    }

    /// Sends a past request of `server` (from the audit log's flow `past`) to `models`, as a new
    /// flow the person started; nothing goes back to the server.
    pub async fn replay_sampling(
        &self,
        server: &str,
        past: &str,
        request: Value,
        models: &[ModelChoice],
    ) -> Result<Vec<ComparedAnswer>> {
        self.0.sampling.read_models().await;
        let flow = Flow::new(FlowKind::Sampling, server, None);
        let detail = json!({"replayOf": past, "request": request});
        self.note(&flow, Step::Requested, "user", None, detail)
            .await;
        let answers = self
            .compare_sampling(&flow, &json!({ "request": request }), models)
            .await;
        if let Err(e) = &answers {
            let detail = json!({"message": e.message});
            self.note(&flow, Step::Failed, "host", None, detail).await;
        }
        answers
    }

    /// Each model's request, checked as the dialog's own decision would be.
    fn comparable(
        &self,
        flow: &Flow,
        shown: &Value,
        models: &[ModelChoice],
    ) -> Result<Vec<(ModelChoice, CreateMessageRequestParams)>> {
        if !(1..=MAX_COMPARED).contains(&models.len()) {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!("Choose from one to {MAX_COMPARED} models to compare."),
            ));
        }
        let allowed = self
            .0
            .sampling
            .allowed(&flow.server)
            .map_err(|e| halt_error(Halt::Failed(e)))?;
        models
            .iter()
            .map(|choice| {
                if self.0.sampling.provider(&choice.provider).is_err()
                    || self.0.sampling.is_manual(&choice.provider)
                {
                    return Err(Error::new(
                        ErrorCode::InvalidInput,
                        format!("{} is not one of your providers.", choice.provider),
                    ));
                }
                let (p, m) = (choice.provider.clone(), choice.model.clone());
                let mut asked = shown.clone();
                asked["provider"] = json!(p);
                asked["model"] = json!(m);
                let (params, _, _) = self
                    .edited_request(&flow.server, &asked, (p, m), &allowed)
                    .map_err(halt_error)?;
                Ok((choice.clone(), params))
            })
            .collect()
    }

    async fn compare_one(
        &self,
        flow: &Flow,
        column: usize,
        choice: ModelChoice,
        params: CreateMessageRequestParams,
    ) -> ComparedAnswer {
        let asked = json!({"provider": choice.provider, "model": choice.model, "comparison": true});
        self.note(flow, Step::Sent, "user", None, asked).await;
        let started = std::time::Instant::now();
        let completed = self.stream_comparison(flow, column, &choice, &params).await;
        let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
        let mut answer = ComparedAnswer {
            provider: choice.provider,
            model: choice.model,
            result: None,
            error: None,
            cut: None,
            latency_ms,
            input_tokens: None,
            output_tokens: None,
            cost_usd: None,
        };
        match completed {
            Ok(c) => {
                let detail = json!({"completion": c.result, "usage": c.usage, "cut": c.cut, "comparison": true});
                self.note(flow, Step::Sent, "provider", None, detail).await;
                answer.input_tokens = Some(c.usage.input_tokens);
                answer.output_tokens = Some(c.usage.output_tokens);
                answer.cost_usd =
                    self.cost_of(&answer, c.usage.input_tokens, c.usage.output_tokens);
                answer.result = Some(c.result);
                answer.cut = c.cut;
            }
            Err(e) => {
                let detail = json!({"message": e.message, "comparison": true});
                self.note(flow, Step::Failed, "provider", None, detail)
                    .await;
                answer.error = Some(e.message);
            }
        }
        answer
    }

    /// One model's completion, its text streamed to the reviewer's column `column`; its usage
    /// counted against the server's daily tokens.
    async fn stream_comparison(
        &self,
        flow: &Flow,
        column: usize,
        choice: &ModelChoice,
        params: &CreateMessageRequestParams,
    ) -> Result<crate::providers::Completion> {
        let provider = self.0.sampling.provider(&choice.provider)?;
        let reviewer = self.0.reviewer.clone();
        let flow_id = flow.id.clone();
        let mut on_text = move |s: crate::providers::Streamed<'_>| {
            if let crate::providers::Streamed::Text(t) = s {
                reviewer.compared(&flow_id, column, t);
            }
        };
        let c = provider
            .complete(&choice.model, &request_json(params), &mut on_text)
            .await?;
        let (name, usage) = (flow.server.clone(), c.usage);
        if let Err(e) = self
            .blocking(move |door| door.sampling.record(&name, usage))
            .await
        {
            tracing::error!(error = %e, "could not record sampling usage");
        }
        Ok(c)
    }

    /// What an answer's tokens cost at the prices the person set for its model.
    fn cost_of(&self, answer: &ComparedAnswer, input: u32, output: u32) -> Option<f64> {
        let rating = self.0.sampling.rating(&answer.provider, &answer.model)?;
        rating.cost_of(input, output)
    }

    /// Returns the answer the person picked in a comparison as the flow's answer.
    pub(super) async fn picked_answer(
        &self,
        flow: &Flow,
        answer: Value,
    ) -> std::result::Result<CreateMessageResult, Halt> {
        let result: CreateMessageResult = serde_json::from_value(answer.clone()).map_err(|e| {
            Halt::Failed(invalid_params(format!("the picked answer is invalid: {e}")))
        })?;
        let actor = self.0.reviewer.actor();
        self.note(flow, Step::Returned, actor, Some("picked"), answer)
            .await;
        Ok(result)
    }
}

/// A halted step as an error for the person.
fn halt_error(halt: Halt) -> Error {
    match halt {
        Halt::Refused => Error::new(ErrorCode::Denied, "The request was refused."),
        Halt::Failed(e) => Error::new(ErrorCode::InvalidInput, e.message.to_string()),
    }
}
