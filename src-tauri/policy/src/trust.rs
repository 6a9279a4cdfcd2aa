//! Trust in launch definitions. Whatever sits in the config file (written by a script, another
//! app, a pasted snippet) is hostile until the user has seen it: a server is spawned or dialed
//! only when the SHA-256 of its canonical launch definition (command, args, cwd, env, envFile
//! and what that file holds, url, headers, transport, the sandbox, and the settings that widen
//! what it may reach or make Switchboard do for it: roots (a local server's own, or the global
//! ones it inherits: its box may write them), sampling limits, largest message, sign-in client)
//! is one the user trusted, after being shown exactly that definition with hidden characters
//! revealed. The name is not part of the digest, so renaming keeps trust;
//! any other change to those fields asks again.
//!
//! Each name is also bound to the trusted definition it last ran, because its standing rules and
//! pinned tools were made for that definition: a name that turns up with another trusted
//! definition (two names swapped by hand) needs trust again, and trusting it resets them.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, OnceLock, RwLock};

use rusqlite::params;
use serde::Serialize;
use serde_json::{Value, json};
use ts_rs::TS;

use crate::config::{NetworkSetting, OAuthGrant, SandboxProfile, SandboxSetting, ServerConfig};
use crate::error::{Error, ErrorCode, Result};
use crate::pins::{self, FieldChange};
use crate::store::{Store, now_ms};
use crate::visible::reveal;
use switchboard_protocol::env_file;

/// The digest of `config`'s launch definition: what decides what runs, nothing else.
pub fn launch_digest(config: &ServerConfig) -> String {
    crate::canonical::digest(&launch_value(config))
}

fn launch_value(c: &ServerConfig) -> Value {
    let mut value = json!({
        "command": c.command,
        "args": c.args,
        "cwd": c.cwd,
        "env": c.env,
        "envFile": c.env_file,
        "url": c.url,
        "headers": c.headers,
        "transport": c.transport,
        "type": c.kind,
    });
    // What the file holds runs as much as `env` does: an edit to it (adding `LD_PRELOAD`) asks
    // again. Each value is kept as a fingerprint, so a kept definition holds no secret of it.
    if let Some(read) = env_file::entries_of(c) {
        value["envFileEntries"] = match read {
            Ok(entries) => entries
                .into_iter()
                .map(|(name, v)| (name, Value::String(fingerprint(&v))))
                .collect(),
            Err(_) => Value::String(UNREADABLE.into()),
        };
    }
    // Left out when unset, so definitions trusted before they counted keep their digest.
    for (key, field) in reach_settings(c) {
        if !field.is_null() {
            value[key] = field;
        }
    }
    // The sandbox is what the server may reach, so it is part of what is trusted. The default
    // (on, default profile) is left out, so definitions trusted before it existed keep their digest.
    if let Some(sandbox) = c
        .sandbox
        .as_ref()
        .filter(|s| **s != SandboxSetting::Enabled(true))
    {
        value["sandbox"] = serde_json::to_value(sandbox).unwrap_or(Value::Null);
    }
    // A container held by its container, not by Switchboard's box: trusted as that, apart from
    // the same line run in the box (and a definition trusted when it was boxed asks again).
    if SandboxState::unnamed_container(c).is_some() {
        value["box"] = json!("container");
    }
    value
}

/// Whether `url` is plain `http://` to a host that is not this computer's loopback.
pub fn is_plain_http(url: &str) -> bool {
    let Ok(url) = url::Url::parse(url) else {
        return false;
    };
    url.scheme() == "http" && !switchboard_protocol::auth::loopback::is_loopback_host(&url)
}

/// What the trust dialog says of an env file that cannot be read (the server will not start).
const UNREADABLE: &str = "(cannot be read)";

