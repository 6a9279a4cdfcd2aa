//! LLM providers that approved sampling requests (and the chat) are sent to: Anthropic Messages,
//! OpenAI Chat Completions and every OpenAI-compatible base URL (Ollama, LM Studio, vLLM,
//! OpenRouter), Google Gemini, and "manual" (the user writes the completion). Requests and results
//! are MCP sampling JSON (`sampling/createMessage` params and `CreateMessageResult`); each provider
//! module maps them to its wire format — text, images, audio where supported, tools and
//! tool choice — and streams the answer back. API keys come from the OS keychain (or, for the CLI,
//! the provider's usual environment variable) and are never logged or stored elsewhere.

pub mod anthropic;
pub mod gemini;
pub mod openai;
pub mod settings;

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use futures::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use crate::error::{Error, ErrorCode, Result};
use crate::secrets::SecretStore;

/// The wire format a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum ProviderKind {
    /// Anthropic Messages API.
    Anthropic,
    /// OpenAI Chat Completions, and any compatible base URL.
    Openai,
    /// Google Gemini `generateContent`.
    Gemini,
    /// No network: the user writes the completion.
    Manual,
}

impl ProviderKind {
    /// The base URL used when none is configured.
    pub fn default_base_url(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "https://api.anthropic.com",
            ProviderKind::Openai => "https://api.openai.com/v1",
            ProviderKind::Gemini => "https://generativelanguage.googleapis.com/v1beta",
            ProviderKind::Manual => "",
        }
    }

    /// The environment variable the provider's own tools read the key from.
    pub fn key_env(self) -> Option<&'static str> {
        match self {
            ProviderKind::Anthropic => Some("ANTHROPIC_API_KEY"),
            ProviderKind::Openai => Some("OPENAI_API_KEY"),
            ProviderKind::Gemini => Some("GEMINI_API_KEY"),
            ProviderKind::Manual => None,
        }
    }

    /// The keychain entry holding the key of provider `id`.
    pub fn key_entry(id: &str) -> String {
        format!("provider:{id}")
    }
}

/// A string that never shows up in `Debug` output or logs, and is never serialized (it can be
/// received from the UI, not sent back).
#[derive(Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct Sensitive(String);

impl Sensitive {
    /// Wraps a secret.
    pub fn new(s: impl Into<String>) -> Self {
        Self(s.into())
    }
    /// The secret itself, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Sensitive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sensitive(…)")
    }
}

/// Token counts a provider reported.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Usage {
    pub input_tokens: u32,
    pub output_tokens: u32,
}

/// A finished completion: an MCP `CreateMessageResult` plus usage.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    /// `{role: "assistant", content, model, stopReason}`.
    pub result: Value,
    pub usage: Usage,
    /// Why the answer stopped before the provider finished it (the stream broke, the deadline
    /// passed): `result` then holds the text that arrived, kept for the person to review.
    pub cut: Option<String>,
}

/// What a provider streams of its answer as it arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Streamed<'a> {
    /// The next piece of the answer's text.
    Text(&'a str),
    /// The arguments of one of the answer's tool calls so far (JSON, likely cut short): the
    /// call's place in the answer and the tool's name as the model wrote it.
    ToolInput {
        index: usize,
        name: &'a str,
        json: &'a str,
    },
}

/// A configured provider, ready to send.
#[derive(Debug, Clone)]
pub struct Provider {
    /// The user's name for it (`openai`, `ollama`, …).
    pub id: String,
    pub kind: ProviderKind,
    base_url: String,
    key: Option<Sensitive>,
    /// Built on first use (copies share it): building one loads the system's CA roots, tens of
    /// milliseconds that the window's start should not wait for.
    http: Arc<OnceLock<reqwest::Client>>,
    deadline: Duration,
}

/// How long to wait for the provider to accept a connection and for each streamed chunk.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);
const IDLE_TIMEOUT: Duration = Duration::from_secs(120);
/// The longest a whole request may take, streamed answer included: a provider that keeps
/// trickling bytes cannot hold a sampling request or a chat turn open for ever.
pub const TOTAL_TIMEOUT: Duration = Duration::from_secs(600);
/// The most tool calls (or content blocks) one streamed answer may carry.
pub const MAX_STREAMED_PARTS: usize = 256;
/// The largest non-streamed response body read from a provider (model lists, errors).
const MAX_BODY: usize = 8 * 1024 * 1024;

