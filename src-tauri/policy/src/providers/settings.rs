//! The user's providers and rated models, kept in the store; API keys in the keychain under
//! `provider:<id>` (never in the database, never sent back to the UI). [`ProviderSettingsStore::models`]
//! turns them into the [`Models`] sampling and the chat choose from; the keyless manual provider is
//! always there, and is chosen only while no other model is configured.

use std::sync::Arc;

use rusqlite::params;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{ModelRating, Models, Provider, ProviderKind, Sensitive};
use crate::error::{Error, ErrorCode, Result};
use crate::secrets::SecretStore;
use crate::store::{Store, now_ms};

/// The id of the built-in provider with which the user writes the completion.
pub const MANUAL: &str = "manual";

/// One provider as the settings screen shows and saves it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ProviderSettings {
    /// The user's name for it (`openai`, `ollama`, …): letters, digits, `-`, `_`, `.`.
    pub id: String,
    pub kind: ProviderKind,
    /// Null for the kind's usual address.
    pub base_url: Option<String>,
    /// The models to use, with the user's ratings (their `provider` is this provider's id).
    pub models: Vec<ModelRating>,
    /// Whether a key is stored in the keychain. Read-only: the key itself never leaves the backend.
    #[serde(default)]
    pub has_key: bool,
}

fn kind_str(kind: ProviderKind) -> String {
    serde_json::to_value(kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn kind_parse(s: &str) -> Option<ProviderKind> {
    serde_json::from_value(serde_json::Value::String(s.to_owned())).ok()
}

fn invalid(message: String) -> Error {
    Error::new(ErrorCode::InvalidInput, message)
}

/// The providers in the store, with their keys in `secrets`.
#[derive(Clone)]
pub struct ProviderSettingsStore {
    store: Arc<Store>,
    secrets: Arc<dyn SecretStore>,
}

impl std::fmt::Debug for ProviderSettingsStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProviderSettingsStore")
            .field("store", &self.store)
            .finish()
    }
}

impl ProviderSettingsStore {
    /// Providers kept in `store`, keys in `secrets`.
    pub fn new(store: Arc<Store>, secrets: Arc<dyn SecretStore>) -> Self {
        Self { store, secrets }
    }