/// The settings that widen what a server may reach, or make Switchboard do for it, by the key
/// they are trusted under.
fn reach_settings(c: &ServerConfig) -> [(&'static str, Value); 5] {
    let value = |v: Result<Value, _>| v.unwrap_or(Value::Null);
    let models = (!c.sampling_models.is_empty()).then(|| json!(c.sampling_models));
    [
        ("roots", value(serde_json::to_value(c.trusted_roots()))),
        ("sampling", value(serde_json::to_value(c.sampling))),
        ("samplingModels", models.unwrap_or(Value::Null)),
        ("maxMessageBytes", json!(c.max_message_bytes)),
        ("oauth", c.oauth.as_ref().map_or(Value::Null, oauth_value)),
    ]
}

/// The `oauth` fields that may hold a credential itself rather than a reference to one.
const OAUTH_CREDENTIALS: [&str; 3] = ["clientSecret", "privateKey", "assertion"];

/// `o` as trusted: a credential written into the config itself (not a `${secret:…}` or
/// `${env:…}` reference) is kept as a fingerprint, so the trust records hold no secret.
fn oauth_value(o: &crate::config::OAuthClient) -> Value {
    let mut value = serde_json::to_value(o).unwrap_or(Value::Null);
    for key in OAUTH_CREDENTIALS {
        if let Some(Value::String(v)) = value.get_mut(key)
            && !is_reference(v)
        {
            *v = fingerprint(v);
        }
    }
    value
}

/// Whether `v` is one `${secret:…}` or `${env:…}` reference and nothing else.
fn is_reference(v: &str) -> bool {
    let inner = v.strip_prefix("${").and_then(|r| r.strip_suffix('}'));
    inner.is_some_and(|i| {
        (i.starts_with("secret:") || i.starts_with("env:")) && !i.contains(['{', '}'])
    })
}

/// A credential as the dialog shows it: a reference as written, a credential itself masked.
fn credential(v: &str) -> String {
    if is_reference(v) {
        quoted(v)
    } else {
        format!("(written in the config, {} characters)", v.chars().count())
    }
}

/// A short fingerprint of a value: enough to tell that it changed, nothing to read it back by.
fn fingerprint(value: &str) -> String {
    use sha2::Digest;
    let hash = sha2::Sha256::digest(value.as_bytes());
    let hex: String = hash[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// The env file's variables as the dialog shows them: a value whose name looks secret is masked
/// (its length shown), every other value shown with hidden characters revealed.
fn env_file_settings(
    read: std::result::Result<Vec<(String, String)>, String>,
) -> Vec<LaunchSetting> {
    let Ok(entries) = read else {
        return vec![LaunchSetting {
            name: UNREADABLE.into(),
            value: String::new(),
        }];
    };
    entries
        .into_iter()
        .map(|(name, value)| LaunchSetting {
            value: if crate::config::import::looks_secret(&name) {
                format!("(secret, {} characters)", value.chars().count())
            } else {
                reveal(&value).into_owned()
            },
            name: reveal(&name).into_owned(),
        })
        .collect()
}

/// The reach settings that are set, as the dialog shows them.
fn reach_lines(c: &ServerConfig) -> Vec<LaunchSetting> {
    let mut lines = Vec::new();
    let mut add = |name: &str, value: String| {
        lines.push(LaunchSetting {
            name: name.into(),
            value: reveal(&value).into_owned(),
        })
    };
    if let Some(roots) = c.trusted_roots() {
        let shown: Vec<String> = roots.iter().map(|r| quoted(&r.to_string_lossy())).collect();
        add(
            if c.roots.is_some() {
                "Roots"
            } else {
                "Roots (the global ones)"
            },
            if shown.is_empty() {
                "(none)".into()
            } else {
                shown.join(", ")
            },
        );
    }
    if let Some(s) = &c.sampling {
        add(
            "Sampling limits",
            format!(
                "{} requests a minute, {} tokens a request, {} tokens a day",
                s.requests_per_minute, s.max_tokens, s.tokens_per_day
            ),
        );
    }
    if !c.sampling_models.is_empty() {
        let shown: Vec<String> = c.sampling_models.iter().map(|m| quoted(m)).collect();
        add("Sampling only on", shown.join(", "));
    }
    if let Some(bytes) = c.max_message_bytes {
        add("Largest message", format!("{bytes} bytes"));
    }
    if let Some(o) = &c.oauth {
        let parts = [
            o.client_id
                .as_ref()
                .map(|id| format!("client id {}", quoted(id))),
            o.client_secret
                .as_ref()
                .map(|s| format!("client secret {}", credential(s))),
            o.client_metadata_url
                .as_ref()
                .map(|u| format!("client metadata {}", quoted(u))),
            (o.grant != OAuthGrant::AuthorizationCode)
                .then(|| format!("signs in with no person present ({})", grant_name(o.grant))),
            o.private_key
                .as_ref()
                .map(|k| format!("private key {}", credential(k))),
            o.signing_algorithm
                .as_ref()
                .map(|a| format!("signed with {}", quoted(a))),
            o.assertion
                .as_ref()
                .map(|a| format!("token {}", credential(a))),
            o.assertion_file
                .as_ref()
                .map(|f| format!("workload token file {}", quoted(f))),
            o.idp_issuer
                .as_ref()
                .map(|i| format!("identity provider {}", quoted(i))),
            o.idp_token_endpoint
                .as_ref()
                .map(|t| format!("its token endpoint {}", quoted(t))),
            o.idp_client_id
                .as_ref()
                .map(|c| format!("client id there {}", quoted(c))),
            o.scope.as_ref().map(|s| format!("scopes {}", quoted(s))),
            o.dpop
                .then(|| "tokens bound to a key in the keychain (DPoP)".to_owned()),
        ];
        add(
            "Sign-in client",
            parts.into_iter().flatten().collect::<Vec<_>>().join(", "),
        );
    }
    lines
}

/// How a local server's sandbox stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum SandboxState {
    /// It runs in the OS sandbox.
    Sandboxed,
    /// The user turned the sandbox off for it.
    Off,
    /// It was trusted before servers ran in a sandbox and runs as it did, until sandboxed.
    TrustedBefore,
    /// A container engine runs it (`docker run`, `podman run`): the container is its box.
    /// Switchboard's box cannot hold an engine's client (it needs the engine's socket, or
    /// mounts of its own), so it is not applied unless the definition asks for it by name.
    Container,
    /// A remote server: nothing runs here.
    Remote,
}

impl SandboxState {
    /// [`SandboxState::Container`] for a container run whose definition does not ask for
    /// Switchboard's box by name.
    fn unnamed_container(config: &ServerConfig) -> Option<Self> {
        let box_named = matches!(
            config.sandbox,
            Some(SandboxSetting::Enabled(true) | SandboxSetting::Profile(_))
        );
        (config.runs_a_container() && !box_named).then_some(SandboxState::Container)
    }
}

/// The sandbox as the trust dialog shows it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct SandboxReview {
    pub state: SandboxState,
    /// Paths it may read beyond the defaults.
    pub read: Vec<String>,
    /// Paths it may write beyond the defaults.
    pub write: Vec<String>,
    /// Roots it may only read.
    pub read_only_roots: Vec<String>,
    /// `any host`, `none`, or the hosts it may reach.
    pub network: String,
}

/// How a server's current definition stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
#[ts(export)]
pub enum TrustVerdict {
    /// Trusted, and what this name last ran (or the name is new to a trusted definition).
    Trusted,
    /// Never trusted.
    New,
    /// This name ran another definition before; trusting this one resets its rules and pins.
    Changed,
}

/// One name and value of a definition's `env` or `headers`, as written (secret references, not
/// secrets), hidden characters revealed.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[ts(export)]
pub struct LaunchSetting {
    pub name: String,
    pub value: String,
}

/// Where a definition says it came from, in one line.
fn installed_from(from: &crate::config::InstalledFrom) -> String {
    let place = if from.bundle.is_some() {
        "bundle"
    } else {
        "registry"
    };
    let mut text = format!(
        "{} {} from the {place} {}",
        from.name, from.version, from.registry
    );
    if let Some(repository) = &from.repository {
        text.push_str(&format!(" (source: {repository})"));
    }
    if let Some(signature) = &from.signature {
        text.push_str(&format!("; {signature}"));
    }
    text
}

/// Exactly what trusting a server lets run: shown in the native dialog and by `switchboard-cli
/// trust`, and bound by its digest, so only what was shown gets trusted.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct LaunchReview {
    pub server: String,
    pub digest: String,
    pub verdict: TrustVerdict,
    pub command: Option<String>,
    pub args: Vec<String>,
    pub cwd: Option<String>,
    pub env: Vec<LaunchSetting>,
    pub env_file: Option<String>,
    /// What the env file holds: values whose names look secret masked.
    pub env_file_entries: Vec<LaunchSetting>,
    pub url: Option<String>,
    pub headers: Vec<LaunchSetting>,
    /// `stdio`, or the remote transport (`auto`, `streamable-http`, `sse`).
    pub transport: String,
    /// Whether any field held hidden characters (now shown as `⟨U+…⟩`).
    pub hidden_characters: bool,
    /// A remote server over plain `http://` to a host that is not this computer: whoever is on
    /// the way can read and change what is sent, sign-in tokens included.
    pub plain_http: bool,
    /// For a changed definition: each field that differs from what this name last ran, when
    /// that definition is known.
    pub changes: Vec<FieldChange>,
    /// What the local server's sandbox lets it reach.
    pub sandbox: SandboxReview,
    /// The settings that widen what it may reach or make Switchboard do for it (roots, sampling
    /// limits, largest message, sign-in client), where set.
    pub settings: Vec<LaunchSetting>,
    /// Where the definition says it was installed from (registry, name, version, repository):
    /// the config file's claim, shown so the person can weigh it.
    pub installed_from: Option<String>,
}

