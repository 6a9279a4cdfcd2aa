//! Signing in with no person present: the OAuth client credentials grant (a client secret, or a
//! `private_key_jwt` assertion signed with the client's key; the
//! `io.modelcontextprotocol/oauth-client-credentials` extension) and the RFC 7523 JWT bearer
//! grant of workload identity federation (the workload presents the JWT its platform issued it).
//!
//! The tokens land in the keychain as a person's sign-in does, where the server's connections
//! find them. These grants give no refresh token: a connection refused for an expired token gets
//! a new one the same way. A refused grant is reported, never retried nor swapped for another.

use std::sync::Arc;

use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationMetadata, ClientCredentialsConfig,
    JwtSigningAlgorithm, OAuthTokenResponse, StoredCredentials,
};

use super::{KeychainCredentials, body_within, challenge_scopes, failed, origin_metadata};
use crate::error::{Error, ErrorCode, Result};
use crate::secrets::SecretStore;
use crate::visible::reveal;

/// The grant type of RFC 7523 §2.1.
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// Largest token response or workload token read.
const MAX_BODY: usize = 256 * 1024;

/// How a client with no person present proves who it is; secrets already read from the keychain.
#[derive(Clone)]
pub enum MachineGrant {
    /// Client credentials with `client_secret_basic` or `client_secret_post` (the authorization
    /// server's metadata decides which).
    Secret { client_id: String, secret: String },
    /// Client credentials with a `private_key_jwt` assertion.
    PrivateKey {
        client_id: String,
        pem: String,
        algorithm: JwtSigningAlgorithm,
    },
    /// The JWT bearer grant with the workload's token.
    Workload {
        client_id: Option<String>,
        token: IssuedToken,
    },
    /// Enterprise-managed: the person's ID token exchanged at their identity provider for an
    /// ID-JAG, presented to the server's authorization server as a JWT bearer grant.
    Enterprise(Box<Enterprise>),
}

/// What an enterprise-managed sign-in needs.
#[derive(Clone)]
pub struct Enterprise {
    pub idp_issuer: String,
    pub idp_token_endpoint: String,
    pub idp_client_id: String,
    /// Switchboard's client at the server's authorization server, and its secret if it has one.
    pub client_id: String,
    pub secret: Option<String>,
    pub id_token: IssuedToken,
}

/// Where a token another party issued (the workload's JWT, the person's ID token) comes from.
#[derive(Clone)]
pub enum IssuedToken {
    /// Given in the config (usually from the environment).
    Given(String),
    /// A file the platform keeps fresh, read at each sign-in.
    File(std::path::PathBuf),
}

impl std::fmt::Debug for MachineGrant {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Neither the secret, the key nor the workload's token reaches a log line.
        match self {
            Self::Secret { client_id, .. } => write!(f, "Secret({client_id:?}, [redacted])"),
            Self::PrivateKey {
                client_id,
                algorithm,
                ..
            } => write!(f, "PrivateKey({client_id:?}, {algorithm:?}, [redacted])"),
            Self::Workload { client_id, .. } => write!(f, "Workload({client_id:?}, [redacted])"),
            Self::Enterprise(e) => write!(
                f,
                "Enterprise({:?} at {:?}, [redacted])",
                e.client_id, e.idp_issuer
            ),
        }
    }
}

/// The signing algorithm named `name` (one of `config::SIGNING_ALGORITHMS`; ES256 when unnamed).
pub fn signing_algorithm(name: Option<&str>) -> Result<JwtSigningAlgorithm> {
    Ok(match name.unwrap_or("ES256") {
        "ES256" => JwtSigningAlgorithm::ES256,
        "ES384" => JwtSigningAlgorithm::ES384,
        "RS256" => JwtSigningAlgorithm::RS256,
        "RS384" => JwtSigningAlgorithm::RS384,
        "RS512" => JwtSigningAlgorithm::RS512,
        other => {
            return Err(Error::new(
                ErrorCode::ConfigInvalid,
                format!("the signing algorithm {other:?} is not one Switchboard signs with"),
            ));
        }
    })
}

