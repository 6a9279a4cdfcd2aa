//! Sampling as Switchboard does it: a server's `sampling/createMessage` is validated (tool
//! use/result balance, no mixing: -32602 otherwise), held to the server's limits (requests per
//! minute, tokens per request, tokens per day), mapped onto one of the user's configured models
//! and sent to that provider. The approval door wraps this with the
//! two reviews: the request before it is sent, the completion before it goes back.

// What this module handles of sampling, roots or logging is deprecated by SEP-2577 for
// 2026-07-28 and later; Switchboard speaks every revision, and these are central to it.
#![allow(deprecated)]

use std::sync::{Arc, OnceLock, RwLock};

use rmcp::model::{CreateMessageRequestParams, ErrorCode as McpErrorCode, ErrorData as McpError};
use rusqlite::params;
use serde_json::Value;

pub use crate::config::SamplingLimits;
use crate::error::{Error, ErrorCode, Result};
pub use crate::providers::Models;
use crate::providers::{Provider, ProviderKind, Usage};
use crate::rate::{PerMinute, over_limit};
use crate::store::{Store, now_ms};

/// Limits looked up per server (the configuration can change while running).
pub type LimitsFor = Arc<dyn Fn(&str) -> SamplingLimits + Send + Sync>;

/// The models each server may be sampled on, by server name (empty: any); `None`: no model at
/// all (a configured server whose setting can no longer be read: renamed or removed meanwhile).
pub type AllowedFor = Arc<dyn Fn(&str) -> Option<Vec<String>> + Send + Sync>;

/// Reads the person's providers and models (from the store, with their keys).
pub type ModelsLoader = Arc<dyn Fn() -> Models + Send + Sync>;

/// Where sampling goes, and rate and budget accounting for it.
pub struct Sampling {
    /// Providers and models; replaced when the user changes them.
    models: RwLock<Models>,
    /// Reads the models at the first question about them, if they were not given at once.
    loader: Option<ModelsLoader>,
    loaded: OnceLock<()>,
    limits: LimitsFor,
    allowed: Option<AllowedFor>,
    store: Arc<Store>,
    recent: PerMinute,
}

impl std::fmt::Debug for Sampling {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sampling")
            .field("models", &self.models.read().map(|m| m.clone()).ok())
            .field("loaded", &self.loaded.get().is_some())
            .finish()
    }
}

/// `-32602` with a message.
pub fn invalid_params(message: impl Into<String>) -> McpError {
    McpError::new(McpErrorCode::INVALID_PARAMS, message.into(), None)
}

/// Validates a sampling request the way the spec requires: tool use only from the assistant,
/// tool results only from the user and never mixed with other content, and every tool use
/// answered by a result.
pub fn validate(params: &CreateMessageRequestParams) -> Result<(), McpError> {
    params.validate().map_err(invalid_params)?;
    if params.max_tokens == 0 {
        return Err(invalid_params("maxTokens must be positive"));
    }
    Ok(())
}

impl Sampling {
    /// Sampling through `models`, with limits from `limits` and usage kept in `store`.
    pub fn new(models: Models, limits: LimitsFor, store: Arc<Store>) -> Self {
        Self {
            models: RwLock::new(models),
            loader: None,
            loaded: OnceLock::new(),
            limits,
            allowed: None,
            store,
            recent: PerMinute::default(),
        }
    }

    /// Models read by `loader` when first needed (a sampling request), instead of the ones given
    /// to [`Sampling::new`]: a CLI run that samples nothing reads no provider and no key.
    pub fn with_models_when_used(mut self, loader: ModelsLoader) -> Self {
        self.loader = Some(loader);
        self
    }