impl LaunchReview {
    /// The review of server `server` defined by `config`, judged by `trust`.
    pub fn of(server: &str, config: &ServerConfig, trust: &Trust) -> Self {
        let shown = |s: &str| reveal(s).into_owned();
        let settings = |map: &indexmap::IndexMap<String, String>| {
            map.iter()
                .map(|(k, v)| LaunchSetting {
                    name: shown(k),
                    value: shown(v),
                })
                .collect()
        };
        let path = |p: &Option<std::path::PathBuf>| p.as_ref().map(|p| shown(&p.to_string_lossy()));
        let transport = match (&config.command, config.kind.as_deref()) {
            (Some(_), _) => "stdio".to_owned(),
            (None, Some(kind)) => shown(kind),
            (None, None) => serde_json::to_value(config.transport)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
        };
        // The env file read once: the digest, the verdict, the variables shown, the hidden
        // characters and the changes are all of the same reading.
        let config = &env_file::read_once(config);
        let value = launch_value(config);
        Self {
            server: shown(server),
            digest: crate::canonical::digest(&value),
            verdict: trust.verdict(server, config),
            command: config.command.as_deref().map(shown),
            args: config.args.iter().map(|a| shown(a)).collect(),
            cwd: path(&config.cwd),
            env: settings(&config.env),
            env_file: path(&config.env_file),
            env_file_entries: env_file::entries_of(config)
                .map(env_file_settings)
                .unwrap_or_default(),
            url: config.url.as_deref().map(shown),
            headers: settings(&config.headers),
            transport,
            plain_http: config.url.as_deref().is_some_and(is_plain_http),
            hidden_characters: crate::visible::json_has_hidden(&value)
                || crate::visible::has_hidden(server),
            changes: trust
                .last_ran(server)
                .map(|before| pins::changes(&before, &value))
                .unwrap_or_default(),
            sandbox: SandboxReview::of(server, config, trust),
            settings: reach_lines(config),
            installed_from: config
                .installed_from
                .as_ref()
                .map(|f| shown(&installed_from(f))),
        }
    }