impl Provider {
    /// A provider at `base_url` (or the kind's default) with an optional API key.
    pub fn new(
        id: impl Into<String>,
        kind: ProviderKind,
        base_url: Option<&str>,
        key: Option<Sensitive>,
    ) -> Result<Self> {
        let base_url = base_url
            .unwrap_or(kind.default_base_url())
            .trim_end_matches('/')
            .to_owned();
        if kind != ProviderKind::Manual {
            url::Url::parse(&base_url).map_err(|e| {
                Error::new(
                    ErrorCode::InvalidInput,
                    format!("invalid provider base URL {base_url:?}: {e}"),
                )
            })?;
        }
        Ok(Self {
            id: id.into(),
            kind,
            base_url,
            key,
            http: Arc::default(),
            deadline: TOTAL_TIMEOUT,
        })
    }

    /// The manual provider: the person writes each completion.
    pub fn manual() -> Self {
        let kind = ProviderKind::Manual;
        Self {
            id: "manual".into(),
            kind,
            base_url: kind.default_base_url().trim_end_matches('/').to_owned(),
            key: None,
            http: Arc::default(),
            deadline: TOTAL_TIMEOUT,
        }
    }

    /// The same provider with another limit on a whole request's time.
    pub fn with_deadline(mut self, deadline: Duration) -> Self {
        self.deadline = deadline;
        self
    }

    fn over_time(&self) -> Error {
        self.error(format_args!(
            "no complete answer within {} s",
            self.deadline.as_secs()
        ))
    }

    /// Looks the key up: the keychain entry `provider:<id>`, then the kind's environment
    /// variable. Compatible servers such as Ollama need none.
    pub fn find_key(id: &str, kind: ProviderKind, secrets: &dyn SecretStore) -> Option<Sensitive> {
        if kind == ProviderKind::Manual {
            return None;
        }
        match secrets.find(&ProviderKind::key_entry(id)) {
            Ok(Some(k)) if !k.is_empty() => return Some(Sensitive::new(k)),
            Ok(_) => {}
            Err(e) => tracing::debug!(error = %e, "no provider key in the keychain"),
        }
        kind.key_env()
            .and_then(|v| std::env::var(v).ok())
            .filter(|k| !k.is_empty())
            .map(Sensitive::new)
    }

