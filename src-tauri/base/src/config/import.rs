//! Importing servers from other hosts: Claude Desktop's `claude_desktop_config.json` and VS Code's
//! `mcp.json` (JSON with comments; `servers`, `inputs`, `${input:…}`, `${env:…}`, `envFile`).
//! Import is two steps so the UI can show a preview: [`plan`] parses and finds secrets without
//! touching anything; [`ImportPlan::apply`] stores the secrets in the keychain and merges the servers.
//! Secret values found in `env` or `headers`, and every `${input:…}`, become `${secret:…}` references.

use std::path::Path;

use indexmap::IndexMap;
use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use super::{Config, ServerConfig};
use crate::error::{Error, ErrorCode, Result};
use crate::secrets::{self, SecretStore};

pub mod locations;

/// Which host a file came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum ImportSource {
    ClaudeDesktop,
    VsCode,
}

/// A VS Code `inputs` entry: a value the user is asked for once, then kept in the keychain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ImportInput {
    pub id: String,
    pub description: String,
    pub password: bool,
    /// The keychain entry the value goes to.
    pub secret_name: String,
}

/// What importing a server does to the configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum ImportChange {
    /// No server of this name yet: it is added.
    New,
    /// A server of this name has exactly this definition: nothing changes.
    Unchanged,
    /// A server of this name has another definition: it is updated (keeping whether it is
    /// enabled and its roots).
    Update,
}

/// What an import would do, safe to show: secret values never appear in it.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ImportPlan {
    pub source: ImportSource,
    /// Servers as they will be written (with references instead of secrets).
    pub servers: IndexMap<String, ServerConfig>,
    /// What each server does to the current configuration (see [`ImportPlan::compare`]).
    pub changes: IndexMap<String, ImportChange>,
    /// Names of keychain entries that will be created from plain-text values in the file.
    pub secret_names: Vec<String>,
    /// Inputs the user must supply (VS Code `inputs`).
    pub inputs: Vec<ImportInput>,
    /// SHA-256 of the file as previewed: applying refuses a file changed since.
    pub source_digest: String,
    #[serde(skip)]
    #[ts(skip)]
    secret_values: Vec<(String, String)>,
}

/// What an applied import did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ImportReport {
    /// Servers added.
    pub added: Vec<String>,
    /// Servers whose definition was updated (they restart with it).
    pub updated: Vec<String>,
    /// Servers already there with the same definition: left as they were.
    pub unchanged: Vec<String>,
    /// Keychain entries written.
    pub secrets_stored: Vec<String>,
    /// Inputs no value was given for; their servers fail to start until the secret is set.
    pub inputs_missing: Vec<String>,
}

/// When `value` of server `server`'s `section` (`env` or `header`) key `key` is a plain
/// secret-looking value, replaces it with a reference to its keychain entry
/// (`server/<server>/<section>/<key>`) and returns the entry's name and the secret, to be stored.
pub fn take_plain_secret(
    server: &str,
    section: &str,
    key: &str,
    value: &mut String,
) -> Option<(String, String)> {
    if !looks_secret(key) || value.is_empty() || value.contains("${") {
        return None;
    }
    let entry = format!("server/{server}/{section}/{key}");
    let secret = std::mem::replace(value, secrets::reference(&entry));
    Some((entry, secret))
}

/// Whether an env var or header name looks like it carries a secret.
pub fn looks_secret(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    [
        "key",
        "token",
        "secret",
        "passw",
        "credential",
        "auth",
        "cookie",
        "session",
        "bearer",
        "private",
    ]
    .iter()
    .any(|w| k.contains(w))
        || k.ends_with("_pat")
}

