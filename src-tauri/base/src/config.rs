//! The configuration file: the familiar `mcpServers` map (so people can paste from other hosts),
//! typed server definitions with per-server settings, global roots, and validation whose errors
//! name the file, the server and the field. Unknown keys are kept so nothing a user wrote is lost.

pub mod import;

use std::path::{Path, PathBuf};
use std::time::Duration;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use ts_rs::TS;

use crate::error::{Error, ErrorCode, Result};

/// Default request timeout (the spec leaves it to the client; 60 s matches the TypeScript SDK).
pub const DEFAULT_REQUEST_TIMEOUT_SECS: u64 = 60;
/// Default cap on one inbound message.
pub const DEFAULT_MAX_MESSAGE_BYTES: u64 = 16 * 1024 * 1024;
/// Default ceiling on a request's total time, however much progress the server reports.
pub const DEFAULT_MAX_TOTAL_SECS: u64 = 600;

/// The whole configuration file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Config {
    /// Servers by name, in the order the user wrote them.
    #[serde(default)]
    pub mcp_servers: IndexMap<String, ServerConfig>,
    /// Roots every server sees unless it sets its own.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roots: Vec<PathBuf>,
    /// How many days audit rows are kept (default 0: for ever).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit_retention_days: Option<u32>,
    /// The registries the gallery lists servers from (base URLs), the first being the default;
    /// when empty, the official MCP Registry.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub registries: Vec<String>,
    /// Above how many tools a chat's model searches the tools instead of being offered them all
    /// (default 40).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_search_above: Option<usize>,
    /// Above what share of the model's context window (percent) the tool definitions are
    /// flagged (default 10).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_tokens_warn_percent: Option<u8>,
    /// How much of each server's traffic is kept in memory (absent: the defaults).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traffic: Option<TrafficConfig>,
    /// Keys Switchboard does not know, kept as they were.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: Map<String, Value>,
    /// Server entries that are not valid, by name: run by nobody, shown with why, and saved
    /// back as they were written, so one bad entry costs no other server and nothing is lost.
    #[serde(skip)]
    #[ts(skip)]
    pub invalid_servers: IndexMap<String, InvalidServer>,
}

/// A server entry of the file that is not valid, as it was written.
#[derive(Debug, Clone, PartialEq)]
pub struct InvalidServer {
    /// The entry as written.
    pub written: Value,
    /// Why it is not valid: a sentence naming the file, the server and the field.
    pub problem: Error,
}

/// The bounds of each server's traffic ring, each absent one at its default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct TrafficConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_messages: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_message_bytes: Option<u32>,
}

/// Audit rows are kept this many days unless the configuration says otherwise: 0, for ever
/// (an audit log that empties itself without being asked would surprise its reader).
pub const DEFAULT_AUDIT_RETENTION_DAYS: u32 = 0;

/// How a remote server is reached.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
#[ts(export)]
pub enum RemoteTransport {
    /// Streamable HTTP, falling back to legacy HTTP+SSE when the server rejects the first POST.
    #[default]
    Auto,
    /// Streamable HTTP only (2025-03-26 and later).
    StreamableHttp,
    /// The legacy HTTP+SSE transport of 2024-11-05.
    Sse,
}

/// One reading of a server's env file: its variables in order, or why it could not be read
/// (never quoting a value). Its `Debug` names the variables only.
#[derive(Clone)]
pub struct EnvFileRead(pub std::sync::Arc<std::result::Result<Vec<(String, String)>, String>>);

/// A reading is not part of the definition: two definitions are the same whatever was read.
impl PartialEq for EnvFileRead {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for EnvFileRead {}

impl std::fmt::Debug for EnvFileRead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &*self.0 {
            Ok(entries) => f
                .debug_list()
                .entries(entries.iter().map(|(name, _)| name))
                .finish(),
            Err(why) => write!(f, "unreadable: {why}"),
        }
    }
}

/// The global roots a server without roots of its own gets, as they were when its definition was
/// read from the config (see [`Config::settle`]). What a local server's box may write, so part of
/// what is trusted; never saved.
#[derive(Debug, Clone, Default)]
pub struct InheritedRoots(pub Option<Vec<PathBuf>>);