/// Gets tokens for the server at `url` with `grant`: finds its authorization server (from
/// `challenge`, the server's `WWW-Authenticate`, else the well-known paths), asks it for a token
/// with the scopes the challenge and `scope` name, and keeps the token in the keychain.
pub async fn sign_in(
    url: &str,
    challenge: Option<&str>,
    grant: &MachineGrant,
    scope: Option<&str>,
    store: Arc<dyn SecretStore>,
) -> Result<()> {
    let credentials = KeychainCredentials::new(store, url);
    let mut manager = AuthorizationManager::new(url).await.map_err(failed)?;
    manager.set_credential_store(credentials.clone());
    let metadata = match manager.resolve_metadata_from_challenge(challenge).await {
        Ok(found) => found.metadata,
        Err(AuthError::AuthorizationServerMismatch { .. }) => origin_metadata(url).await?,
        Err(e) => return Err(failed(e)),
    };
    require_private_channel(url, &metadata.token_endpoint)?;
    let scopes = scopes(challenge, scope);
    let config = match grant {
        MachineGrant::Workload { client_id, token } => {
            let token = token.read().await?;
            let (issued, granted) =
                jwt_bearer(url, &metadata, client_id.as_deref(), &token, &scopes).await?;
            let stored = StoredCredentials::new(
                client_id.clone().unwrap_or_default(),
                Some(issued),
                granted,
                Some(now_secs()),
            )
            .with_issuer(metadata.issuer.clone());
            use rmcp::transport::auth::CredentialStore;
            credentials.save(stored).await.map_err(failed)?;
            tracing::info!(%url, "signed in with the workload's token");
            return Ok(());
        }
        MachineGrant::Enterprise(e) => {
            let id_token = e.id_token.read().await?;
            let (issued, granted) = enterprise(url, &metadata, e, id_token, scopes).await?;
            let stored = StoredCredentials::new(
                e.client_id.clone(),
                Some(issued),
                granted,
                Some(now_secs()),
            )
            .with_issuer(metadata.issuer.clone());
            use rmcp::transport::auth::CredentialStore;
            credentials.save(stored).await.map_err(failed)?;
            tracing::info!(%url, "signed in through the enterprise's identity provider");
            return Ok(());
        }
        MachineGrant::Secret { client_id, secret } => ClientCredentialsConfig::ClientSecret {
            client_id: client_id.clone(),
            client_secret: secret.clone(),
            scopes,
            resource: Some(url.to_owned()),
        },
        MachineGrant::PrivateKey {
            client_id,
            pem,
            algorithm,
        } => ClientCredentialsConfig::PrivateKeyJwt {
            client_id: client_id.clone(),
            signing_key: pem.clone().into_bytes(),
            signing_algorithm: *algorithm,
            token_endpoint_audience: None,
            scopes,
            resource: Some(url.to_owned()),
        },
    };
    manager.set_metadata(metadata);
    exchange_apart(manager, config).await?;
    tracing::info!(%url, "signed in with the client's own credentials");
    Ok(())
}

/// A client credentials exchange's failure: the authorization server's error answer is a
/// refusal ([`ErrorCode::SignInRefused`]); anything else, the usual sign-in failure.
fn refused_or_failed(e: AuthError) -> Error {
    let refused = matches!(&e, AuthError::ClientCredentialsError(m)
        if m.contains("Server returned error response"));
    let mut error = failed(e);
    if refused {
        error.code = ErrorCode::SignInRefused;
    }
    error
}

/// rmcp's client credentials exchange, apart ([`apart`]).
async fn exchange_apart(
    mut manager: AuthorizationManager,
    config: ClientCredentialsConfig,
) -> Result<()> {
    apart(move || async move {
        manager
            .validate_client_credentials_metadata(&config)
            .map_err(failed)?;
        manager
            .configure_client_credentials(&config)
            .map_err(failed)?;
        manager
            .exchange_client_credentials(&config)
            .await
            .map(drop)
            .map_err(refused_or_failed)
    })
    .await
}

/// Runs `work` on a thread and runtime of its own: rmcp's `private_key_jwt` and enterprise
/// exchanges are not `Send` futures (they hold a form encoder across an await), and connections
/// are dialled on a multi-threaded runtime.
async fn apart<T, F>(work: impl FnOnce() -> F + Send + 'static) -> Result<T>
where
    T: Send + 'static,
    F: std::future::Future<Output = Result<T>>,
{
    tokio::task::spawn_blocking(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
        runtime.block_on(work())
    })
    .await
    .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?
}