    /// The review as plain text, one field per line, arguments quoted as a shell would need.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let mut line = |label: &str, value: &str| {
            // A value that starts on its own line (the arguments) takes no space after the colon.
            let gap = if value.starts_with(['\n', ' ']) {
                ""
            } else {
                " "
            };
            out.push_str(&format!("{label}:{gap}{value}\n"))
        };
        // Every value in quotes, its control characters escaped: none can fake a line of its own.
        line("Server", &quoted(&self.server));
        if let Some(from) = &self.installed_from {
            line("Installed from", &quoted(from));
        }
        line("Transport", &quoted(&self.transport));
        if let Some(command) = &self.command {
            line("Command", &quoted(command));
            // One per line, quoted, so where each begins and ends can be checked.
            let args: Vec<String> = self
                .args
                .iter()
                .enumerate()
                .map(|(i, arg)| format!("\n  {}. {}", i + 1, quoted(arg)))
                .collect();
            line(
                "Arguments",
                &if args.is_empty() {
                    " (none)".into()
                } else {
                    args.concat()
                },
            );
        }
        if let Some(url) = &self.url {
            line("URL", &quoted(url));
        }
        if let Some(cwd) = &self.cwd {
            line("Working directory", &quoted(cwd));
        }
        if let Some(file) = &self.env_file {
            line("Environment file", &quoted(file));
            for s in &self.env_file_entries {
                out.push_str(&setting_line(s, self.env_file_masked(s)));
            }
        }
        for (label, settings) in [("Environment", &self.env), ("Headers", &self.headers)] {
            if !settings.is_empty() {
                out.push_str(&format!("{label}:\n"));
                for s in settings {
                    out.push_str(&setting_line(s, false));
                }
            }
        }
        for s in &self.settings {
            out.push_str(&format!("{}: {}\n", s.name, s.value));
        }
        out.push_str(&self.sandbox.text());
        if self.plain_http {
            out.push_str(
                "\nWARNING: plain http:// to another computer. Anyone on the way can read and \
                 change what is sent, sign-in tokens included.\n",
            );
        }
        if self.hidden_characters {
            out.push_str(
                "\nWARNING: this definition contains hidden characters, shown as ⟨U+…⟩.\n",
            );
        }
        if self.resets_rules() {
            out.push_str(
                "\nThis server ran a different definition before. Trusting this one resets its \
                 standing rules and pinned tools.\n",
            );
        } else if self.verdict == TrustVerdict::Changed {
            out.push_str(
                "\nThis server ran this definition before with other roots. Its standing rules \
                 and pinned tools are kept.\n",
            );
        }
        if self.verdict == TrustVerdict::Changed && !self.changes.is_empty() {
            out.push_str("\nWhat changed since you trusted it:\n");
            for change in &self.changes {
                out.push_str(&change_text(change));
            }
        }
        out
    }
}

/// New global roots, shown once for every trusted local server that inherits them: what each of
/// them could read and write from then on. Trusting it trusts each of their definitions with
/// these roots, the rest of each as it was trusted.
#[derive(Debug, Clone, PartialEq)]
pub struct RootsReview {
    /// The servers that would run with them, hidden characters revealed, each with whether it
    /// runs in the OS sandbox (one that does not can reach every file of yours anyway).
    pub servers: Vec<(String, bool)>,
    /// The new global roots, hidden characters revealed.
    pub roots: Vec<String>,
}