/// Inherited roots are not part of the definition: two definitions are the same whatever global
/// roots they were read with (a change to those is seen through [`Config::roots_for`]).
impl PartialEq for InheritedRoots {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for InheritedRoots {}

/// One configured server: how to reach it plus its settings.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ServerConfig {
    /// Program to run for a stdio server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Arguments for `command`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Extra environment for the child; values may be `${secret:NAME}` or `${env:VAR}` references.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub env: IndexMap<String, String>,
    /// A dotenv-style file whose variables are added to `env` (the config's own `env` wins).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(type = "string | null")]
    pub env_file: Option<PathBuf>,
    /// What `env_file` held when it was read once for one start: the trust check and the spawn
    /// both use this one reading, so the file cannot change between them. Never saved.
    #[serde(skip)]
    #[ts(skip)]
    pub env_file_read: Option<EnvFileRead>,
    /// Working directory for the child.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(type = "string | null")]
    pub cwd: Option<PathBuf>,
    /// URL of a remote server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// HTTP headers for a remote server; values may be secret references.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub headers: IndexMap<String, String>,
    /// Which HTTP transport to use for `url`.
    #[serde(default, skip_serializing_if = "is_default")]
    pub transport: RemoteTransport,
    /// `type` as other hosts write it (`stdio`, `http`, `sse`); kept for round trips.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Disabled servers are kept in the file but not started.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub enabled: bool,
    /// Per-request timeout in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(type = "number | null")]
    pub request_timeout_secs: Option<u64>,
    /// Ceiling on one request's total time in seconds, however much progress the server reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(type = "number | null")]
    pub max_total_secs: Option<u64>,
    /// Largest message accepted from this server, in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(type = "number | null")]
    pub max_message_bytes: Option<u64>,
    /// Limits on this server's sampling requests; defaults apply when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingLimits>,
    /// The only models this server's sampling requests may go to, each `provider/model` or a
    /// model name; empty: any of the user's models.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sampling_models: Vec<String>,
    /// How Switchboard identifies itself when signing in to this remote server; when absent it
    /// registers itself with the authorization server (dynamic client registration).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth: Option<OAuthClient>,
    /// Roots for this server; when absent the global roots apply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(type = "Array<string> | null")]
    pub roots: Option<Vec<PathBuf>>,
    /// The global roots it gets when `roots` is absent. Never saved.
    #[serde(skip)]
    #[ts(skip)]
    pub inherited_roots: InheritedRoots,
    /// The OS box a local server runs in: `false` (not sandboxed), `true` (the default profile),
    /// or a profile. When absent, new servers are sandboxed by default (see docs/sandbox.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxSetting>,
    /// The registry listing this server was installed from (what the config file says: shown in
    /// the trust dialog as a claim, and used to look for newer versions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub installed_from: Option<InstalledFrom>,
    /// Keys Switchboard does not know, kept as they were.
    #[serde(flatten)]
    #[ts(skip)]
    pub extra: Map<String, Value>,
}

/// Where an installed server came from: a registry (or a bundle file), the server's name and
/// version there, and the repository its listing names.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct InstalledFrom {
    /// The registry's base URL.
    pub registry: String,
    /// The server's name in the registry (`namespace/name`).
    pub name: String,
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
    /// For an MCP Bundle: the folder it was unpacked into (removed when it is uninstalled).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(type = "string | null")]
    pub bundle: Option<PathBuf>,
    /// For an MCP Bundle: who signed it when it was installed, or that nobody did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
}

/// A server's `sandbox` setting as written: on or off, or a profile (which is on).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(untagged)]
#[ts(export)]
pub enum SandboxSetting {
    Enabled(bool),
    Profile(SandboxProfile),
}

/// What a sandboxed server may reach beyond the default profile (system files, its program and
/// runtime, its roots, its own state and temp folders).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[ts(export)]
pub struct SandboxProfile {
    /// More paths it may read (and run programs from).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(type = "Array<string>")]
    pub read: Vec<PathBuf>,
    /// More paths it may read and write.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(type = "Array<string>")]
    pub write: Vec<PathBuf>,
    /// Roots it may only read (the others it may also write).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[ts(type = "Array<string>")]
    pub read_only_roots: Vec<PathBuf>,
    /// `true` (the default), `false`, or the only hosts it may reach (through Switchboard's proxy).
    #[serde(default, skip_serializing_if = "NetworkSetting::is_on")]
    pub network: NetworkSetting,
}

/// A sandboxed server's network: on, off, or only these hosts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(untagged)]
#[ts(export)]
pub enum NetworkSetting {
    Enabled(bool),
    Hosts(Vec<String>),
}

impl Default for NetworkSetting {
    fn default() -> Self {
        NetworkSetting::Enabled(true)
    }
}

impl NetworkSetting {
    fn is_on(&self) -> bool {
        *self == NetworkSetting::Enabled(true)
    }
}

impl SandboxSetting {
    /// The profile this setting asks for; `None` when it turns the sandbox off.
    pub fn profile(&self) -> Option<SandboxProfile> {
        match self {
            SandboxSetting::Enabled(false) => None,
            SandboxSetting::Enabled(true) => Some(SandboxProfile::default()),
            SandboxSetting::Profile(p) => Some(p.clone()),
        }
    }
}