    /// The base URL requests go to.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// Sends an MCP sampling request to `model` and streams the answer: `on_stream` receives
    /// each piece of text, and each tool call's arguments so far, as they arrive. The manual
    /// provider cannot be sent to.
    pub async fn complete(
        &self,
        model: &str,
        request: &Value,
        on_text: &mut (dyn FnMut(Streamed<'_>) + Send),
    ) -> Result<Completion> {
        let mut arrived = String::new();
        let mut on_stream = |s: Streamed<'_>| {
            if let Streamed::Text(t) = s {
                arrived.push_str(t);
            }
            on_text(s);
        };
        let answer = async {
            match self.kind {
                ProviderKind::Anthropic => {
                    anthropic::complete(self, model, request, &mut on_stream).await
                }
                ProviderKind::Openai => {
                    openai::complete(self, model, request, &mut on_stream).await
                }
                ProviderKind::Gemini => {
                    gemini::complete(self, model, request, &mut on_stream).await
                }
                ProviderKind::Manual => Err(Error::new(
                    ErrorCode::Provider,
                    "the manual provider has no model to send to: write the completion yourself",
                )),
            }
        };
        let finished = tokio::time::timeout(self.deadline, answer)
            .await
            .unwrap_or_else(|_| Err(self.over_time()));
        match finished {
            // What arrived before the break is the person's to review, not lost with the error.
            Err(e) if !arrived.trim().is_empty() => Ok(Completion {
                result: result_json(
                    vec![serde_json::json!({"type": "text", "text": arrived})],
                    model,
                    "endTurn",
                ),
                usage: Usage::default(),
                cut: Some(e.message),
            }),
            other => other,
        }
    }

    /// The models the provider offers.
    pub async fn models(&self) -> Result<Vec<String>> {
        let listed = async {
            match self.kind {
                ProviderKind::Anthropic => anthropic::models(self).await,
                ProviderKind::Openai => openai::models(self).await,
                ProviderKind::Gemini => gemini::models(self).await,
                ProviderKind::Manual => Ok(vec!["manual".into()]),
            }
        };
        tokio::time::timeout(self.deadline, listed)
            .await
            .map_err(|_| self.over_time())?
    }

    /// The HTTP client, built on first use.
    fn http(&self) -> Result<&reqwest::Client> {
        if let Some(http) = self.http.get() {
            return Ok(http);
        }
        let built = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .read_timeout(IDLE_TIMEOUT)
            // reqwest strips only `Authorization` on a cross-origin redirect: `x-api-key` and
            // `x-goog-api-key` would go along.
            .redirect(crate::transport::same_origin_redirects())
            .build()
            .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        Ok(self.http.get_or_init(|| built))
    }

    fn post(&self, path: &str) -> Result<reqwest::RequestBuilder> {
        Ok(self
            .http()?
            .post(format!("{}{path}", self.base_url))
            .header("content-type", "application/json"))
    }

    fn get(&self, path: &str) -> Result<reqwest::RequestBuilder> {
        Ok(self.http()?.get(format!("{}{path}", self.base_url)))
    }

    fn key(&self) -> Option<&str> {
        self.key.as_ref().map(Sensitive::expose)
    }

    fn error(&self, what: impl std::fmt::Display) -> Error {
        Error::new(
            ErrorCode::Provider,
            format!("{} ({}): {what}", self.id, self.base_url),
        )
    }
}

/// Sends `req` and returns the response if it succeeded, or the provider's error message.
async fn send(p: &Provider, req: reqwest::RequestBuilder) -> Result<reqwest::Response> {
    let resp = req.send().await.map_err(|e| p.error(without_url(&e)))?;
    if resp.status().is_success() {
        return Ok(resp);
    }
    let status = resp.status();
    let body = read_body(p, resp).await.unwrap_or_default();
    let detail = serde_json::from_str::<Value>(&body)
        .ok()
        .and_then(|v| {
            let e = v.get("error").cloned().unwrap_or(v);
            e.get("message")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .or_else(|| e.as_str().map(str::to_owned))
        })
        .unwrap_or_else(|| body.chars().take(300).collect());
    Err(p.error(format_args!("HTTP {status}: {detail}")))
}

fn without_url(e: &reqwest::Error) -> String {
    // reqwest puts the URL in its messages; Gemini keys can travel in query strings elsewhere,
    // so errors never echo URLs.
    let mut s = e.to_string();
    if let Some(u) = e.url() {
        s = s.replace(u.as_str(), "<url>");
    }
    s
}

async fn read_body(p: &Provider, resp: reqwest::Response) -> Result<String> {
    let mut body = Vec::new();
    let mut stream = resp.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| p.error(without_url(&e)))?;
        if body.len() + chunk.len() > MAX_BODY {
            return Err(p.error(format_args!("response larger than {MAX_BODY} bytes")));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(String::from_utf8_lossy(&body).into_owned())
}

async fn get_json(p: &Provider, req: reqwest::RequestBuilder) -> Result<Value> {
    let resp = send(p, req).await?;
    let body = read_body(p, resp).await?;
    serde_json::from_str(&body).map_err(|e| p.error(format_args!("invalid JSON: {e}")))
}

/// Reads a streamed response as SSE events, handing each to `on_event`.
async fn read_sse(
    p: &Provider,
    resp: reqwest::Response,
    mut on_event: impl FnMut(crate::sse::SseEvent) -> Result<()>,
) -> Result<()> {
    let mut reader = crate::sse::SseReader::default();
    let mut stream = resp.bytes_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| p.error(without_url(&e)))?;
        for ev in reader.feed(&chunk).map_err(|e| p.error(e))? {
            on_event(ev)?;
        }
    }
    if let Some(ev) = reader.finish() {
        on_event(ev)?;
    }
    Ok(())
}

/// The request's temperature as the server wrote it. The SDK keeps it as an `f32`, so 0.7
/// arrives as 0.699999988…; its shortest `f32` spelling is the number the server meant.
pub fn temperature(req: &Value) -> Option<Value> {
    let t = req.get("temperature")?.as_f64()?;
    let meant: f64 = (t as f32).to_string().parse().ok()?;
    serde_json::Number::from_f64(meant).map(Value::Number)
}

/// The content blocks of an MCP sampling message (a single block or an array).
pub fn blocks(content: &Value) -> Vec<&Value> {
    match content {
        Value::Array(a) => a.iter().collect(),
        Value::Null => Vec::new(),
        other => vec![other],
    }
}

/// The `type` of a content block.
pub fn block_type(b: &Value) -> &str {
    b.get("type").and_then(Value::as_str).unwrap_or("")
}

/// Joins the text of tool-result content for providers that only take strings.
pub fn result_text(result: &Value) -> String {
    let mut parts: Vec<String> = blocks(result.get("content").unwrap_or(&Value::Null))
        .into_iter()
        .map(|b| match block_type(b) {
            "text" => b
                .get("text")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned(),
            _ => b.to_string(),
        })
        .collect();
    if parts.is_empty()
        && let Some(s) = result.get("structuredContent")
    {
        parts.push(s.to_string());
    }
    parts.join("\n")
}