/// The two exchanges of enterprise-managed authorization (rmcp's): the ID token for an ID-JAG at
/// the identity provider, then the ID-JAG for an access token at the server's authorization
/// server, authenticated with the client's secret (`client_secret_basic` unless the metadata
/// lists only `client_secret_post`). The token and the scopes it grants.
async fn enterprise(
    url: &str,
    metadata: &AuthorizationMetadata,
    e: &Enterprise,
    id_token: String,
    scopes: Vec<String>,
) -> Result<(OAuthTokenResponse, Vec<String>)> {
    use rmcp::transport::auth::enterprise::{
        EmaAuthorizationServer, EmaClientAuthentication, EmaExchangeRequest,
    };
    let Some(issuer) = metadata.issuer.clone() else {
        return Err(Error::new(
            ErrorCode::AuthFailed,
            "signing in failed: the authorization server's metadata names no issuer, which the \
             identity provider's grant must be addressed to",
        ));
    };
    let idp = EmaAuthorizationServer::new(&e.idp_issuer, &e.idp_token_endpoint, &e.idp_client_id);
    let mut server = EmaAuthorizationServer::new(issuer, &metadata.token_endpoint, &e.client_id);
    if let Some(secret) = &e.secret {
        let secret = oauth2::ClientSecret::new(secret.clone());
        server = server.with_client_authentication(if only_post(metadata) {
            EmaClientAuthentication::ClientSecretPost(secret)
        } else {
            EmaClientAuthentication::ClientSecretBasic(secret)
        });
    }
    let resource = url.to_owned();
    let token = apart(move || async move {
        let http = rmcp::transport::auth::default_oauth_http_client().map_err(failed)?;
        EmaExchangeRequest::new_with_id_token(idp, server, &resource, &id_token)
            .with_scopes(scopes)
            .exchange(&http, &http)
            .await
            .map_err(|e| {
                use rmcp::transport::auth::enterprise::EmaError;
                let code = match e {
                    EmaError::InvalidGrant(_)
                    | EmaError::OAuthRejected { .. }
                    | EmaError::InsufficientUserAuthentication(_) => ErrorCode::SignInRefused,
                    EmaError::RequestFailed(_) => ErrorCode::ConnectFailed,
                    _ => ErrorCode::AuthFailed,
                };
                Error::new(
                    code,
                    format!("signing in through the enterprise's identity provider failed: {e}"),
                )
            })
    })
    .await?;
    let granted: Vec<String> = token.scopes.iter().cloned().collect();
    let mut response = serde_json::json!({
        "access_token": token.access_token.secret(),
        "token_type": "Bearer",
    });
    if let Some(lasts) = token.expires_in {
        response["expires_in"] = lasts.as_secs().into();
    }
    if !granted.is_empty() {
        response["scope"] = granted.join(" ").into();
    }
    let response = serde_json::from_value(response)
        .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
    Ok((response, granted))
}

/// Whether the metadata lists `client_secret_post` and not `client_secret_basic`.
fn only_post(metadata: &AuthorizationMetadata) -> bool {
    let listed = |m: &str| {
        metadata
            .additional_fields
            .get("token_endpoint_auth_methods_supported")
            .and_then(serde_json::Value::as_array)
            .is_some_and(|a| a.iter().any(|v| v.as_str() == Some(m)))
    };
    listed("client_secret_post") && !listed("client_secret_basic")
}

/// The scopes to ask for: those the server's challenge names, then those the config adds.
fn scopes(challenge: Option<&str>, scope: Option<&str>) -> Vec<String> {
    let named = challenge.and_then(challenge_scopes).unwrap_or_default();
    let mut all: Vec<String> = Vec::new();
    for s in named
        .split_whitespace()
        .chain(scope.unwrap_or_default().split_whitespace())
    {
        if !all.iter().any(|a| a == s) {
            all.push(s.to_owned());
        }
    }
    all
}

/// A secret or a workload's token goes only over https, or over http to this computer when the
/// server is on it too.
fn require_private_channel(url: &str, token_endpoint: &str) -> Result<()> {
    let parse = |u: &str| url::Url::parse(u).ok();
    let (Some(server), Some(endpoint)) = (parse(url), parse(token_endpoint)) else {
        return Err(Error::new(
            ErrorCode::AuthFailed,
            format!(
                "signing in failed: the token endpoint {:?} is not a URL",
                reveal(token_endpoint)
            ),
        ));
    };
    let local = |u: &url::Url| u.scheme() == "http" && super::loopback::is_loopback_host(u);
    let secure = |u: &url::Url| u.scheme() == "https";
    // The server names the authorization server: over plain http, whoever is on the way could
    // name their own and be sent the credentials.
    if (secure(&endpoint) && secure(&server)) || (local(&endpoint) && local(&server)) {
        return Ok(());
    }
    Err(Error::new(
        ErrorCode::AuthFailed,
        format!(
            "signing in failed: Switchboard sends a client's own credentials only when both the \
             server and its token endpoint ({}) are https (or both on this computer)",
            reveal(token_endpoint)
        ),
    ))
}