/// A server's `oauth` settings: a client registered beforehand with its authorization server, or
/// the https URL of a client ID metadata document that identifies Switchboard.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct OAuthClient {
    /// The pre-registered client's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    /// Its secret, as a `${secret:NAME}` reference to the keychain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// A client ID metadata document (used when the authorization server supports them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_metadata_url: Option<String>,
    /// How the tokens are got: a person signing in in the browser (the default), or the client
    /// itself with no person present (a machine-to-machine server).
    #[serde(default, skip_serializing_if = "is_default")]
    pub grant: OAuthGrant,
    /// For `clientCredentials` with `private_key_jwt`: the client's PEM private key, as a
    /// `${secret:NAME}` reference to the keychain (it signs a short-lived assertion per request).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private_key: Option<String>,
    /// The algorithm `private_key` signs with: `ES256` (the default), `ES384`, `RS256`, `RS384`
    /// or `RS512`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signing_algorithm: Option<String>,
    /// For `jwtBearer`: the JWT the workload's platform issued it, usually `${env:VAR}` (give
    /// this or `assertionFile`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assertion: Option<String>,
    /// For `jwtBearer`: the file the platform keeps the workload's JWT fresh in (a Kubernetes
    /// projected token, say), read anew for every token request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assertion_file: Option<String>,
    /// For `enterpriseManaged`: the enterprise identity provider's issuer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idp_issuer: Option<String>,
    /// For `enterpriseManaged`: the identity provider's token endpoint, where the person's ID
    /// token is exchanged for an authorization grant.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idp_token_endpoint: Option<String>,
    /// For `enterpriseManaged`: the client id Switchboard is registered under at the identity
    /// provider. The ID token itself is `assertion` or `assertionFile`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idp_client_id: Option<String>,
    /// Scopes to ask for with a machine grant (space-separated), beyond those the server names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// Bind the tokens to a key of Switchboard's own, kept in the keychain (DPoP, RFC 9449): a
    /// token that leaks is no use without the key. Done as well whenever the server's challenge
    /// names the DPoP scheme; this asks for it of a server that takes both.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dpop: bool,
}

/// How a server's tokens are got.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub enum OAuthGrant {
    /// A person signs in in the browser (OAuth authorization code with PKCE).
    #[default]
    AuthorizationCode,
    /// The client signs in as itself with its secret or private key (OAuth client credentials,
    /// the `io.modelcontextprotocol/oauth-client-credentials` extension).
    ClientCredentials,
    /// A workload presents the JWT its platform issued it (RFC 7523 JWT bearer grant, workload
    /// identity federation).
    JwtBearer,
    /// The enterprise's identity provider vouches for the person: their ID token is exchanged
    /// there for an authorization grant the server's authorization server accepts (SEP-990, the
    /// `io.modelcontextprotocol/enterprise-managed-authorization` extension).
    EnterpriseManaged,
}

/// The algorithms a `private_key_jwt` assertion may be signed with.
pub const SIGNING_ALGORITHMS: [&str; 5] = ["ES256", "ES384", "RS256", "RS384", "RS512"];

impl OAuthClient {
    /// Whether the settings make sense together: a machine grant has what it signs in with.
    fn check(&self) -> std::result::Result<(), String> {
        let token = self.assertion.is_some() as u8 + self.assertion_file.is_some() as u8;
        let idp = [
            &self.idp_issuer,
            &self.idp_token_endpoint,
            &self.idp_client_id,
        ];
        match self.grant {
            OAuthGrant::AuthorizationCode if self.private_key.is_some() || token > 0 => Err(
                "`privateKey`, `assertion` and `assertionFile` need a machine `grant` \
                 (`clientCredentials`, `jwtBearer` or `enterpriseManaged`)"
                    .into(),
            ),
            OAuthGrant::ClientCredentials if self.client_id.is_none() => Err(
                "`clientCredentials` needs the `clientId` the authorization server \
                     registered"
                    .into(),
            ),
            OAuthGrant::ClientCredentials
                if self.client_secret.is_some() == self.private_key.is_some() =>
            {
                Err(
                    "`clientCredentials` needs exactly one of `clientSecret` and `privateKey`"
                        .into(),
                )
            }
            OAuthGrant::JwtBearer | OAuthGrant::EnterpriseManaged if token != 1 => Err(
                "`jwtBearer` and `enterpriseManaged` need exactly one of `assertion` and \
                 `assertionFile`"
                    .into(),
            ),
            OAuthGrant::EnterpriseManaged
                if self.client_id.is_none() || idp.iter().any(|f| f.is_none()) =>
            {
                Err(
                    "`enterpriseManaged` needs `clientId`, `idpIssuer`, `idpTokenEndpoint` and \
                     `idpClientId`"
                        .into(),
                )
            }
            OAuthGrant::ClientCredentials
            | OAuthGrant::JwtBearer
            | OAuthGrant::EnterpriseManaged
                if self.dpop =>
            {
                Err(
                    "`dpop` binds the tokens of a person's sign-in (`authorizationCode`); \
                     Switchboard does not bind a machine grant's tokens yet"
                        .into(),
                )
            }
            OAuthGrant::EnterpriseManaged if self.private_key.is_some() => {
                Err("`enterpriseManaged` signs in with `clientSecret`, not `privateKey`".into())
            }
            _ => match &self.signing_algorithm {
                Some(a) if !SIGNING_ALGORITHMS.contains(&a.as_str()) => Err(format!(
                    "`signingAlgorithm` {a:?} is not one of {}",
                    SIGNING_ALGORITHMS.join(", ")
                )),
                _ => Ok(()),
            },
        }
    }
}