/// Parses another host's config file and plans the import. Nothing is stored yet.
// Long on purpose: the one place that reads both hosts' shapes (Claude Desktop's `mcpServers`,
// VS Code's `servers` with `inputs`), kept whole so what is taken from each is seen together.
pub fn plan(text: &str, file: &Path) -> Result<ImportPlan> {
    let root: Value = json5::from_str(text).map_err(|e| not_json(file, &e))?;
    let Value::Object(mut root) = root else {
        return Err(Error::new(
            ErrorCode::ConfigInvalid,
            format!("{}: the top level must be a JSON object", file.display()),
        ));
    };
    // VS Code's settings.json nests everything under "mcp".
    if let Some(Value::Object(mcp)) = root.remove("mcp") {
        root = mcp;
    }
    let (source, servers) = if let Some(s) = root.remove("mcpServers") {
        (ImportSource::ClaudeDesktop, s)
    } else if let Some(s) = root.remove("servers") {
        (ImportSource::VsCode, s)
    } else {
        return Err(Error::new(
            ErrorCode::ConfigInvalid,
            format!(
                "{}: neither `mcpServers` (Claude Desktop) nor `servers` (VS Code) found",
                file.display()
            ),
        ));
    };
    let Value::Object(servers) = servers else {
        return Err(Error::new(
            ErrorCode::ConfigInvalid,
            format!("{}: the servers map must be an object", file.display()),
        ));
    };
    let mut inputs = Vec::new();
    if let Some(Value::Array(list)) = root.get("inputs") {
        for (i, item) in list.iter().enumerate() {
            let id = item.get("id").and_then(Value::as_str).ok_or_else(|| {
                Error::new(
                    ErrorCode::ConfigInvalid,
                    format!("{}: field `inputs[{i}].id`: missing", file.display()),
                )
            })?;
            inputs.push(ImportInput {
                id: id.to_owned(),
                description: item
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or(id)
                    .to_owned(),
                password: item
                    .get("password")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
                secret_name: format!("input/{id}"),
            });
        }
    }

    let mut plan = ImportPlan {
        source,
        servers: IndexMap::new(),
        changes: IndexMap::new(),
        secret_names: Vec::new(),
        inputs,
        source_digest: crate::canonical::digest(&Value::String(text.to_owned())),
        secret_values: Vec::new(),
    };
    for (name, value) in servers {
        let mut server: ServerConfig = serde_path_to_error::deserialize(value).map_err(|e| {
            let field = e.path().to_string();
            super::invalid_field(file, &name, &field, expected(e.inner()))
        })?;
        check_url(file, &name, &server)?;
        // VS Code's `${input:id}` becomes a keychain reference.
        let rewrite_inputs = |v: &mut String| {
            if v.contains("${input:") {
                *v = v.replace("${input:", "${secret:input/");
            }
        };
        server.args.iter_mut().for_each(rewrite_inputs);
        for (section, map) in [("env", &mut server.env), ("header", &mut server.headers)] {
            for (key, value) in map.iter_mut() {
                rewrite_inputs(value);
                if let Some((secret_name, secret)) = take_plain_secret(&name, section, key, value) {
                    plan.secret_values.push((secret_name.clone(), secret));
                    plan.secret_names.push(secret_name);
                }
            }
        }
        server.endpoint(file, &name)?;
        plan.servers.insert(name, server);
    }
    Ok(plan)
}

/// A syntax error, told by where it is only: the parser's own message quotes the line, which in a
/// file chosen by mistake may hold a secret.
fn not_json(file: &Path, e: &json5::Error) -> Error {
    let json5::Error::Message { location, .. } = e;
    let at = location
        .as_ref()
        .map(|l| format!(" at line {}, column {}", l.line, l.column))
        .unwrap_or_default();
    Error::new(
        ErrorCode::ConfigInvalid,
        format!("{}: not valid JSON (comments allowed){at}", file.display()),
    )
}

/// What a field should have held, never what it held: serde's messages quote the value.
fn expected(e: &serde_json::Error) -> String {
    let message = e.to_string();
    if message.starts_with("missing field") {
        return message;
    }
    let what = if message.starts_with("unknown field") {
        "unknown field"
    } else {
        "not what this field takes"
    };
    match message.split_once(", expected ") {
        Some((_, expected)) => format!("{what}; expected {expected}"),
        None => what.to_owned(),
    }
}