/// The MCP result with `content` as one block when there is exactly one, as most servers expect.
/// The tail every provider's answer ends with: the model it names (else the one asked for) and
/// its stop reason (else `endTurn`).
fn finished(
    content: Vec<Value>,
    model: &str,
    requested: &str,
    stop: &str,
    usage: Usage,
) -> Completion {
    let model = if model.is_empty() { requested } else { model };
    let stop = if stop.is_empty() { "endTurn" } else { stop };
    Completion {
        result: result_json(content, model, stop),
        usage,
        cut: None,
    }
}

fn result_json(content: Vec<Value>, model: &str, stop: &str) -> Value {
    let content = if content.len() == 1 {
        content.into_iter().next().unwrap_or(Value::Null)
    } else {
        Value::Array(content)
    };
    serde_json::json!({
        "role": "assistant",
        "content": content,
        "model": model,
        "stopReason": stop,
    })
}

/// A model the user configured, with ratings for matching `modelPreferences` priorities.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ModelRating {
    /// The provider id.
    pub provider: String,
    /// The model name as the provider knows it.
    pub model: String,
    /// 0 = cheap … 1 = expensive.
    pub cost: f64,
    /// 0 = slow … 1 = fast.
    pub speed: f64,
    /// 0 = basic … 1 = most capable.
    pub intelligence: f64,
    /// US dollars per million input tokens, where the person set it.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub input_price: Option<f64>,
    /// US dollars per million output tokens, where the person set it.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub output_price: Option<f64>,
}

impl ModelRating {
    /// What `input` and `output` tokens cost on this model, in US dollars, when both prices are
    /// known.
    pub fn cost_of(&self, input: u32, output: u32) -> Option<f64> {
        let (i, o) = (self.input_price?, self.output_price?);
        Some((f64::from(input) * i + f64::from(output) * o) / 1_000_000.0)
    }
}

/// Maps a request's `modelPreferences` onto the configured models: the first hint that is a
/// substring of a model name wins (hints are tried in order, across every provider); otherwise
/// the model scoring best on the requested priorities; ties go to the first configured model.
pub fn choose_model<'a>(
    prefs: Option<&Value>,
    models: &'a [ModelRating],
) -> Option<&'a ModelRating> {
    let prefs = prefs.unwrap_or(&Value::Null);
    if let Some(hints) = prefs.get("hints").and_then(Value::as_array) {
        for hint in hints {
            let Some(name) = hint.get("name").and_then(Value::as_str) else {
                continue;
            };
            let name = name.to_lowercase();
            if name.is_empty() {
                continue;
            }
            if let Some(m) = models
                .iter()
                .find(|m| m.model.to_lowercase().contains(&name))
            {
                return Some(m);
            }
        }
    }
    let p = |k: &str| {
        prefs
            .get(k)
            .and_then(Value::as_f64)
            .unwrap_or(0.0)
            .clamp(0.0, 1.0)
    };
    let (cost, speed, intel) = (
        p("costPriority"),
        p("speedPriority"),
        p("intelligencePriority"),
    );
    let score = |m: &ModelRating| cost * (1.0 - m.cost) + speed * m.speed + intel * m.intelligence;
    let mut best: Option<&ModelRating> = None;
    for m in models {
        if best.is_none_or(|b| score(m) > score(b) + 1e-9) {
            best = Some(m);
        }
    }
    best
}

/// Where sampling goes: the user's providers and rated models.
#[derive(Debug, Clone, Default)]
pub struct Models {
    pub providers: Vec<Provider>,
    pub ratings: Vec<ModelRating>,
}

impl Models {
    /// One provider and one model (the CLI's `--provider`/`--model`).
    pub fn single(provider: Provider, model: &str) -> Self {
        let rating = ModelRating {
            provider: provider.id.clone(),
            model: model.to_owned(),
            cost: 0.5,
            speed: 0.5,
            intelligence: 0.5,
            input_price: None,
            output_price: None,
        };
        Self {
            providers: vec![provider],
            ratings: vec![rating],
        }
    }

    /// The provider with this id.
    pub fn provider(&self, id: &str) -> Option<&Provider> {
        self.providers.iter().find(|p| p.id == id)
    }

    /// The model for a request's preferences, as `(provider id, model)`.
    pub fn choose(&self, prefs: Option<&Value>) -> Option<(String, String)> {
        choose_model(prefs, &self.ratings).map(|m| (m.provider.clone(), m.model.clone()))
    }