fn yes() -> bool {
    true
}
fn is_true(b: &bool) -> bool {
    *b
}
fn is_default<T: Default + PartialEq>(t: &T) -> bool {
    *t == T::default()
}

/// The validated way to reach a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint {
    /// A local process speaking stdio.
    Stdio {
        command: String,
        args: Vec<String>,
        cwd: Option<PathBuf>,
    },
    /// A remote server over HTTP.
    Remote {
        url: url::Url,
        transport: RemoteTransport,
    },
}

impl ServerConfig {
    /// Whether it runs its server in a container: a container engine's client (`docker`,
    /// `podman`, by the program's name) told to `run`.
    pub fn runs_a_container(&self) -> bool {
        let engine = self
            .command
            .as_deref()
            .and_then(|c| std::path::Path::new(c).file_name())
            .and_then(|n| n.to_str())
            .is_some_and(|n| matches!(n, "docker" | "podman"));
        engine && self.args.first().map(String::as_str) == Some("run")
    }

    /// A stdio server definition.
    pub fn stdio(command: impl Into<String>, args: Vec<String>) -> Self {
        Self {
            command: Some(command.into()),
            args,
            enabled: true,
            ..Self::default()
        }
    }

    /// A remote server definition.
    pub fn remote(url: impl Into<String>, transport: RemoteTransport) -> Self {
        Self {
            url: Some(url.into()),
            transport,
            enabled: true,
            ..Self::default()
        }
    }

    /// Records `global` as the roots it inherits, when it has none of its own.
    pub fn inherit_roots(&mut self, global: &[PathBuf]) {
        self.inherited_roots = InheritedRoots(self.roots.is_none().then(|| global.to_vec()));
    }

    /// The roots a local server's box may write, as trusted: its own when set, otherwise the
    /// global ones it inherits, if any. A remote server's files are not here to reach, so only
    /// its own (the server is told of them) count for it.
    pub fn trusted_roots(&self) -> Option<&Vec<PathBuf>> {
        let inherited = self.inherited_roots.0.as_ref().filter(|r| !r.is_empty());
        self.roots
            .as_ref()
            .or(inherited.filter(|_| self.command.is_some()))
    }

    /// Validates the definition and returns how to reach the server. `name` and `file` only feed
    /// the error message.
    pub fn endpoint(&self, file: &Path, name: &str) -> Result<Endpoint> {
        let invalid = |field: &str, why: String| invalid_field(file, name, field, why);
        if name.contains('/') {
            return Err(invalid(
                "name",
                "a server's name must not contain `/` (it separates a server's keychain entries \
                 from another's)"
                    .into(),
            ));
        }
        let limits = [
            ("requestTimeoutSecs", self.request_timeout_secs, 1, MAX_SECS),
            ("maxTotalSecs", self.max_total_secs, 1, MAX_SECS),
            (
                "maxMessageBytes",
                self.max_message_bytes,
                1024,
                MAX_MESSAGE_BYTES,
            ),
        ];
        for (field, value, least, most) in limits {
            match value {
                Some(v) if v < least => {
                    return Err(invalid(field, format!("must be at least {least}")));
                }
                Some(v) if v > most => {
                    return Err(invalid(field, format!("must be at most {most}")));
                }
                _ => {}
            }
        }
        if let Some(oauth) = &self.oauth {
            oauth.check().map_err(|why| invalid("oauth", why))?;
        }
        if let Some(root) = self.roots.iter().flatten().find(|r| !r.is_absolute()) {
            return Err(invalid("roots", relative_root(root)));
        }
        match (&self.command, &self.url) {
            (Some(_), Some(_)) => Err(invalid(
                "command",
                "a server has either `command` (stdio) or `url` (remote), not both".into(),
            )),
            (None, None) => Err(invalid(
                "command",
                "missing: give `command` for a local server or `url` for a remote one".into(),
            )),
            (Some(command), None) => {
                if command.trim().is_empty() {
                    return Err(invalid("command", "must not be empty".into()));
                }
                Ok(Endpoint::Stdio {
                    command: command.clone(),
                    args: self.args.clone(),
                    cwd: self.cwd.clone(),
                })
            }
            (None, Some(raw)) => {
                let url = url::Url::parse(raw)
                    .map_err(|e| invalid("url", format!("{raw:?} is not a URL: {e}")))?;
                if !matches!(url.scheme(), "http" | "https") {
                    return Err(invalid(
                        "url",
                        format!("scheme {:?} is not http or https", url.scheme()),
                    ));
                }
                let transport = match self.kind.as_deref() {
                    Some("sse") if self.transport == RemoteTransport::Auto => RemoteTransport::Sse,
                    Some("http" | "streamable-http" | "streamableHttp")
                        if self.transport == RemoteTransport::Auto =>
                    {
                        RemoteTransport::StreamableHttp
                    }
                    _ => self.transport,
                };
                Ok(Endpoint::Remote { url, transport })
            }
        }
    }