impl RootsReview {
    /// The review of `roots` for `servers` (each name with whether it is sandboxed).
    pub fn of(servers: &[(String, bool)], roots: &[std::path::PathBuf]) -> Self {
        Self {
            servers: servers
                .iter()
                .map(|(s, boxed)| (reveal(s).into_owned(), *boxed))
                .collect(),
            roots: roots
                .iter()
                .map(|r| reveal(&r.to_string_lossy()).into_owned())
                .collect(),
        }
    }

    /// The review as plain text, every value quoted.
    pub fn text(&self) -> String {
        let roots: String = if self.roots.is_empty() {
            "  (none)\n".to_owned()
        } else {
            self.roots
                .iter()
                .map(|r| format!("  {}\n", quoted(r)))
                .collect()
        };
        let servers: String = self
            .servers
            .iter()
            .map(|(s, boxed)| {
                let note = if *boxed {
                    ""
                } else {
                    " (not sandboxed: it can reach all your files anyway)"
                };
                format!("  {}{note}\n", quoted(s))
            })
            .collect();
        format!(
            "These servers use the global roots. Besides the system and their own files, their \
             sandbox would let them read and write these folders:\n{roots}\nServers:\n{servers}"
        )
    }
}

impl LaunchReview {
    /// Whether trusting it resets the name's standing rules and pinned tools: the name ran
    /// another definition before, and not one that differed in its roots alone (the same
    /// program given other folders keeps what the person decided about its tools).
    pub fn resets_rules(&self) -> bool {
        let roots_only = !self.changes.is_empty()
            && self
                .changes
                .iter()
                .all(|c| c.path == "/roots" || c.path.starts_with("/roots/"));
        self.verdict == TrustVerdict::Changed && !roots_only
    }

    /// Whether the dialog masked this env-file value (its text is ours, not the file's): decided
    /// by the name, as `env_file_settings` decides, never by the value's text.
    fn env_file_masked(&self, s: &LaunchSetting) -> bool {
        crate::config::import::looks_secret(&s.name)
    }
}

/// `  NAME="value"`: the name bare when it is a plain identifier, quoted otherwise, the value
/// quoted unless it is the dialog's own words (a masked secret).
fn setting_line(s: &LaunchSetting, ours: bool) -> String {
    let plain = |n: &str| {
        !n.is_empty()
            && n.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    };
    let name = if plain(&s.name) {
        s.name.clone()
    } else {
        quoted(&s.name)
    };
    let value = if ours {
        s.value.clone()
    } else {
        quoted(&s.value)
    };
    format!("  {name}={value}\n")
}

impl SandboxReview {
    fn of(server: &str, config: &ServerConfig, trust: &Trust) -> Self {
        let state = trust.sandbox_state(server, config);
        let profile = profile_of(config);
        let shown = |paths: &[std::path::PathBuf]| {
            paths
                .iter()
                .map(|p| reveal(&p.to_string_lossy()).into_owned())
                .collect()
        };
        let network = match &profile.network {
            NetworkSetting::Enabled(true) => "any host".to_owned(),
            NetworkSetting::Enabled(false) => "none".to_owned(),
            NetworkSetting::Hosts(hosts) => hosts
                .iter()
                .map(|h| quoted(h))
                .collect::<Vec<_>>()
                .join(", "),
        };
        Self {
            state,
            read: shown(&profile.read),
            write: shown(&profile.write),
            read_only_roots: shown(&profile.read_only_roots),
            network,
        }
    }

    /// The sandbox as lines of the review's text.
    fn text(&self) -> String {
        let mut out = match self.state {
            SandboxState::Remote => return String::new(),
            SandboxState::Off => {
                return "Sandbox: OFF. It runs with all of your rights: it can read and write \
                        whatever you can, and reach any host.\n"
                    .to_owned();
            }
            SandboxState::TrustedBefore => {
                return "Sandbox: not sandboxed (trusted before sandboxing existed). It runs with \
                        all of your rights.\n"
                    .to_owned();
            }
            SandboxState::Container => {
                return "Sandbox: its container. It sees only what the command line above gives \
                        it (folders with -v or --mount, variables with -e, the network); \
                        Switchboard's own box cannot hold a container engine's client.\n"
                    .to_owned();
            }
            SandboxState::Sandboxed => "Sandbox: on. It may read the system, its program and its \
                runtime, and write its roots and its own state and temp folders; nothing else \
                of your files.\n"
                .to_owned(),
        };
        for (label, paths) in [
            ("Also reads", &self.read),
            ("Also writes", &self.write),
            ("Only reads these roots", &self.read_only_roots),
        ] {
            if !paths.is_empty() {
                let paths: Vec<String> = paths.iter().map(|p| quoted(p)).collect();
                out.push_str(&format!("  {label}: {}\n", paths.join(", ")));
            }
        }
        out.push_str(&format!("  Network: {}\n", self.network));
        out
    }
}