    /// The models, read by the loader first if there is one and this is the first question.
    fn models(&self) -> Option<std::sync::RwLockReadGuard<'_, Models>> {
        self.load_once();
        self.models.read().ok()
    }

    fn load_once(&self) {
        self.loaded.get_or_init(|| {
            if let Some(load) = &self.loader {
                self.put(load());
            }
        });
    }

    /// Reads the models now if they are read when used and were not yet, on the blocking pool:
    /// the store and the keychain (which may wait for the person to unlock it) never hold up the
    /// runtime's thread. Sampling's entry points call this before their first question.
    pub async fn read_models(&self) {
        let Some(load) = self.loader.clone().filter(|_| self.loaded.get().is_none()) else {
            return;
        };
        if let Ok(models) = tokio::task::spawn_blocking(move || load()).await {
            // Models the person set meanwhile stay.
            self.loaded.get_or_init(|| self.put(models));
        }
    }

    fn put(&self, models: Models) {
        if let Ok(mut m) = self.models.write() {
            *m = models;
        }
    }

    /// Holds each server to the models `allowed` names for it.
    pub fn with_allowed(mut self, allowed: AllowedFor) -> Self {
        self.allowed = Some(allowed);
        self
    }

    /// The models `server` may be sampled on (empty: any), or why it may be sampled on none.
    pub fn allowed(&self, server: &str) -> Result<Vec<String>, McpError> {
        match &self.allowed {
            None => Ok(Vec::new()),
            Some(allowed) => allowed(server).ok_or_else(|| {
                McpError::internal_error(
                    format!(
                        "Server {server:?} is no longer in your configuration (renamed or \
                         removed), so its sampling request is refused."
                    ),
                    None,
                )
            }),
        }
    }

    /// The model for a request's preferences, among `allowed` (empty: any).
    pub fn choose_among(
        &self,
        prefs: Option<&Value>,
        allowed: &[String],
    ) -> Option<(String, String)> {
        self.models()?.choose_among(prefs, allowed)
    }

    /// The limits of `server`.
    pub fn limits(&self, server: &str) -> SamplingLimits {
        (self.limits)(server)
    }

    /// Admits a request or refuses it with a clear error: invalid content, too many requests
    /// this minute, too many tokens asked for, or the day's budget spent.
    pub fn admit(&self, server: &str, params: &CreateMessageRequestParams) -> Result<(), McpError> {
        validate(params)?;
        let limits = self.limits(server);
        if params.max_tokens > limits.max_tokens {
            return Err(over_limit(format!(
                "maxTokens {} is over this server's limit of {} tokens per request",
                params.max_tokens, limits.max_tokens
            )));
        }
        let used = self.used_today(server).map_err(|e| over_limit(e.message))?;
        if used >= limits.tokens_per_day {
            return Err(over_limit(format!(
                "this server has used its sampling budget for today ({used} of {} tokens)",
                limits.tokens_per_day
            )));
        }
        if !self.recent.admit(server, limits.requests_per_minute) {
            return Err(over_limit(format!(
                "too many sampling requests: this server may send {} per minute",
                limits.requests_per_minute
            )));
        }
        Ok(())
    }

    /// Tokens `server` used today (UTC).
    pub fn used_today(&self, server: &str) -> Result<u64> {
        let day = now_ms() / 86_400_000;
        self.store.with(|c| {
            c.query_row(
                "SELECT coalesce(sum(tokens), 0) FROM sampling_usage WHERE server = ?1 AND day = ?2",
                params![server, day],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n.max(0) as u64)
        })
    }

    /// Adds `usage` to today's total for `server`.
    pub fn record(&self, server: &str, usage: Usage) -> Result<()> {
        let day = now_ms() / 86_400_000;
        let tokens = i64::from(usage.input_tokens) + i64::from(usage.output_tokens);
        self.store.with(|c| {
            c.execute(
                "INSERT INTO sampling_usage (server, day, tokens) VALUES (?1, ?2, ?3)
                 ON CONFLICT (server, day) DO UPDATE SET tokens = tokens + excluded.tokens",
                params![server, day, tokens],
            )
            .map(|_| ())
        })
    }

    /// Replaces the providers and models (the user changed them).
    pub fn set_models(&self, models: Models) {
        // Given now, they are not read later over these.
        self.loaded.get_or_init(|| ());
        self.put(models);
    }

    /// The model for a request's preferences, as `(provider id, model)`.
    pub fn choose(&self, prefs: Option<&Value>) -> Option<(String, String)> {
        self.models()?.choose(prefs)
    }

    /// The provider to send to, by id.
    pub fn provider(&self, id: &str) -> Result<Provider> {
        self.models()
            .and_then(|m| m.provider(id).cloned())
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::Provider,
                    format!("no LLM provider {id:?} is configured"),
                )
            })
    }

    /// The person's rating (and prices) of `provider`'s `model`, when it is one of theirs.
    pub fn rating(&self, provider: &str, model: &str) -> Option<crate::providers::ModelRating> {
        let models = self.models()?;
        models
            .ratings
            .iter()
            .find(|r| r.provider == provider && r.model == model)
            .cloned()
    }

    /// Whether the chosen provider is the manual one (the user writes the completion).
    pub fn is_manual(&self, id: &str) -> bool {
        self.models()
            .and_then(|m| m.provider(id).map(|p| p.kind == ProviderKind::Manual))
            .unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn params(v: Value) -> CreateMessageRequestParams {
        serde_json::from_value(v).unwrap()
    }

    fn sampling(limits: SamplingLimits) -> Sampling {
        Sampling::new(
            Models::default(),
            Arc::new(move |_| limits),
            Arc::new(Store::in_memory().unwrap()),
        )
    }

    /// Models read when used: not before the first question, once, and never over models the
    /// person set meanwhile.
    #[test]
    fn models_read_when_used_are_read_once_and_only_if_not_set_before() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let reads = Arc::new(AtomicUsize::new(0));
        let loader = |reads: Arc<AtomicUsize>| -> ModelsLoader {
            Arc::new(move || {
                reads.fetch_add(1, Ordering::SeqCst);
                let local = Provider::new("local", ProviderKind::Openai, None, None).unwrap();
                Models::single(local, "small")
            })
        };
        let lazy = sampling(SamplingLimits::default()).with_models_when_used(loader(reads.clone()));
        assert_eq!(reads.load(Ordering::SeqCst), 0);
        assert_eq!(lazy.choose(None), Some(("local".into(), "small".into())));
        assert!(lazy.provider("local").is_ok());
        assert_eq!(reads.load(Ordering::SeqCst), 1);

        let read_ahead =
            sampling(SamplingLimits::default()).with_models_when_used(loader(reads.clone()));
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(read_ahead.read_models());
        assert_eq!(reads.load(Ordering::SeqCst), 2);
        assert!(read_ahead.provider("local").is_ok());
        assert_eq!(reads.load(Ordering::SeqCst), 2);

        let set_first =
            sampling(SamplingLimits::default()).with_models_when_used(loader(reads.clone()));
        set_first.set_models(Models::single(Provider::manual(), "manual"));
        assert_eq!(
            set_first.choose(None),
            Some(("manual".into(), "manual".into()))
        );
        assert_eq!(reads.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn tool_use_and_results_must_balance_and_not_mix() {
        let ok = params(json!({"maxTokens": 10, "messages": [
            {"role": "user", "content": {"type": "text", "text": "weather?"}},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "w", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "toolUseId": "t1", "content": [{"type": "text", "text": "sun"}]}]}
        ]}));
        assert!(validate(&ok).is_ok());

        let unbalanced = params(json!({"maxTokens": 10, "messages": [
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "w", "input": {}}]}
        ]}));
        assert_eq!(
            validate(&unbalanced).unwrap_err().code,
            McpErrorCode::INVALID_PARAMS
        );

        let mixed = params(json!({"maxTokens": 10, "messages": [
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "w", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "toolUseId": "t1", "content": []},
                {"type": "text", "text": "and also"}]}
        ]}));
        let e = validate(&mixed).unwrap_err();
        assert_eq!(e.code.0, -32602);
        assert!(e.message.contains("MUST NOT"), "{}", e.message);

        let orphan = params(json!({"maxTokens": 10, "messages": [
            {"role": "user", "content": [{"type": "tool_result", "toolUseId": "nope", "content": []}]}
        ]}));
        assert_eq!(validate(&orphan).unwrap_err().code.0, -32602);
    }

    #[test]
    fn limits_per_minute_per_request_and_per_day() {
        let s = sampling(SamplingLimits {
            requests_per_minute: 2,
            max_tokens: 100,
            tokens_per_day: 50,
        });
        let small = params(
            json!({"maxTokens": 10, "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]}),
        );
        let big = params(
            json!({"maxTokens": 101, "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]}),
        );
        let e = s.admit("a", &big).unwrap_err();
        assert!(e.message.contains("limit of 100 tokens"), "{}", e.message);
        s.admit("a", &small).unwrap();
        s.admit("a", &small).unwrap();
        let e = s.admit("a", &small).unwrap_err();
        assert!(e.message.contains("2 per minute"), "{}", e.message);
        // Another server has its own window.
        s.admit("b", &small).unwrap();
        s.record(
            "b",
            Usage {
                input_tokens: 30,
                output_tokens: 20,
            },
        )
        .unwrap();
        assert_eq!(s.used_today("b").unwrap(), 50);
        let e = s.admit("b", &small).unwrap_err();
        assert!(e.message.contains("budget"), "{}", e.message);
    }
}