    /// The per-request timeout.
    pub fn request_timeout(&self) -> Duration {
        Duration::from_secs(
            self.request_timeout_secs
                .unwrap_or(DEFAULT_REQUEST_TIMEOUT_SECS),
        )
    }

    /// The ceiling on a request's total time (never below the request timeout).
    pub fn max_total(&self) -> Duration {
        Duration::from_secs(self.max_total_secs.unwrap_or(DEFAULT_MAX_TOTAL_SECS))
    }

    /// The inbound message cap in bytes.
    pub fn max_message_bytes(&self) -> usize {
        usize::try_from(self.max_message_bytes.unwrap_or(DEFAULT_MAX_MESSAGE_BYTES))
            .unwrap_or(usize::MAX)
    }
}

/// The longest timeout a server may have: a week (a larger one would overflow the clock).
const MAX_SECS: u64 = 7 * 24 * 3600;
/// The largest message a server may be allowed: 1 GiB.
const MAX_MESSAGE_BYTES: u64 = 1 << 30;

/// The top-level field `key` of the file, taken out of `root`; `None` when absent or null.
fn take<T: serde::de::DeserializeOwned>(
    root: &mut Map<String, Value>,
    key: &str,
    file: &Path,
) -> Result<Option<T>> {
    match root.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => serde_json::from_value(v).map(Some).map_err(|e| {
            Error::new(
                ErrorCode::ConfigInvalid,
                format!("{}: field `{key}`: {e}", file.display()),
            )
        }),
    }
}

/// Why `root` is refused: relative to whichever folder the app or the CLI was started in, it
/// would name a different folder than the one shown when it was trusted.
fn relative_root(root: &Path) -> String {
    format!(
        "{:?} is not an absolute path: write the whole path, from / (~ is not expanded here)",
        root.display().to_string()
    )
}

fn invalid_field(file: &Path, server: &str, field: &str, why: String) -> Error {
    Error::new(
        ErrorCode::ConfigInvalid,
        format!(
            "{}: server {server:?}: field `{field}`: {why}",
            file.display()
        ),
    )
}