/// Refuses a `url` that is not http(s) without quoting it (the config's own check quotes it).
fn check_url(file: &Path, name: &str, server: &ServerConfig) -> Result<()> {
    let Some(raw) = &server.url else {
        return Ok(());
    };
    match url::Url::parse(raw) {
        Ok(url) if matches!(url.scheme(), "http" | "https") => Ok(()),
        _ => Err(super::invalid_field(
            file,
            name,
            "url",
            "not an http or https URL".into(),
        )),
    }
}

impl ImportPlan {
    /// Stores the plan's secrets and the supplied input values in `store`, then adds the servers
    /// to `config`. `input_value` is asked for each input; `None` leaves it missing.
    pub fn apply(
        self,
        config: &mut Config,
        store: &dyn SecretStore,
        input_value: &mut dyn FnMut(&ImportInput) -> Option<String>,
    ) -> Result<ImportReport> {
        let mut report = self.store_secrets(store, input_value)?;
        let merged = self.add_servers(config);
        report.added = merged.added;
        report.updated = merged.updated;
        report.unchanged = merged.unchanged;
        Ok(report)
    }

    /// Stores the plan's secrets and the supplied input values in `store` (the keychain: may
    /// wait on an unlock prompt, so never under a lock). The report lists no servers yet.
    pub fn store_secrets(
        &self,
        store: &dyn SecretStore,
        input_value: &mut dyn FnMut(&ImportInput) -> Option<String>,
    ) -> Result<ImportReport> {
        let mut report = ImportReport {
            added: Vec::new(),
            updated: Vec::new(),
            unchanged: Vec::new(),
            secrets_stored: Vec::new(),
            inputs_missing: Vec::new(),
        };
        for (name, value) in &self.secret_values {
            store.set(name, value)?;
            report.secrets_stored.push(name.clone());
        }
        for input in &self.inputs {
            match input_value(input) {
                Some(v) => {
                    store.set(&input.secret_name, &v)?;
                    report.secrets_stored.push(input.secret_name.clone());
                }
                None => report.inputs_missing.push(input.id.clone()),
            }
        }
        Ok(report)
    }

    /// Says, for each server, what importing it does to `config` (shown in the preview).
    pub fn compare(&mut self, config: &Config) {
        self.changes = self
            .servers
            .iter()
            .map(|(name, server)| (name.clone(), change(config, name, server)))
            .collect();
    }

    /// Merges the plan's servers into `config`: new ones are added, changed ones updated in place
    /// (never copied under another name), identical ones left alone. The report lists each kind.
    pub fn add_servers(self, config: &mut Config) -> ImportReport {
        let mut report = ImportReport {
            added: Vec::new(),
            updated: Vec::new(),
            unchanged: Vec::new(),
            secrets_stored: Vec::new(),
            inputs_missing: Vec::new(),
        };
        for (name, server) in self.servers {
            match change(config, &name, &server) {
                ImportChange::Unchanged => report.unchanged.push(name),
                ImportChange::New => {
                    config.mcp_servers.insert(name.clone(), server);
                    report.added.push(name);
                }
                ImportChange::Update => {
                    let kept = as_kept(config, &name, server);
                    config.mcp_servers.insert(name.clone(), kept);
                    report.updated.push(name);
                }
            }
        }
        report
    }
}

/// What importing `server` as `name` does to `config`.
fn change(config: &Config, name: &str, server: &ServerConfig) -> ImportChange {
    match config.mcp_servers.get(name) {
        None => ImportChange::New,
        Some(existing) if *existing == as_kept(config, name, server.clone()) => {
            ImportChange::Unchanged
        }
        Some(_) => ImportChange::Update,
    }
}