impl IssuedToken {
    async fn read(&self) -> Result<String> {
        let path = match self {
            Self::Given(token) => return Ok(token.trim().to_owned()),
            Self::File(path) => path.clone(),
        };
        let unreadable = |why: String| {
            Error::new(
                ErrorCode::AuthFailed,
                format!(
                    "signing in failed: the workload token file {}: {why}",
                    path.display()
                ),
            )
        };
        let text = crate::store::off_thread({
            let path = path.clone();
            move || {
                use std::io::Read;
                let mut text = String::new();
                std::fs::File::open(&path)
                    .and_then(|f| f.take(MAX_BODY as u64 + 1).read_to_string(&mut text))
                    .map(|_| text)
                    .map_err(|e| Error::new(ErrorCode::AuthFailed, e.to_string()))
            }
        })
        .await
        .map_err(|e| unreadable(e.message))?;
        if text.len() > MAX_BODY {
            return Err(unreadable(format!("larger than {MAX_BODY} bytes")));
        }
        let token = text.trim();
        if token.is_empty() {
            return Err(unreadable("empty".into()));
        }
        Ok(token.to_owned())
    }
}

/// The RFC 7523 token request with the workload's JWT as the assertion: the token and the scopes
/// it grants (those it names, else those asked for: RFC 6749 §5.1). The authorization server's
/// refusal is reported in its own words, shown safely.
async fn jwt_bearer(
    url: &str,
    metadata: &AuthorizationMetadata,
    client_id: Option<&str>,
    assertion: &str,
    scopes: &[String],
) -> Result<(OAuthTokenResponse, Vec<String>)> {
    let endpoint = &metadata.token_endpoint;
    let mut form = vec![
        ("grant_type", JWT_BEARER.to_owned()),
        ("assertion", assertion.to_owned()),
        ("resource", url.to_owned()),
    ];
    if let Some(id) = client_id {
        form.push(("client_id", id.to_owned()));
    }
    if !scopes.is_empty() {
        form.push(("scope", scopes.join(" ")));
    }
    let body = form_body(&form);
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(std::time::Duration::from_secs(30))
        .build()
        .map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))?;
    let trouble =
        |why: String| Error::new(ErrorCode::AuthFailed, format!("signing in failed: {why}"));
    let response = http
        .post(endpoint)
        .header(reqwest::header::ACCEPT, "application/json")
        .header(
            reqwest::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        )
        .body(body)
        .send()
        .await
        .map_err(|e| {
            let mut e = trouble(format!("the token endpoint {}: {e}", reveal(endpoint)));
            e.code = ErrorCode::ConnectFailed;
            e
        })?;
    let status = response.status();
    let answer = body_within(response, MAX_BODY).await.map_err(|e| match e {
        Some(e) => trouble(format!("the token endpoint {}: {e}", reveal(endpoint))),
        None => trouble(format!(
            "the token endpoint's answer is larger than {MAX_BODY} bytes"
        )),
    })?;
    if !status.is_success() {
        // An OAuth error answer is the server's refusal; anything else may pass.
        let refused = status.is_client_error()
            && status != reqwest::StatusCode::TOO_MANY_REQUESTS
            && serde_json::from_slice::<serde_json::Value>(&answer)
                .is_ok_and(|v| v.get("error").is_some());
        let mut e = trouble(refusal(status, &answer));
        e.code = if refused {
            ErrorCode::SignInRefused
        } else {
            ErrorCode::ConnectFailed
        };
        return Err(e);
    }
    let token: OAuthTokenResponse = serde_json::from_slice(&answer).map_err(|e| {
        trouble(format!(
            "the token endpoint's answer is not a token response: {e}"
        ))
    })?;
    let named = serde_json::from_slice::<serde_json::Value>(&answer)
        .ok()
        .and_then(|v| v.get("scope")?.as_str().map(str::to_owned));
    let granted = match named {
        Some(s) => s.split_whitespace().map(str::to_owned).collect(),
        None => scopes.to_vec(),
    };
    Ok((token, granted))
}