impl Config {
    /// Reads and validates a config file. A missing file is an empty configuration.
    pub fn load(file: &Path) -> Result<Self> {
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(e) => {
                return Err(Error::new(
                    ErrorCode::ConfigIo,
                    format!("{}: cannot read: {e}", file.display()),
                ));
            }
        };
        Self::parse(&text, file)
    }

    /// Parses and validates config text; `file` names the source in error messages.
    pub fn parse(text: &str, file: &Path) -> Result<Self> {
        let root: Value = serde_json::from_str(text).map_err(|e| {
            Error::new(
                ErrorCode::ConfigInvalid,
                format!("{}: not valid JSON: {e}", file.display()),
            )
        })?;
        let Value::Object(mut root) = root else {
            return Err(Error::new(
                ErrorCode::ConfigInvalid,
                format!("{}: the top level must be a JSON object", file.display()),
            ));
        };
        let servers = match root.remove("mcpServers") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m,
            Some(_) => {
                return Err(Error::new(
                    ErrorCode::ConfigInvalid,
                    format!("{}: `mcpServers` must be an object", file.display()),
                ));
            }
        };
        let mut config = Config {
            roots: take(&mut root, "roots", file)?.unwrap_or_default(),
            audit_retention_days: take(&mut root, "auditRetentionDays", file)?,
            registries: take(&mut root, "registries", file)?.unwrap_or_default(),
            tool_search_above: take(&mut root, "toolSearchAbove", file)?,
            tool_tokens_warn_percent: take(&mut root, "toolTokensWarnPercent", file)?,
            traffic: take(&mut root, "traffic", file)?,
            mcp_servers: IndexMap::new(),
            extra: Map::new(),
            invalid_servers: IndexMap::new(),
        };
        config.extra = root;
        if let Some(relative) = config.roots.iter().find(|r| !r.is_absolute()) {
            return Err(Error::new(
                ErrorCode::ConfigInvalid,
                format!(
                    "{}: field `roots`: {}",
                    file.display(),
                    relative_root(relative)
                ),
            ));
        }
        for (name, value) in servers {
            match Self::server(&name, value.clone(), file) {
                Ok(server) => {
                    config.mcp_servers.insert(name, server);
                }
                Err(problem) => {
                    let written = value;
                    config
                        .invalid_servers
                        .insert(name, InvalidServer { written, problem });
                }
            }
        }
        config.settle();
        Ok(config)
    }

    /// Server `name` as `value` defines it, validated.
    fn server(name: &str, value: Value, file: &Path) -> Result<ServerConfig> {
        let server: ServerConfig = serde_path_to_error::deserialize(value).map_err(|e| {
            let field = e.path().to_string();
            invalid_field(file, name, &field, e.into_inner().to_string())
        })?;
        server.endpoint(file, name)?;
        Ok(server)
    }

    /// Gives each server without roots of its own the global ones as it inherits them, and
    /// drops an invalid entry a valid definition of the same name has replaced: call after any
    /// change to the servers or the global roots.
    pub fn settle(&mut self) {
        for server in self.mcp_servers.values_mut() {
            server.inherit_roots(&self.roots);
        }
        let valid = &self.mcp_servers;
        self.invalid_servers
            .retain(|name, _| !valid.contains_key(name));
    }

    /// Writes the config atomically (temp file + rename) so a crash never leaves half a file;
    /// the text written.
    pub fn save(&self, file: &Path) -> Result<String> {
        let io = |e: std::io::Error| {
            Error::new(
                ErrorCode::ConfigIo,
                format!("{}: cannot write: {e}", file.display()),
            )
        };
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let text = serde_json::to_string_pretty(&self.as_written())
            .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        let text = text + "\n";
        let tmp = file.with_extension("json.tmp");
        crate::private::write(&tmp, text.as_bytes()).map_err(io)?;
        std::fs::rename(&tmp, file).map_err(io)?;
        Ok(text)
    }

    /// The file's JSON: the valid servers, then the invalid ones as they were written (one a
    /// valid definition of the same name has since replaced is gone).
    pub fn as_written(&self) -> Value {
        let mut value = serde_json::to_value(self).unwrap_or_else(|_| Value::Object(Map::new()));
        if let Some(Value::Object(servers)) = value.get_mut("mcpServers") {
            for (name, invalid) in &self.invalid_servers {
                if !servers.contains_key(name) {
                    servers.insert(name.clone(), invalid.written.clone());
                }
            }
        }
        value
    }

    /// How long audit rows are kept; `None` keeps them forever.
    pub fn audit_retention(&self) -> Option<Duration> {
        match self
            .audit_retention_days
            .unwrap_or(DEFAULT_AUDIT_RETENTION_DAYS)
        {
            0 => None,
            days => Some(Duration::from_secs(u64::from(days) * 86_400)),
        }
    }

    /// The roots a server sees: its own when set, otherwise the global ones.
    pub fn roots_for(&self, server: &str) -> Vec<PathBuf> {
        self.mcp_servers
            .get(server)
            .and_then(|s| s.roots.clone())
            .unwrap_or_else(|| self.roots.clone())
    }
}

/// Per-server sampling limits, set in the server's configuration (`sampling`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
#[ts(export)]
pub struct SamplingLimits {
    /// Requests accepted per rolling minute.
    pub requests_per_minute: u32,
    /// The largest `maxTokens` one request may ask for.
    pub max_tokens: u32,
    /// Tokens (prompt and completion) per UTC day.
    #[ts(type = "number")]
    pub tokens_per_day: u64,
}