/// The imported definition with the user's own choices for an existing server kept: whether
/// it is enabled, and its roots.
fn as_kept(config: &Config, name: &str, mut server: ServerConfig) -> ServerConfig {
    if let Some(existing) = config.mcp_servers.get(name) {
        server.enabled = existing.enabled;
        server.roots = existing.roots.clone();
    }
    server
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secrets::MemoryStore;

    #[test]
    fn claude_desktop_secrets_become_references() {
        let text = r#"{
          "mcpServers": {
            "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                       "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_secret", "LOG": "1"},
                       "someFutureKey": {"a": 1}},
            "api": {"url": "https://x.example/mcp", "headers": {"Authorization": "Bearer abc"}}
          },
          "globalShortcut": ""
        }"#;
        let plan = plan(text, Path::new("claude_desktop_config.json")).unwrap();
        assert_eq!(plan.source, ImportSource::ClaudeDesktop);
        let preview = serde_json::to_string(&plan).unwrap();
        assert!(!preview.contains("ghp_secret") && !preview.contains("Bearer abc"));
        let gh = &plan.servers["github"];
        assert_eq!(
            gh.env["GITHUB_PERSONAL_ACCESS_TOKEN"],
            "${secret:server/github/env/GITHUB_PERSONAL_ACCESS_TOKEN}"
        );
        assert_eq!(gh.env["LOG"], "1");
        assert_eq!(gh.extra["someFutureKey"]["a"], 1);

        let store = MemoryStore::default();
        let mut config = Config::default();
        config
            .mcp_servers
            .insert("github".into(), ServerConfig::stdio("x", vec![]));
        let report = plan.apply(&mut config, &store, &mut |_| None).unwrap();
        // A server of the same name is updated, never copied under another name.
        assert_eq!(report.added, ["api"]);
        assert_eq!(report.updated, ["github"]);
        assert_eq!(config.mcp_servers.len(), 2);
        assert_eq!(config.mcp_servers["github"].command.as_deref(), Some("npx"));
        assert_eq!(
            store
                .get("server/api/header/Authorization")
                .unwrap()
                .as_deref(),
            Some("Bearer abc")
        );
        let saved = serde_json::to_string(&config).unwrap();
        assert!(!saved.contains("ghp_secret") && !saved.contains("Bearer abc"));
    }

    #[test]
    fn vscode_jsonc_with_inputs() {
        let text = r#"{
          // comments are allowed
          "inputs": [{"type": "promptString", "id": "api-key", "description": "API key", "password": true}],
          "servers": {
            "perplexity": {"type": "stdio", "command": "npx", "args": ["-y", "server-perplexity-ask"],
                           "env": {"PERPLEXITY_API_KEY": "${input:api-key}", "HOME_DIR": "${env:HOME}"},
                           "envFile": "${workspaceFolder}/.env"},
            "remote": {"type": "http", "url": "http://localhost:3000/mcp",},
          },
        }"#;
        let plan = plan(text, Path::new(".vscode/mcp.json")).unwrap();
        assert_eq!(plan.source, ImportSource::VsCode);
        assert_eq!(plan.inputs.len(), 1);
        let p = &plan.servers["perplexity"];
        assert_eq!(p.env["PERPLEXITY_API_KEY"], "${secret:input/api-key}");
        assert_eq!(p.env["HOME_DIR"], "${env:HOME}");
        assert_eq!(p.kind.as_deref(), Some("stdio"));
        let store = MemoryStore::default();
        let mut config = Config::default();
        let report = plan
            .apply(&mut config, &store, &mut |i| {
                (i.id == "api-key").then(|| "pplx-1".to_owned())
            })
            .unwrap();
        assert_eq!(report.secrets_stored, ["input/api-key"]);
        assert_eq!(
            store.get("input/api-key").unwrap().as_deref(),
            Some("pplx-1")
        );
    }

    #[test]
    fn bad_import_names_the_field() {
        let e = plan(r#"{"servers":{"x":{"command":5}}}"#, Path::new("m.json")).unwrap_err();
        assert!(
            e.message.contains("\"x\"") && e.message.contains("command"),
            "{}",
            e.message
        );
        let e = plan(r#"{"other":{}}"#, Path::new("m.json")).unwrap_err();
        assert!(e.message.contains("mcpServers"), "{}", e.message);
    }

    /// A file chosen by mistake (a credentials file, a config with a typo) never has its
    /// contents repeated in the error: syntax errors give only where, field errors only which
    /// field and what was expected.
    #[test]
    fn errors_never_echo_what_the_file_holds() {
        const CANARY: &str = "canary-7f3a9c";
        let files = [
            // Syntax errors, in JSON and in a file that is no JSON at all.
            format!(r#"{{"mcpServers": {{"x": {{"env": {{"TOKEN": "{CANARY}" "oops"}}}}}}}}"#),
            format!("{{\n  \"mcpServers\": {{\n    \"x\": {CANARY}\n"),
            format!("[default]\naws_secret_access_key = {CANARY}\n"),
            // Wrong types and values.
            format!(r#"{{"mcpServers": {{"x": {{"command": "npx", "env": "TOKEN={CANARY}"}}}}}}"#),
            format!(r#"{{"mcpServers": {{"x": {{"command": "npx", "args": "{CANARY}"}}}}}}"#),
            format!(r#"{{"mcpServers": {{"x": {{"url": "{CANARY} is no URL"}}}}}}"#),
            format!(
                r#"{{"mcpServers": {{"x": {{"url": "https://x.example", "transport": "{CANARY}"}}}}}}"#
            ),
            format!(
                r#"{{"mcpServers": {{"x": {{"command": "npx", "requestTimeoutSecs": "{CANARY}"}}}}}}"#
            ),
            format!(r#""{CANARY}""#),
        ];
        for text in &files {
            let e = plan(text, Path::new("picked.json")).unwrap_err();
            assert_eq!(e.code, ErrorCode::ConfigInvalid, "{e}");
            assert!(!e.message.contains(CANARY), "{text}\n→ {}", e.message);
            assert!(e.message.starts_with("picked.json: "), "{}", e.message);
        }
        let syntax = plan(&files[1], Path::new("picked.json")).unwrap_err();
        assert!(syntax.message.contains("line 3"), "{}", syntax.message);
        let field = plan(&files[3], Path::new("picked.json")).unwrap_err();
        assert!(
            field.message.contains("`env`") && field.message.contains("expected a map"),
            "{}",
            field.message
        );
    }

    #[test]
    fn importing_again_changes_nothing_and_a_changed_server_is_updated_in_place() {
        let text = r#"{"mcpServers": {
            "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]},
            "github": {"command": "npx", "args": ["-y", "gh"], "env": {"GITHUB_TOKEN": "ghp_secret"}}
        }}"#;
        let store = MemoryStore::default();
        let mut config = Config::default();
        let first = plan(text, Path::new("claude.json"))
            .unwrap()
            .apply(&mut config, &store, &mut |_| None)
            .unwrap();
        assert_eq!(first.added, ["fs", "github"]);
        config.mcp_servers["fs"].enabled = false;

        let mut again = plan(text, Path::new("claude.json")).unwrap();
        again.compare(&config);
        assert!(
            again
                .changes
                .values()
                .all(|c| *c == ImportChange::Unchanged)
        );
        let before = config.clone();
        let second = again.apply(&mut config, &store, &mut |_| None).unwrap();
        assert!(second.added.is_empty() && second.updated.is_empty());
        assert_eq!(second.unchanged, ["fs", "github"]);
        assert_eq!(config, before, "nothing copied, nothing changed");

        let changed = text.replace("/tmp", "/srv");
        let mut third = plan(&changed, Path::new("claude.json")).unwrap();
        third.compare(&config);
        assert_eq!(third.changes["fs"], ImportChange::Update);
        assert_eq!(third.changes["github"], ImportChange::Unchanged);
        let report = third.apply(&mut config, &store, &mut |_| None).unwrap();
        assert_eq!(report.updated, ["fs"]);
        assert_eq!(config.mcp_servers.len(), 2, "updated in place, not copied");
        assert!(config.mcp_servers["fs"].args.contains(&"/srv".to_owned()));
        assert!(
            !config.mcp_servers["fs"].enabled,
            "the user's choice is kept"
        );
    }
}