/// `form` as an `application/x-www-form-urlencoded` body (built outside the async body: the
/// encoder is not `Send`).
fn form_body(form: &[(&str, String)]) -> String {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(form)
        .finish()
}

/// What an OAuth error response (RFC 6749 §5.2) says, capped and with hidden characters shown.
fn refusal(status: reqwest::StatusCode, body: &[u8]) -> String {
    let said: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
    let text = |k: &str| {
        said.get(k)
            .and_then(serde_json::Value::as_str)
            .map(|s| reveal(&s.chars().take(200).collect::<String>()).into_owned())
    };
    match (text("error"), text("error_description")) {
        (Some(code), Some(why)) => {
            format!("the authorization server refused the workload's token: {code} ({why})")
        }
        (Some(code), None) => {
            format!("the authorization server refused the workload's token: {code}")
        }
        _ => format!("the authorization server refused the workload's token ({status})"),
    }
}

fn now_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_go_only_over_https_or_within_this_computer() {
        let fine = [
            ("https://mcp.example/mcp", "https://auth.example/token"),
            ("http://127.0.0.1:9/mcp", "http://localhost:8/token"),
        ];
        for (server, endpoint) in fine {
            assert!(
                require_private_channel(server, endpoint).is_ok(),
                "{endpoint}"
            );
        }
        let refused = [
            ("https://mcp.example/mcp", "http://auth.example/token"),
            // A remote server cannot point the secret at this computer's own services.
            ("https://mcp.example/mcp", "http://127.0.0.1/token"),
            ("https://mcp.example/mcp", "not a url"),
            // A plain-http server names the authorization server in the clear.
            ("http://mcp.example/mcp", "https://auth.example/token"),
        ];
        for (server, endpoint) in refused {
            let e = require_private_channel(server, endpoint).unwrap_err();
            assert_eq!(e.code, ErrorCode::AuthFailed, "{endpoint}");
        }
    }

    #[test]
    fn a_refusal_is_told_in_the_servers_words_shown_safely_and_short() {
        let said = serde_json::json!({
            "error": "invalid_grant",
            "error_description": format!("expired\u{202e}{}", "x".repeat(5000)),
        });
        let told = refusal(
            reqwest::StatusCode::BAD_REQUEST,
            said.to_string().as_bytes(),
        );
        assert!(told.contains("invalid_grant (expired"), "{told}");
        assert!(!told.contains('\u{202e}'), "{told}");
        assert!(told.len() < 600, "{}", told.len());
        let told = refusal(reqwest::StatusCode::BAD_GATEWAY, b"<html>");
        assert!(told.ends_with("(502 Bad Gateway)"), "{told}");
    }

    #[test]
    fn the_scopes_asked_for_are_the_challenges_then_the_configs_once_each() {
        let challenge = r#"Bearer scope="files:read mcp", resource_metadata="x""#;
        assert_eq!(
            scopes(Some(challenge), Some("mcp audit")),
            ["files:read", "mcp", "audit"]
        );
        assert!(scopes(None, None).is_empty());
    }

    #[test]
    fn no_secret_key_or_token_reaches_a_debug_line() {
        let grants = [
            MachineGrant::Secret {
                client_id: "c".into(),
                secret: "canary-1".into(),
            },
            MachineGrant::PrivateKey {
                client_id: "c".into(),
                pem: "canary-2".into(),
                algorithm: JwtSigningAlgorithm::ES256,
            },
            MachineGrant::Workload {
                client_id: None,
                token: IssuedToken::Given("canary-3".into()),
            },
        ];
        for grant in grants {
            let shown = format!("{grant:?}");
            assert!(!shown.contains("canary"), "{shown}");
        }
    }

    #[tokio::test]
    async fn a_token_file_is_read_fresh_and_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("token");
        let token = IssuedToken::File(file.clone());
        std::fs::write(&file, "first\n").unwrap();
        assert_eq!(token.read().await.unwrap(), "first");
        std::fs::write(&file, "second").unwrap();
        assert_eq!(token.read().await.unwrap(), "second");
        std::fs::write(&file, vec![b'a'; MAX_BODY + 1]).unwrap();
        let e = token.read().await.unwrap_err();
        assert!(e.message.contains("larger than"), "{}", e.message);
        std::fs::write(&file, " \n").unwrap();
        assert!(token.read().await.unwrap_err().message.contains("empty"));
    }
}