    /// Every configured provider, in the order they were added.
    pub fn list(&self) -> Result<Vec<ProviderSettings>> {
        let rows = self.store.with(|c| {
            let mut stmt =
                c.prepare("SELECT id, kind, base_url FROM providers ORDER BY position, id")?;
            let providers = stmt
                .query_map([], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, Option<String>>(2)?,
                    ))
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            let mut stmt = c.prepare(
                "SELECT provider, model, cost, speed, intelligence, input_price, output_price \
                 FROM provider_models ORDER BY position",
            )?;
            let models = stmt
                .query_map([], |r| {
                    Ok(ModelRating {
                        provider: r.get(0)?,
                        model: r.get(1)?,
                        cost: r.get(2)?,
                        speed: r.get(3)?,
                        intelligence: r.get(4)?,
                        input_price: r.get(5)?,
                        output_price: r.get(6)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok((providers, models))
        })?;
        let (providers, models) = rows;
        Ok(providers
            .into_iter()
            .filter_map(|(id, kind, base_url)| {
                let kind = kind_parse(&kind)?;
                let has_key = self
                    .secrets
                    .find(&ProviderKind::key_entry(&id))
                    .ok()
                    .flatten()
                    .is_some_and(|k| !k.is_empty());
                Some(ProviderSettings {
                    models: models
                        .iter()
                        .filter(|m| m.provider == id)
                        .cloned()
                        .collect(),
                    id,
                    kind,
                    base_url,
                    has_key,
                })
            })
            .collect())
    }

    /// Adds or replaces a provider; `key`, when given, goes to the keychain.
    pub fn save(&self, settings: &ProviderSettings, key: Option<&Sensitive>) -> Result<()> {
        let id = settings.id.trim();
        if id.is_empty()
            || !id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        {
            return Err(invalid(format!(
                "provider name {id:?}: use letters, digits, '-', '_' or '.'"
            )));
        }
        if id == MANUAL || settings.kind == ProviderKind::Manual {
            return Err(invalid(
                "the manual provider is built in and cannot be changed".into(),
            ));
        }
        let base_url = settings
            .base_url
            .as_deref()
            .map(str::trim)
            .filter(|u| !u.is_empty());
        // Validates the address the way sending will.
        Provider::new(id, settings.kind, base_url, None)?;
        for m in &settings.models {
            if m.model.trim().is_empty() {
                return Err(invalid(format!("provider {id}: a model has no name")));
            }
            for (what, v) in [
                ("cost", m.cost),
                ("speed", m.speed),
                ("intelligence", m.intelligence),
            ] {
                if !(0.0..=1.0).contains(&v) {
                    return Err(invalid(format!(
                        "provider {id}, model {}: {what} must be between 0 and 1",
                        m.model
                    )));
                }
            }
            for (what, price) in [("input", m.input_price), ("output", m.output_price)] {
                if price.is_some_and(|p| !(0.0..=1_000_000.0).contains(&p)) {
                    return Err(invalid(format!(
                        "provider {id}, model {}: the {what} price must be a number of dollars \
                         per million tokens, from 0 to 1,000,000",
                        m.model
                    )));
                }
            }
        }
        let kind = kind_str(settings.kind);
        self.store.with(|c| {
            let tx = c.transaction()?;
            let position: i64 = tx
                .query_row(
                    "SELECT COALESCE((SELECT position FROM providers WHERE id = ?1), \
                     (SELECT COALESCE(MAX(position), 0) + 1 FROM providers))",
                    params![id],
                    |r| r.get(0),
                )?;
            tx.execute("DELETE FROM providers WHERE id = ?1", params![id])?;
            tx.execute(
                "INSERT INTO providers (id, kind, base_url, position, changed_ms) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![id, kind, base_url, position, now_ms()],
            )?;
            for (i, m) in settings.models.iter().enumerate() {
                tx.execute(
                    "INSERT OR REPLACE INTO provider_models \
                     (provider, model, cost, speed, intelligence, position, input_price, output_price) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                    params![
                        id,
                        m.model.trim(),
                        m.cost,
                        m.speed,
                        m.intelligence,
                        i as i64,
                        m.input_price,
                        m.output_price
                    ],
                )?;
            }
            tx.commit()
        })?;
        if let Some(key) = key.filter(|k| !k.expose().is_empty()) {
            self.secrets
                .set(&ProviderKind::key_entry(id), key.expose())?;
        }
        Ok(())
    }

    /// Removes a provider, its models and its key.
    pub fn remove(&self, id: &str) -> Result<()> {
        let removed = self
            .store
            .with(|c| c.execute("DELETE FROM providers WHERE id = ?1", params![id]))?;
        if removed == 0 {
            return Err(invalid(format!("no provider named {id:?}")));
        }
        self.secrets.delete(&ProviderKind::key_entry(id))
    }

    /// A ready-to-send provider by id (the manual one included).
    pub fn provider(&self, id: &str) -> Result<Provider> {
        if id == MANUAL {
            return Provider::new(MANUAL, ProviderKind::Manual, None, None);
        }
        let s = self
            .list()?
            .into_iter()
            .find(|p| p.id == id)
            .ok_or_else(|| invalid(format!("no provider named {id:?}")))?;
        let key = Provider::find_key(&s.id, s.kind, self.secrets.as_ref());
        Provider::new(&s.id, s.kind, s.base_url.as_deref(), key)
    }

    /// What sampling chooses from: every configured model, or the manual provider while there
    /// is none (it stays available to pick by hand either way).
    pub fn models(&self) -> Result<Models> {
        let mut models = Models::single(Provider::manual(), MANUAL);
        let configured = self.list()?;
        let mut ratings = Vec::new();
        for s in configured {
            let key = Provider::find_key(&s.id, s.kind, self.secrets.as_ref());
            match Provider::new(&s.id, s.kind, s.base_url.as_deref(), key) {
                Ok(p) => models.providers.push(p),
                Err(e) => {
                    tracing::warn!(provider = %s.id, error = %e, "provider skipped");
                    continue;
                }
            }
            ratings.extend(s.models.into_iter().map(|mut m| {
                m.provider = s.id.clone();
                m
            }));
        }
        if !ratings.is_empty() {
            models.ratings = ratings;
        }
        Ok(models)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secrets::MemoryStore;

    fn rating(model: &str, intelligence: f64) -> ModelRating {
        ModelRating {
            provider: String::new(),
            model: model.into(),
            cost: 0.5,
            speed: 0.5,
            intelligence,
            input_price: None,
            output_price: None,
        }
    }

    fn settings() -> (ProviderSettingsStore, Arc<MemoryStore>) {
        let secrets = Arc::new(MemoryStore::default());
        let store = Arc::new(Store::in_memory().unwrap());
        (ProviderSettingsStore::new(store, secrets.clone()), secrets)
    }

    #[test]
    fn a_models_prices_are_kept_and_checked() {
        let (s, _) = settings();
        let mut priced = rating("gpt-4o-mini", 0.6);
        (priced.input_price, priced.output_price) = (Some(0.15), Some(0.6));
        let mut openai = ProviderSettings {
            id: "openai".into(),
            kind: ProviderKind::Openai,
            base_url: None,
            models: vec![priced, rating("gpt-4.1", 0.9)],
            has_key: false,
        };
        s.save(&openai, None).unwrap();
        let models = &s.list().unwrap()[0].models;
        assert_eq!(
            (models[0].input_price, models[0].output_price),
            (Some(0.15), Some(0.6))
        );
        assert_eq!(
            (models[1].input_price, models[1].output_price),
            (None, None)
        );
        assert_eq!(models[0].cost_of(1_000_000, 500_000), Some(0.45));
        assert_eq!(models[1].cost_of(1, 1), None);
        for wrong in [-1.0, f64::NAN, 2e6] {
            openai.models[1].output_price = Some(wrong);
            let e = s.save(&openai, None).unwrap_err();
            assert!(e.message.contains("output price"), "{e}");
        }
    }

    #[test]
    fn saves_lists_and_removes_with_the_key_in_the_keychain_only() {
        let (s, secrets) = settings();
        let openai = ProviderSettings {
            id: "openai".into(),
            kind: ProviderKind::Openai,
            base_url: None,
            models: vec![rating("gpt-4o-mini", 0.6), rating("gpt-4.1", 0.9)],
            has_key: false,
        };
        s.save(&openai, Some(&Sensitive::new("sk-secret"))).unwrap();
        let ollama = ProviderSettings {
            id: "ollama".into(),
            kind: ProviderKind::Openai,
            base_url: Some("http://localhost:11434/v1".into()),
            models: vec![rating("llama3.2", 0.4)],
            has_key: false,
        };
        s.save(&ollama, None).unwrap();
        let list = s.list().unwrap();
        assert_eq!(
            list.iter().map(|p| p.id.as_str()).collect::<Vec<_>>(),
            ["openai", "ollama"]
        );
        assert!(list[0].has_key && !list[1].has_key);
        assert_eq!(list[0].models[1].model, "gpt-4.1");
        assert_eq!(list[0].models[1].provider, "openai");
        assert_eq!(
            secrets.get("provider:openai").unwrap().as_deref(),
            Some("sk-secret")
        );
        // Saving again keeps the position and replaces the models; no key keeps the old one.
        let mut changed = openai.clone();
        changed.models = vec![rating("gpt-4.1", 0.9)];
        s.save(&changed, None).unwrap();
        let list = s.list().unwrap();
        assert_eq!(list[0].id, "openai");
        assert_eq!(list[0].models.len(), 1);
        assert!(list[0].has_key);

        s.remove("openai").unwrap();
        assert_eq!(secrets.get("provider:openai").unwrap(), None);
        assert_eq!(s.list().unwrap().len(), 1);
        assert_eq!(
            s.remove("openai").unwrap_err().code,
            ErrorCode::InvalidInput
        );
    }

    #[test]
    fn refuses_what_cannot_work() {
        let (s, _) = settings();
        let mut p = ProviderSettings {
            id: "bad name".into(),
            kind: ProviderKind::Openai,
            base_url: None,
            models: vec![],
            has_key: false,
        };
        assert!(
            s.save(&p, None)
                .unwrap_err()
                .message
                .contains("provider name")
        );
        p.id = "manual".into();
        assert!(s.save(&p, None).is_err());
        p.id = "x".into();
        p.base_url = Some("not a url".into());
        assert!(s.save(&p, None).unwrap_err().message.contains("base URL"));
        p.base_url = None;
        p.models = vec![rating("m", 1.5)];
        assert!(
            s.save(&p, None)
                .unwrap_err()
                .message
                .contains("between 0 and 1")
        );
    }

    #[test]
    fn sampling_uses_configured_models_and_falls_back_to_manual() {
        let (s, _) = settings();
        let models = s.models().unwrap();
        assert_eq!(
            models.choose(None),
            Some((MANUAL.to_owned(), MANUAL.to_owned()))
        );
        s.save(
            &ProviderSettings {
                id: "anthropic".into(),
                kind: ProviderKind::Anthropic,
                base_url: None,
                models: vec![rating("claude-haiku", 0.5), rating("claude-opus", 1.0)],
                has_key: false,
            },
            None,
        )
        .unwrap();
        let models = s.models().unwrap();
        let prefs = serde_json::json!({"intelligencePriority": 1.0});
        assert_eq!(
            models.choose(Some(&prefs)),
            Some(("anthropic".to_owned(), "claude-opus".to_owned()))
        );
        let hint = serde_json::json!({"hints": [{"name": "haiku"}]});
        assert_eq!(models.choose(Some(&hint)).unwrap().1, "claude-haiku");
        // The manual provider can still be picked by hand.
        assert!(models.provider(MANUAL).is_some());
        assert_eq!(
            s.provider("anthropic").unwrap().kind,
            ProviderKind::Anthropic
        );
    }
}