    /// [`Models::choose`] among the models `allowed` names (all when it is empty).
    pub fn choose_among(
        &self,
        prefs: Option<&Value>,
        allowed: &[String],
    ) -> Option<(String, String)> {
        let among: Vec<ModelRating> = self
            .ratings
            .iter()
            .filter(|m| is_allowed(allowed, &m.provider, &m.model))
            .cloned()
            .collect();
        choose_model(prefs, &among).map(|m| (m.provider.clone(), m.model.clone()))
    }
}

/// Whether `provider`'s `model` is among `allowed` (`provider/model` or a model name); an empty
/// list allows every model.
pub fn is_allowed(allowed: &[String], provider: &str, model: &str) -> bool {
    allowed.is_empty()
        || allowed
            .iter()
            .any(|a| *a == model || a.split_once('/') == Some((provider, model)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rating(
        provider: &str,
        model: &str,
        cost: f64,
        speed: f64,
        intelligence: f64,
    ) -> ModelRating {
        ModelRating {
            provider: provider.into(),
            model: model.into(),
            cost,
            speed,
            intelligence,
            input_price: None,
            output_price: None,
        }
    }

    #[test]
    fn hints_in_order_then_priorities() {
        let models = vec![
            rating("anthropic", "claude-sonnet-4-5", 0.6, 0.5, 0.9),
            rating("openai", "gpt-4.1-mini", 0.2, 0.9, 0.6),
            rating("ollama", "llama3.2", 0.0, 0.6, 0.3),
        ];
        // The first hint that matches anything wins, across providers.
        let p = json!({"hints": [{"name": "gemini"}, {"name": "GPT"}, {"name": "claude"}]});
        assert_eq!(
            choose_model(Some(&p), &models).unwrap().model,
            "gpt-4.1-mini"
        );
        // A hint naming another vendor's family maps by substring only: "sonnet" → Claude.
        let p = json!({"hints": [{"name": "sonnet"}]});
        assert_eq!(
            choose_model(Some(&p), &models).unwrap().provider,
            "anthropic"
        );
        // No hint matches: priorities decide.
        let p = json!({"hints": [{"name": "o3"}], "costPriority": 1.0});
        assert_eq!(choose_model(Some(&p), &models).unwrap().model, "llama3.2");
        let p = json!({"intelligencePriority": 0.9, "speedPriority": 0.1});
        assert_eq!(
            choose_model(Some(&p), &models).unwrap().model,
            "claude-sonnet-4-5"
        );
        let p = json!({"speedPriority": 1.0, "costPriority": 0.3});
        assert_eq!(
            choose_model(Some(&p), &models).unwrap().model,
            "gpt-4.1-mini"
        );
        // No preferences: the first configured model.
        assert_eq!(
            choose_model(None, &models).unwrap().model,
            "claude-sonnet-4-5"
        );
        assert!(choose_model(None, &[]).is_none());
    }

    #[test]
    fn a_server_is_sampled_only_on_the_models_it_may_use() {
        let models = Models {
            providers: vec![],
            ratings: vec![
                rating("anthropic", "claude-sonnet-4-5", 0.6, 0.5, 0.9),
                rating("ollama", "llama3.2", 0.0, 0.6, 0.3),
            ],
        };
        let smart = json!({"intelligencePriority": 1.0});
        let any: Vec<String> = vec![];
        assert_eq!(
            models.choose_among(Some(&smart), &any).unwrap().1,
            "claude-sonnet-4-5"
        );
        // Its hint and its priorities choose only among what it may use.
        let local = vec!["ollama/llama3.2".to_owned()];
        let hinted = json!({"hints": [{"name": "claude"}], "intelligencePriority": 1.0});
        assert_eq!(
            models.choose_among(Some(&hinted), &local),
            Some(("ollama".into(), "llama3.2".into()))
        );
        assert!(is_allowed(&["llama3.2".into()], "ollama", "llama3.2"));
        assert!(!is_allowed(&local, "anthropic", "claude-sonnet-4-5"));
        assert!(!is_allowed(&local, "other", "llama3.2"));
        assert!(models.choose_among(None, &["gpt-5".into()]).is_none());
    }

    #[test]
    fn sensitive_never_prints() {
        let s = Sensitive::new("sk-secret");
        assert!(!format!("{s:?}").contains("sk-"));
        let p = Provider::new("o", ProviderKind::Openai, None, Some(s)).unwrap();
        assert!(!format!("{p:?}").contains("sk-secret"));
    }
}