/// The profile `config` asks for when it is sandboxed (the default when it names none).
fn profile_of(config: &ServerConfig) -> SandboxProfile {
    config
        .sandbox
        .as_ref()
        .and_then(SandboxSetting::profile)
        .unwrap_or_default()
}

/// `s` in double quotes, with hidden characters shown and quotes and backslashes escaped.
fn quoted(s: &str) -> String {
    serde_json::to_string(&reveal(s)).unwrap_or_default()
}

/// One changed field as two lines: what it was and what it is now.
fn change_text(change: &FieldChange) -> String {
    // Each step of the path quoted: a key with a line break in it cannot fake a line.
    let field = change
        .path
        .trim_start_matches('/')
        .split('/')
        .map(quoted)
        .collect::<Vec<_>>()
        .join(" › ");
    let shown = |v: &Option<Value>| match v {
        None | Some(Value::Null) => "(not set)".to_owned(),
        Some(Value::String(s)) => quoted(s),
        Some(Value::Array(items)) if items.iter().all(Value::is_string) => items
            .iter()
            .filter_map(Value::as_str)
            .map(quoted)
            .collect::<Vec<_>>()
            .join(", "),
        Some(other) => reveal(&other.to_string()).into_owned(),
    };
    format!(
        "  {field}\n    was: {}\n    now: {}\n",
        shown(&change.before),
        shown(&change.after)
    )
}

/// Every definition trusted, every name's last run and every launch trusted before sandboxing.
fn read_book(c: &mut rusqlite::Connection) -> rusqlite::Result<Book> {
    let mut book = Book::default();
    let mut q = c.prepare("SELECT digest FROM trusted_launches")?;
    for d in q.query_map([], |r| r.get::<_, String>(0))? {
        book.trusted.insert(d?);
    }
    let mut q = c.prepare("SELECT server, digest FROM server_launches")?;
    for row in q.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))? {
        let (server, digest) = row?;
        book.bound.insert(server, digest);
    }
    let mut q = c.prepare("SELECT server, digest FROM unsandboxed_launches")?;
    for row in q.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))? {
        let (server, digest) = row?;
        book.unsandboxed.insert(server, digest);
    }
    let mut q = c.prepare("SELECT digest, definition FROM launch_definitions")?;
    for row in q.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))? {
        let (digest, text) = row?;
        if let Ok(definition) = serde_json::from_str(&text) {
            book.definitions.insert(digest, definition);
        }
    }
    Ok(book)
}

/// The trusted definitions and what each name last ran; cheap to clone. Reads are answered from
/// memory (the supervisor asks before every connect); grants are written through to SQLite.
#[derive(Clone)]
pub struct Trust(Arc<State>);

struct State {
    store: Option<Arc<Store>>,
    /// Every definition runs (tests and embedders whose definitions come from code).
    everything: bool,
    /// Read from the store at the first question (or at once, with [`Trust::load`]).
    book: OnceLock<Result<RwLock<Book>>>,
    /// Counts the changes to what is trusted, so that a server left waiting for trust is judged
    /// again after one (a grant made while it was being judged included).
    changes: tokio::sync::watch::Sender<u64>,
}

#[derive(Default)]
struct Book {
    trusted: HashSet<String>,
    bound: HashMap<String, String>,
    /// Trusted definitions by digest, where they were kept.
    definitions: HashMap<String, Value>,
    /// Names trusted before sandboxing, with the definition they ran then.
    unsandboxed: HashMap<String, String>,
}

impl Trust {
    /// The trust kept in `store` (blocking: call off the runtime).
    pub fn load(store: Arc<Store>) -> Result<Self> {
        let trust = Self::load_when_used(store);
        trust.ready()?;
        Ok(trust)
    }

    /// The trust kept in `store`, read at the first question asked of it (which then waits for
    /// the store: the CLI, whose commands mostly ask none). [`Trust::ready`] reads it and says
    /// why it could not.
    pub fn load_when_used(store: Arc<Store>) -> Self {
        Self(Arc::new(State {
            store: Some(store),
            everything: false,
            book: OnceLock::new(),
            changes: tokio::sync::watch::Sender::new(0),
        }))
    }

    /// Reads the book if it was not read yet (blocking), or the error that kept it unread.
    pub fn ready(&self) -> Result<()> {
        self.shelf().map(|_| ())
    }