impl Default for SamplingLimits {
    fn default() -> Self {
        Self {
            requests_per_minute: 10,
            max_tokens: 8192,
            tokens_per_day: 200_000,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new("/tmp/cfg.json")
    }

    /// Why `text` or its one server entry is refused.
    fn refused(text: &str) -> Error {
        match Config::parse(text, p()) {
            Err(e) => e,
            Ok(c) => c
                .invalid_servers
                .values()
                .next()
                .map(|i| i.problem.clone())
                .unwrap_or_else(|| panic!("{text} was read")),
        }
    }

    /// One entry that is not valid costs no other server: it is set aside with why, and saved
    /// back as it was written.
    #[test]
    fn an_invalid_entry_is_kept_aside_and_the_others_are_read() {
        let text = r#"{"mcpServers":{"good":{"command":"x"},"vault/env":{"command":"y"},
                       "bad":{"command":"y","args":[1]},"late":{"url":"https://l.example/mcp"}}}"#;
        let c = Config::parse(text, p()).unwrap();
        assert_eq!(c.mcp_servers.keys().collect::<Vec<_>>(), ["good", "late"]);
        let invalid = &c.invalid_servers["vault/env"];
        assert_eq!(invalid.problem.code, ErrorCode::ConfigInvalid);
        assert!(
            invalid.problem.message.contains("must not contain"),
            "{}",
            invalid.problem
        );
        let written = c.as_written();
        assert_eq!(
            written["mcpServers"]["bad"],
            serde_json::json!({"command": "y", "args": [1]})
        );
        let again = Config::parse(&written.to_string(), p()).unwrap();
        assert_eq!(again, c);
        // A valid definition saved under its name replaces it.
        let mut fixed = c.clone();
        fixed
            .mcp_servers
            .insert("bad".into(), ServerConfig::stdio("z", vec![]));
        assert_eq!(fixed.as_written()["mcpServers"]["bad"]["command"], "z");
    }

    #[test]
    fn names_with_the_separator_and_limits_out_of_range_are_refused() {
        let bad = [
            (
                r#"{"mcpServers":{"vault/env":{"command":"x"}}}"#,
                "must not contain `/`",
            ),
            (
                r#"{"mcpServers":{"s":{"command":"x","maxMessageBytes":18446744073709551615}}}"#,
                "maxMessageBytes`: must be at most 1073741824",
            ),
            (
                r#"{"mcpServers":{"s":{"command":"x","maxMessageBytes":10}}}"#,
                "must be at least 1024",
            ),
            (
                r#"{"mcpServers":{"s":{"command":"x","requestTimeoutSecs":18446744073709551615}}}"#,
                "requestTimeoutSecs`: must be at most 604800",
            ),
            (
                r#"{"mcpServers":{"s":{"command":"x","maxTotalSecs":0}}}"#,
                "maxTotalSecs`: must be at least 1",
            ),
            (
                r#"{"mcpServers":{"s":{"command":"x","roots":["/a","."]}}}"#,
                "roots`: \".\" is not an absolute path",
            ),
            (
                r#"{"roots":["~/projects"],"mcpServers":{}}"#,
                "roots`: \"~/projects\" is not an absolute path",
            ),
        ];
        for (text, why) in bad {
            let e = refused(text);
            assert_eq!(e.code, ErrorCode::ConfigInvalid, "{text}");
            assert!(e.message.contains(why), "{text}: {e}");
        }
        let fine = r#"{"mcpServers":{"s":{"command":"x","maxMessageBytes":1073741824}}}"#;
        assert!(Config::parse(fine, p()).is_ok());
    }

    /// The top-level settings are read from the file (they were once left among the unknown
    /// keys) and written back where they were.
    #[test]
    fn the_top_level_settings_are_read_and_kept() {
        let text = r#"{"mcpServers":{},"registries":["https://r.example"],"auditRetentionDays":3,
                       "toolSearchAbove":12,"x-mine":true}"#;
        let c = Config::parse(text, p()).unwrap();
        assert_eq!(c.registries, ["https://r.example"]);
        assert_eq!(c.audit_retention_days, Some(3));
        assert_eq!(c.tool_search_above, Some(12));
        assert_eq!(c.extra.keys().collect::<Vec<_>>(), ["x-mine"]);
        let written: Value = serde_json::to_value(&c).unwrap();
        assert_eq!(written["toolSearchAbove"], 12);
        assert_eq!(written["x-mine"], true);
        let e = Config::parse(r#"{"toolSearchAbove":"many"}"#, p()).unwrap_err();
        assert!(e.message.contains("field `toolSearchAbove`"), "{e}");
    }

    #[test]
    fn a_machine_grant_has_what_it_signs_in_with() {
        let server = |oauth: &str| {
            format!(r#"{{"mcpServers":{{"s":{{"url":"https://m.example/mcp","oauth":{oauth}}}}}}}"#)
        };
        let bad = [
            (r#"{"grant":"clientCredentials"}"#, "needs the `clientId`"),
            (
                r#"{"grant":"clientCredentials","clientId":"c"}"#,
                "exactly one of `clientSecret` and `privateKey`",
            ),
            (
                r#"{"grant":"clientCredentials","clientId":"c","clientSecret":"a","privateKey":"b"}"#,
                "exactly one of `clientSecret` and `privateKey`",
            ),
            (
                r#"{"grant":"clientCredentials","clientId":"c","privateKey":"k","signingAlgorithm":"HS256"}"#,
                "`signingAlgorithm` \"HS256\" is not one of",
            ),
            (
                r#"{"grant":"jwtBearer"}"#,
                "exactly one of `assertion` and `assertionFile`",
            ),
            (r#"{"privateKey":"k"}"#, "need a machine `grant`"),
            (
                r#"{"grant":"enterpriseManaged","assertion":"t","clientId":"c"}"#,
                "needs `clientId`, `idpIssuer`",
            ),
            (r#"{"grant":"password"}"#, "unknown variant"),
            (
                r#"{"grant":"clientCredentials","clientId":"c","clientSecret":"x","dpop":true}"#,
                "does not bind a machine grant's tokens",
            ),
        ];
        for (oauth, why) in bad {
            let e = refused(&server(oauth));
            assert_eq!(e.code, ErrorCode::ConfigInvalid, "{oauth}");
            assert!(e.message.contains(why), "{oauth}: {e}");
        }
        let fine = [
            r#"{"grant":"clientCredentials","clientId":"c","clientSecret":"${secret:s}"}"#,
            r#"{"grant":"clientCredentials","clientId":"c","privateKey":"${secret:k}","signingAlgorithm":"RS256"}"#,
            r#"{"grant":"jwtBearer","assertionFile":"/var/run/token"}"#,
            r#"{"grant":"enterpriseManaged","clientId":"c","clientSecret":"x","assertion":"${env:ID}","idpIssuer":"https://i","idpTokenEndpoint":"https://i/t","idpClientId":"sb"}"#,
            r#"{"clientId":"c"}"#,
            r#"{"dpop":true}"#,
        ];
        for oauth in fine {
            let c = Config::parse(&server(oauth), p()).unwrap();
            assert!(c.mcp_servers["s"].oauth.is_some(), "{oauth}");
        }
    }

    #[test]
    fn parses_the_familiar_shape_and_keeps_unknown_keys() {
        let text = r#"{
          "mcpServers": {
            "fs": {"command": "npx", "args": ["-y", "x"], "env": {"A": "1"}, "disabled": false, "x-note": 1},
            "web": {"url": "https://example.com/mcp", "type": "sse", "headers": {"H": "v"}}
          },
          "globalShortcut": "Ctrl+K"
        }"#;
        let c = Config::parse(text, p()).unwrap();
        assert_eq!(c.mcp_servers.len(), 2);
        let fs = &c.mcp_servers["fs"];
        assert_eq!(fs.command.as_deref(), Some("npx"));
        assert!(fs.enabled);
        assert_eq!(fs.extra["x-note"], 1);
        assert_eq!(c.extra["globalShortcut"], "Ctrl+K");
        match c.mcp_servers["web"].endpoint(p(), "web").unwrap() {
            Endpoint::Remote { transport, .. } => assert_eq!(transport, RemoteTransport::Sse),
            other => panic!("unexpected {other:?}"),
        }
        let round = serde_json::to_value(&c).unwrap();
        assert_eq!(round["globalShortcut"], "Ctrl+K");
        assert_eq!(round["mcpServers"]["fs"]["x-note"], 1);
        let names: Vec<_> = c.mcp_servers.keys().cloned().collect();
        assert_eq!(names, ["fs", "web"]);
    }

    #[test]
    fn errors_name_file_server_and_field() {
        let e = refused(r#"{"mcpServers":{"bad":{"command":"x","args":[1]}}}"#);
        assert_eq!(e.code, ErrorCode::ConfigInvalid);
        assert!(e.message.contains("/tmp/cfg.json"), "{}", e.message);
        assert!(e.message.contains("\"bad\""), "{}", e.message);
        assert!(e.message.contains("args[0]"), "{}", e.message);

        let e = refused(r#"{"mcpServers":{"r":{"url":"ftp://x"}}}"#);
        assert!(e.message.contains("`url`"), "{}", e.message);
        let e = refused(r#"{"mcpServers":{"n":{}}}"#);
        assert!(e.message.contains("missing"), "{}", e.message);
        let e = refused(r#"{"mcpServers":{"t":{"command":"x","requestTimeoutSecs":0}}}"#);
        assert!(e.message.contains("requestTimeoutSecs"), "{}", e.message);
        let e = Config::parse("{nope", p()).unwrap_err();
        assert!(e.message.contains("not valid JSON"), "{}", e.message);
    }

    #[test]
    fn save_and_load_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("sub/config.json");
        let mut c = Config::default();
        c.mcp_servers
            .insert("a".into(), ServerConfig::stdio("echo", vec!["hi".into()]));
        c.roots.push("/tmp".into());
        c.save(&file).unwrap();
        assert_eq!(Config::load(&file).unwrap(), c);
        assert_eq!(c.roots_for("a"), vec![PathBuf::from("/tmp")]);
        assert!(
            Config::load(&dir.path().join("missing.json"))
                .unwrap()
                .mcp_servers
                .is_empty()
        );
    }
}