    fn shelf(&self) -> Result<&RwLock<Book>> {
        self.0
            .book
            .get_or_init(|| match &self.0.store {
                Some(store) => store.with(read_book).map(RwLock::new),
                None => Ok(RwLock::default()),
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    fn read(&self) -> Option<std::sync::RwLockReadGuard<'_, Book>> {
        self.shelf().ok()?.read().ok()
    }

    /// Trust that lets every definition run: only for hosts whose definitions come from code
    /// rather than a file (tests of other parts, embedders).
    pub fn everything() -> Self {
        Self(Arc::new(State {
            store: None,
            everything: true,
            book: OnceLock::new(),
            changes: tokio::sync::watch::Sender::new(0),
        }))
    }

    /// Told of every change to what is trusted or to what a name is bound to.
    pub fn changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.0.changes.subscribe()
    }

    fn changed(&self) {
        self.0.changes.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// How server `server`'s definition `config` stands.
    pub fn verdict(&self, server: &str, config: &ServerConfig) -> TrustVerdict {
        if self.0.everything {
            return TrustVerdict::Trusted;
        }
        let digest = launch_digest(config);
        let Some(book) = self.read() else {
            return TrustVerdict::New;
        };
        match book.bound.get(server) {
            Some(bound) if *bound != digest => TrustVerdict::Changed,
            _ if book.trusted.contains(&digest) => TrustVerdict::Trusted,
            _ => TrustVerdict::New,
        }
    }

    /// The sandbox profile `server` runs with; `None` when it runs unsandboxed (turned off, or
    /// trusted before sandboxing and not sandboxed since). Remote servers have none.
    pub fn sandbox(&self, server: &str, config: &ServerConfig) -> Option<SandboxProfile> {
        (self.sandbox_state(server, config) == SandboxState::Sandboxed).then(|| profile_of(config))
    }

    /// How `server`'s sandbox stands.
    pub fn sandbox_state(&self, server: &str, config: &ServerConfig) -> SandboxState {
        if config.command.is_none() {
            return SandboxState::Remote;
        }
        if let Some(state) = SandboxState::unnamed_container(config) {
            return state;
        }
        match &config.sandbox {
            Some(SandboxSetting::Enabled(false)) => SandboxState::Off,
            Some(_) => SandboxState::Sandboxed,
            None => {
                let legacy = self
                    .read()
                    .is_some_and(|b| b.unsandboxed.get(server) == Some(&launch_digest(config)));
                if legacy {
                    SandboxState::TrustedBefore
                } else {
                    SandboxState::Sandboxed
                }
            }
        }
    }

    /// Whether `config` may run as `server` now; a trusted definition under a name that has not
    /// run one yet (new, or renamed by hand) is bound to it.
    pub fn admit(&self, server: &str, config: &ServerConfig) -> bool {
        if self.verdict(server, config) != TrustVerdict::Trusted {
            return false;
        }
        if !self.0.everything {
            let digest = launch_digest(config);
            let fresh = self
                .book()
                .map(|mut b| b.bound.insert(server.to_owned(), digest.clone()).is_none())
                .unwrap_or(false);
            if fresh {
                let server = server.to_owned();
                self.write(move |c| bind(c, &server, &digest));
            }
            self.keep(config);
        }
        true
    }

    /// The definition `server` last ran, if it was kept.
    pub fn last_ran(&self, server: &str) -> Option<Value> {
        let book = self.read()?;
        book.definitions.get(book.bound.get(server)?).cloned()
    }

    /// Keeps a trusted definition, to compare a later change with.
    fn keep(&self, config: &ServerConfig) {
        let (digest, definition) = (launch_digest(config), launch_value(config));
        let fresh = self
            .book()
            .map(|mut b| {
                b.definitions
                    .insert(digest.clone(), definition.clone())
                    .is_none()
            })
            .unwrap_or(false);
        if fresh {
            let text = definition.to_string();
            self.write(move |c| {
                c.execute(
                    "INSERT OR IGNORE INTO launch_definitions (digest, definition) VALUES (?1, ?2)",
                    params![digest, text],
                )
                .map(|_| ())
            });
        }
    }

    /// The refusal for a server whose definition is not trusted, with how to trust it.
    pub fn refusal(&self, server: &str, config: &ServerConfig) -> Error {
        let why = match self.verdict(server, config) {
            TrustVerdict::Changed => "its definition changed since you trusted it",
            _ => "its definition is new",
        };
        Error::new(
            ErrorCode::NotTrusted,
            format!(
                "server {server:?} is not trusted yet: {why}. Review what it runs and trust it in \
                 the app, or with: switchboard-cli trust {}",
                shell_words::quote(server)
            ),
        )
    }

    /// Trusts definition `config` as what `server` runs (blocking: call off the runtime).
    pub fn grant(&self, server: &str, config: &ServerConfig) -> Result<()> {
        let value = launch_value(config);
        let (digest, text) = (crate::canonical::digest(&value), value.to_string());
        if let Some(store) = &self.0.store {
            store.with(|c| {
                c.execute(
                    "INSERT OR IGNORE INTO trusted_launches (digest, trusted_at) VALUES (?1, ?2)",
                    params![digest, now_ms()],
                )?;
                c.execute(
                    "INSERT OR IGNORE INTO launch_definitions (digest, definition) VALUES (?1, ?2)",
                    params![digest, text],
                )?;
                bind(c, server, &digest)
            })?;
        }
        let mut book = self.book()?;
        book.trusted.insert(digest.clone());
        book.bound.insert(server.to_owned(), digest.clone());
        book.definitions.insert(digest, value);
        drop(book);
        self.changed();
        Ok(())
    }

    /// `from` was renamed `to`: the binding follows (blocking: call off the runtime).
    pub fn rename(&self, from: &str, to: &str) -> Result<()> {
        let digest = self.book()?.bound.remove(from);
        let legacy = self.book()?.unsandboxed.remove(from);
        if let Some(d) = &legacy {
            self.book()?.unsandboxed.insert(to.to_owned(), d.clone());
        }
        if let Some(store) = &self.0.store {
            let (from, to) = (from.to_owned(), to.to_owned());
            store.with(|c| {
                c.execute(
                    "UPDATE unsandboxed_launches SET server = ?2 WHERE server = ?1",
                    params![from, to],
                )?;
                c.execute(
                    "DELETE FROM server_launches WHERE server = ?1",
                    params![from],
                )?;
                match &digest {
                    Some(d) => bind(c, &to, d),
                    None => Ok(()),
                }
            })?;
        }
        if let Some(d) = digest {
            self.book()?.bound.insert(to.to_owned(), d);
        }
        self.changed();
        Ok(())
    }

    /// `server` is sandboxed from now on, whatever it ran before (blocking: call off the runtime).
    pub fn forget_unsandboxed(&self, server: &str) -> Result<()> {
        self.book()?.unsandboxed.remove(server);
        if let Some(store) = &self.0.store {
            let server = server.to_owned();
            store.with(move |c| {
                c.execute(
                    "DELETE FROM unsandboxed_launches WHERE server = ?1",
                    params![server],
                )
                .map(drop)
            })?;
        }
        Ok(())
    }

    /// `server` was removed: its binding goes, and so does its definition's trust unless a
    /// server in `still_configured` has the same definition (blocking: call off the runtime).
    pub fn forget(&self, server: &str, still_configured: &[&ServerConfig]) -> Result<()> {
        let digest = self.book()?.bound.remove(server);
        self.book()?.unsandboxed.remove(server);
        let revoke = digest.filter(|d| !still_configured.iter().any(|c| launch_digest(c) == *d));
        if let Some(store) = &self.0.store {
            let revoked = revoke.clone();
            store.with(|c| {
                c.execute(
                    "DELETE FROM server_launches WHERE server = ?1",
                    params![server],
                )?;
                c.execute(
                    "DELETE FROM unsandboxed_launches WHERE server = ?1",
                    params![server],
                )?;
                if let Some(d) = revoked {
                    c.execute("DELETE FROM trusted_launches WHERE digest = ?1", params![d])?;
                }
                Ok(())
            })?;
        }
        if let Some(d) = revoke {
            self.book()?.trusted.remove(&d);
        }
        self.changed();
        Ok(())
    }

    fn book(&self) -> Result<std::sync::RwLockWriteGuard<'_, Book>> {
        self.shelf()?
            .write()
            .map_err(|_| Error::new(ErrorCode::Internal, "trust lock poisoned"))
    }

    /// Writes in the background (the caller is on the runtime); memory is already updated.
    fn write(
        &self,
        f: impl FnOnce(&mut rusqlite::Connection) -> rusqlite::Result<()> + Send + 'static,
    ) {
        if let Some(store) = &self.0.store {
            store.detach(f);
        }
    }
}

fn grant_name(grant: OAuthGrant) -> &'static str {
    match grant {
        OAuthGrant::AuthorizationCode => "authorization code",
        OAuthGrant::ClientCredentials => "client credentials",
        OAuthGrant::JwtBearer => "workload identity",
        OAuthGrant::EnterpriseManaged => "enterprise-managed",
    }
}

fn bind(c: &rusqlite::Connection, server: &str, digest: &str) -> rusqlite::Result<()> {
    c.execute(
        "INSERT INTO server_launches (server, digest) VALUES (?1, ?2)
         ON CONFLICT (server) DO UPDATE SET digest = excluded.digest",
        params![server, digest],
    )
    .map(drop)
}

#[cfg(test)]
mod tests;
