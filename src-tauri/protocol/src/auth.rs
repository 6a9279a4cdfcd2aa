//! Signing in to remote servers that require it (MCP authorization: OAuth 2.1 with PKCE).
//!
//! The protocol pieces come from rmcp's `auth` feature, chosen over the `oauth2` crate it builds
//! on because it already does the MCP-specific parts: protected-resource metadata from the
//! `WWW-Authenticate` challenge or the well-known paths, authorization-server metadata (RFC 8414 and
//! OpenID, path-inserted forms, the 2025-03-26 fallbacks), pre-registered clients, client ID
//! metadata documents and dynamic registration, PKCE S256 (refused here when the metadata does not list it), RFC 8707
//! resource indicators, scope selection, refresh, the RFC 9207 `iss` check, and metadata requests
//! that refuse private and loopback addresses unless the server is on one. This module owns what
//! it leaves to the host: tokens in the keychain ([`credentials`]), the person's step in the
//! browser ([`Authorizer`], [`loopback`]), and a bound on how often one operation may ask again.

mod account;
mod challenge;
mod credentials;
pub mod dpop;
pub mod loopback;
mod machine;

use std::sync::Arc;

use rmcp::transport::auth::{
    AuthClient, AuthError, AuthorizationManager, AuthorizationMetadata, AuthorizationRequest,
    AuthorizationSession,
};

pub use account::SignInInfo;
pub use challenge::{challenge_scopes, with_scopes_kept};
pub use credentials::KeychainCredentials;
pub use dpop::resource_requests::ResourceRequests;
pub use machine::{Enterprise, IssuedToken, MachineGrant};

use crate::config::OAuthGrant;
use crate::error::{Error, ErrorCode, Result};
use crate::secrets::{self, SecretStore};

/// The name Switchboard registers itself under with authorization servers.
pub const CLIENT_NAME: &str = "Switchboard";

/// How many times one operation may send the person to sign in (a first sign-in plus asking for
/// more scopes) before it gives up: a server that keeps asking for more is not asked again.
pub const MAX_AUTHORIZATIONS: u32 = 3;

/// The HTTP client remote transports use: redirects only within the server's origin (a
/// cross-origin redirect would carry the bearer token elsewhere).
pub fn http_client() -> Result<reqwest::Client> {
    reqwest::Client::builder()
        .redirect(crate::transport::same_origin_redirects())
        .build()
        .map_err(|e| Error::new(ErrorCode::Internal, format!("HTTP client: {e}")))
}

/// The person's step: sending them to the authorization URL and catching the redirect back.
#[async_trait::async_trait]
pub trait Authorizer: Send + Sync {
    /// Where the authorization server sends the browser back to.
    fn redirect_uri(&self) -> String;
    /// Sends the person to `authorization_url` and returns the URL they were redirected back to
    /// (with `code`, `state` and perhaps `iss`).
    async fn authorize(&self, authorization_url: &str) -> Result<String>;
}

/// How Switchboard identifies itself to one server's authorization server, from the server's
/// config: a pre-registered client, a client ID metadata document, or (neither given) dynamic
/// registration; or, for a machine grant, how the client signs in with no person present.
#[derive(Clone, Default)]
pub struct ClientIdentity {
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    pub client_metadata_url: Option<String>,
    /// Set for a machine grant: signing in then needs no person.
    pub machine: Option<MachineGrant>,
    /// Scopes a machine grant asks for beyond those the server names.
    pub scope: Option<String>,
    /// Whether tokens are bound to a key of Switchboard's own (DPoP) even when the server's
    /// challenge does not name that scheme.
    pub dpop: bool,
}

impl std::fmt::Debug for ClientIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The secret never reaches a log line.
        f.debug_struct("ClientIdentity")
            .field("client_id", &self.client_id)
            .field(
                "client_secret",
                &self.client_secret.as_ref().map(|_| "[redacted]"),
            )
            .field("client_metadata_url", &self.client_metadata_url)
            .field("machine", &self.machine)
            .finish()
    }
}

impl ClientIdentity {
    /// The identity server `server`'s `oauth` config gives, its secret read from the keychain.
    pub fn from_config(
        config: Option<&crate::config::OAuthClient>,
        store: &dyn SecretStore,
        server: &str,
    ) -> Result<Self> {
        let Some(c) = config else {
            return Ok(Self::default());
        };
        let expand = |v: Option<&String>| v.map(|s| secrets::expand(s, store, server)).transpose();
        let secret = expand(c.client_secret.as_ref())?;
        let machine = match c.grant {
            OAuthGrant::AuthorizationCode => None,
            OAuthGrant::ClientCredentials => Some(client_credentials(
                c,
                secret.clone(),
                expand(c.private_key.as_ref())?,
            )?),
            OAuthGrant::JwtBearer => Some(MachineGrant::Workload {
                client_id: c.client_id.clone(),
                token: issued_token(c, expand(c.assertion.as_ref())?)?,
            }),
            OAuthGrant::EnterpriseManaged => Some(enterprise(
                c,
                secret.clone(),
                expand(c.assertion.as_ref())?,
            )?),
        };
        Ok(Self {
            client_id: c.client_id.clone(),
            client_secret: secret,
            client_metadata_url: c.client_metadata_url.clone(),
            machine,
            scope: c.scope.clone(),
            dpop: c.dpop,
        })
    }

    fn request(&self, redirect_uri: String, challenge: Option<&str>) -> AuthorizationRequest {
        let mut request = AuthorizationRequest::new(redirect_uri)
            .with_initial_scope_selection()
            .with_client_name(CLIENT_NAME);
        if let Some(challenge) = challenge {
            request = request.with_challenge(challenge);
        }
        if let Some(id) = &self.client_id {
            request = request.with_preregistered_client(id);
            if let Some(secret) = &self.client_secret {
                request = request.with_client_secret(secret);
            }
        }
        if let Some(url) = &self.client_metadata_url {
            request = request.with_client_metadata_url(url);
        }
        request
    }
}

/// Signs in to the server at `url`: discovery from `challenge` (the server's `WWW-Authenticate`),
/// registration, the person's step through `authorizer`, and the token exchange; or, for a
/// machine grant, the token request alone ([`sign_in_unattended`]). The tokens go to the
/// keychain, where the server's connections find them.
pub async fn sign_in(
    url: &str,
    challenge: Option<&str>,
    identity: &ClientIdentity,
    store: Arc<dyn SecretStore>,
    authorizer: &dyn Authorizer,
) -> Result<()> {
    if identity.machine.is_some() {
        return sign_in_unattended(url, challenge, identity, store).await;
    }
    let credentials = KeychainCredentials::new(store.clone(), url);
    // Asking for more access keeps what was granted (SEP-2350): the new token replaces the old.
    let granted = match credentials.stored().await {
        Ok(Some(stored)) => stored.granted_scopes,
        _ => Vec::new(),
    };
    let widened = challenge.map(|c| with_scopes_kept(c, &granted));
    let challenge = widened.as_deref();
    // Tokens are bound when the server's challenge asks for DPoP, or the settings do.
    let dpop = match identity.dpop || challenge.is_some_and(dpop::challenge_names_dpop) {
        true => Some(dpop::Dpop::stored_or_new(store.clone(), url).await?),
        false => None,
    };
    let mut manager = manager_for(url, dpop).await?;
    manager.set_credential_store(credentials);
    let metadata = match manager.resolve_metadata_from_challenge(challenge).await {
        // The 2025-03-26 default endpoints: no document to read PKCE support from; that
        // revision requires PKCE of every server, and the challenge is sent.
        Ok(found) if !found.source.is_discovered() => found.metadata,
        Ok(found) => require_pkce(found.metadata)?,
        Err(AuthError::AuthorizationServerMismatch { .. }) => {
            require_pkce(origin_metadata(url).await?)?
        }
        Err(e) => return Err(failed(e)),
    };
    manager.set_metadata(metadata);
    let request = identity.request(authorizer.redirect_uri(), challenge);
    let session = AuthorizationSession::new(manager, request)
        .await
        .map_err(|(_, e)| failed(e))?;
    let redirected = authorizer
        .authorize(session.get_authorization_url())
        .await?;
    session
        .handle_callback_url(&redirected)
        .await
        .map_err(failed)?;
    tracing::info!(%url, "signed in");
    Ok(())
}

/// Signs in with `identity`'s machine grant, with no person present (an error when it has none).
pub async fn sign_in_unattended(
    url: &str,
    challenge: Option<&str>,
    identity: &ClientIdentity,
    store: Arc<dyn SecretStore>,
) -> Result<()> {
    let Some(grant) = &identity.machine else {
        return Err(Error::new(
            ErrorCode::AuthRequired,
            "this server needs a person to sign in",
        ));
    };
    machine::sign_in(url, challenge, grant, identity.scope.as_deref(), store).await
}

fn client_credentials(
    c: &crate::config::OAuthClient,
    secret: Option<String>,
    key: Option<String>,
) -> Result<MachineGrant> {
    let Some(client_id) = c.client_id.clone() else {
        return Err(misconfigured("`clientCredentials` needs `clientId`"));
    };
    match (secret, key) {
        (Some(secret), None) => Ok(MachineGrant::Secret { client_id, secret }),
        (None, Some(pem)) => Ok(MachineGrant::PrivateKey {
            client_id,
            pem,
            algorithm: machine::signing_algorithm(c.signing_algorithm.as_deref())?,
        }),
        _ => Err(misconfigured(
            "`clientCredentials` needs exactly one of `clientSecret` and `privateKey`",
        )),
    }
}

fn issued_token(c: &crate::config::OAuthClient, given: Option<String>) -> Result<IssuedToken> {
    match (given, &c.assertion_file) {
        (Some(given), _) => Ok(IssuedToken::Given(given)),
        (None, Some(file)) => Ok(IssuedToken::File(file.into())),
        (None, None) => Err(misconfigured(
            "a machine grant needs `assertion` or `assertionFile`",
        )),
    }
}

fn enterprise(
    c: &crate::config::OAuthClient,
    secret: Option<String>,
    given: Option<String>,
) -> Result<MachineGrant> {
    let needed = |v: &Option<String>, field: &str| {
        v.clone()
            .ok_or_else(|| misconfigured(&format!("`enterpriseManaged` needs `{field}`")))
    };
    Ok(MachineGrant::Enterprise(Box::new(Enterprise {
        idp_issuer: needed(&c.idp_issuer, "idpIssuer")?,
        idp_token_endpoint: needed(&c.idp_token_endpoint, "idpTokenEndpoint")?,
        idp_client_id: needed(&c.idp_client_id, "idpClientId")?,
        client_id: needed(&c.client_id, "clientId")?,
        secret,
        id_token: issued_token(c, given)?,
    })))
}

fn misconfigured(why: &str) -> Error {
    Error::new(
        ErrorCode::ConfigInvalid,
        format!("the server's `oauth` settings: {why}"),
    )
}

/// `metadata`, if it lists `S256` among its PKCE methods. MCP clients must refuse an
/// authorization server whose metadata does not list `S256` in
/// `code_challenge_methods_supported` (an absent list means it does not support PKCE): without
/// PKCE a stolen authorization code can be exchanged by whoever holds it.
fn require_pkce(metadata: AuthorizationMetadata) -> Result<AuthorizationMetadata> {
    let methods = metadata.code_challenge_methods_supported.as_deref();
    if methods.is_some_and(|m| m.iter().any(|m| m == "S256")) {
        return Ok(metadata);
    }
    let said = match methods {
        None => "does not say it supports PKCE".to_owned(),
        Some(m) => format!(
            "supports PKCE only with {}",
            crate::visible::reveal(&m.join(", "))
        ),
    };
    Err(Error::new(
        ErrorCode::AuthFailed,
        format!(
            "signing in failed: the authorization server {} {said}; MCP requires PKCE with \
             S256, so Switchboard does not sign in there",
            crate::visible::reveal(
                metadata
                    .issuer
                    .as_deref()
                    .unwrap_or(&metadata.authorization_endpoint)
            )
        ),
    ))
}

/// A challenge asking for `scopes` (space-separated scope tokens, RFC 6749 §3.3), as a server
/// would send it, for signing in with those scopes.
pub fn scope_challenge(scopes: &str) -> Result<String> {
    let valid = |s: &str| {
        s.chars()
            .all(|c| c.is_ascii_graphic() && c != '"' && c != '\\')
    };
    let tokens: Vec<&str> = scopes.split_whitespace().collect();
    if tokens.is_empty() || !tokens.iter().all(|s| valid(s)) {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            format!("not a list of scopes: {scopes:?}"),
        ));
    }
    Ok(format!("Bearer scope=\"{}\"", tokens.join(" ")))
}

/// The 2025-03-26 way: authorization-server metadata at the MCP server's own origin, whose
/// `issuer` may carry a path (RFC 8414 would have it match the URL it came from, which is why
/// rmcp refuses it). Accepted only when the issuer and both endpoints are on the server's origin,
/// so the server vouches only for itself.
async fn origin_metadata(url: &str) -> Result<AuthorizationMetadata> {
    let failed =
        |why: String| Error::new(ErrorCode::AuthFailed, format!("signing in failed: {why}"));
    let server = url::Url::parse(url).map_err(|e| failed(e.to_string()))?;
    let at = server
        .join("/.well-known/oauth-authorization-server")
        .map_err(|e| failed(e.to_string()))?;
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(std::time::Duration::from_secs(30))
        .build()
        .map_err(|e| failed(e.to_string()))?;
    let response = http
        .get(at.clone())
        .send()
        .await
        .map_err(|e| failed(format!("{at}: {e}")))?;
    if !response.status().is_success() {
        return Err(failed(format!("{at}: {}", response.status())));
    }
    let body = body_within(response, MAX_METADATA)
        .await
        .map_err(|e| match e {
            Some(e) => failed(format!("{at}: {e}")),
            None => failed(format!("{at}: larger than {MAX_METADATA} bytes")),
        })?;
    let metadata: AuthorizationMetadata =
        serde_json::from_slice(&body).map_err(|e| failed(format!("{at}: {e}")))?;
    let on_origin = |u: Option<&str>| {
        u.and_then(|u| url::Url::parse(u).ok())
            .is_some_and(|u| u.origin() == server.origin())
    };
    if !(on_origin(metadata.issuer.as_deref())
        && on_origin(Some(&metadata.authorization_endpoint))
        && on_origin(Some(&metadata.token_endpoint)))
    {
        return Err(failed(format!(
            "the authorization server metadata at {at} names another origin"
        )));
    }
    Ok(metadata)
}

/// `response`'s body, read to at most `max` bytes: `Err(None)` when it is longer, `Err(Some(e))`
/// when reading it failed. An authorization server's answer is never read without a bound.
async fn body_within(
    mut response: reqwest::Response,
    max: usize,
) -> std::result::Result<Vec<u8>, Option<reqwest::Error>> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(Some)? {
        body.extend_from_slice(&chunk);
        if body.len() > max {
            return Err(None);
        }
    }
    Ok(body)
}

/// Largest authorization-server metadata document read.
const MAX_METADATA: usize = 1024 * 1024;

/// The OAuth state of a sign-in to `url`: rmcp's own HTTP client, or, for tokens bound to
/// `dpop`, one that signs the token requests.
async fn manager_for(url: &str, dpop: Option<Arc<dpop::Dpop>>) -> Result<AuthorizationManager> {
    let Some(dpop) = dpop else {
        return AuthorizationManager::new(url).await.map_err(failed);
    };
    let parsed = url::Url::parse(url)
        .map_err(|e| Error::new(ErrorCode::InvalidInput, format!("{url}: {e}")))?;
    let requests = dpop::token_requests::TokenRequests::new(&parsed, dpop)?;
    AuthorizationManager::new_with_oauth_http_client(url, Arc::new(requests))
        .await
        .map_err(failed)
}

/// Whether stored tokens are DPoP-bound (`token_type` `DPoP`, RFC 9449 §5).
fn is_dpop_bound(stored: &rmcp::transport::auth::StoredCredentials) -> bool {
    stored.token_response.as_ref().is_some_and(|t| {
        use oauth2::TokenResponse;
        t.token_type().as_ref().eq_ignore_ascii_case("dpop")
    })
}

/// Deletes what signing in to `url` stored: the tokens and the key they are bound to.
pub async fn sign_out(url: &str, store: Arc<dyn SecretStore>) -> Result<()> {
    KeychainCredentials::new(store.clone(), url)
        .delete()
        .await?;
    dpop::Dpop::delete(store, url).await
}

/// The sign-in the keychain holds for `url`, as the person may see it.
pub async fn signed_in(url: &str, store: Arc<dyn SecretStore>) -> Result<Option<SignInInfo>> {
    Ok(KeychainCredentials::new(store, url)
        .stored()
        .await?
        .as_ref()
        .map(SignInInfo::of))
}

/// A remote transport's HTTP client that sends the stored token of an earlier sign-in
/// (refreshing it when due, and once more on a 401).
#[derive(Clone)]
pub struct Authorized {
    inner: AuthClient<ResourceRequests>,
}

impl Authorized {
    /// The client for the server at `url` when the keychain holds a sign-in for it; `None`
    /// otherwise (the transport then sends no token, and a server that wants one says so).
    pub async fn stored(url: &url::Url, store: Arc<dyn SecretStore>) -> Result<Option<Self>> {
        let credentials = KeychainCredentials::new(store.clone(), url.as_str());
        let Some(stored) = credentials.stored().await? else {
            return Ok(None);
        };
        let dpop = match is_dpop_bound(&stored) {
            true => match dpop::Dpop::stored(store, url.as_str()).await? {
                Some(key) => Some(key),
                // Bound tokens without their key are no use: the server asks to sign in again.
                None => {
                    tracing::warn!(%url, "DPoP-bound tokens without their key");
                    return Ok(None);
                }
            },
            false => None,
        };
        let mut manager = manager_for(url.as_str(), dpop.clone()).await?;
        manager.set_credential_store(credentials);
        // Finds the authorization server again (for refresh) and drops tokens an issuer other
        // than today's minted.
        if let Err(e) = manager.initialize_from_store().await {
            tracing::warn!(%url, "stored sign-in unusable: {e}");
        }
        let requests = ResourceRequests::new(http_client()?, dpop);
        Ok(Some(Self {
            inner: AuthClient::new(requests, manager),
        }))
    }

    /// The client rmcp's Streamable HTTP transport sends through.
    pub fn transport_client(&self) -> AuthClient<ResourceRequests> {
        self.inner.clone()
    }
}

fn failed(e: AuthError) -> Error {
    match e {
        AuthError::AuthorizationRequired => Error::new(ErrorCode::AuthRequired, e.to_string()),
        AuthError::CredentialStoreError(why) => Error::new(ErrorCode::Keychain, why),
        _ => Error::new(ErrorCode::AuthFailed, format!("signing in failed: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use super::*;

    /// A loopback HTTP server answering every request with `respond(port)`; returns its port.
    fn serve(respond: impl Fn(u16) -> String + Send + 'static) -> u16 {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        std::thread::spawn(move || {
            for mut stream in listener.incoming().flatten() {
                let _ = stream.read(&mut [0u8; 8192]);
                let _ = stream.write_all(respond(port).as_bytes());
            }
        });
        port
    }

    fn json(body: String) -> String {
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
    }

    #[test]
    fn a_client_secret_never_reaches_a_debug_line() {
        let identity = ClientIdentity {
            client_id: Some("switchboard".into()),
            client_secret: Some("canary-secret-value".into()),
            machine: Some(MachineGrant::Secret {
                client_id: "switchboard".into(),
                secret: "canary-secret-value".into(),
            }),
            ..Default::default()
        };
        let shown = format!("{identity:?}");
        assert!(!shown.contains("canary-secret-value"), "{shown}");
        assert!(
            shown.contains("switchboard") && shown.contains("[redacted]"),
            "{shown}"
        );
    }

    #[test]
    fn a_scope_challenge_takes_only_scope_tokens() {
        assert_eq!(
            scope_challenge(" a  b:c ").unwrap(),
            r#"Bearer scope="a b:c""#
        );
        for bad in ["", "a\"b", "a\\b", "é"] {
            assert_eq!(
                scope_challenge(bad).unwrap_err().code,
                ErrorCode::InvalidInput,
                "{bad:?}"
            );
        }
    }

    #[tokio::test]
    async fn the_transport_client_never_follows_a_redirect_to_another_origin() {
        let elsewhere = serve(|_| json("{}".into()));
        let port = serve(move |_| {
            format!(
                "HTTP/1.1 307 Temporary Redirect\r\nLocation: http://127.0.0.1:{elsewhere}/mcp\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            )
        });
        let response = http_client()
            .unwrap()
            .post(format!("http://127.0.0.1:{port}/mcp"))
            .bearer_auth("secret-token")
            .send()
            .await
            .unwrap();
        // Stopped at the redirect: the token never reached the other origin.
        assert_eq!(response.status(), 307);
    }

    #[tokio::test]
    async fn origin_metadata_naming_another_origin_is_refused() {
        let fine = serve(|port| {
            let base = format!("http://127.0.0.1:{port}");
            json(format!(
                r#"{{"issuer":"{base}/oauth","authorization_endpoint":"{base}/oauth/authorize","token_endpoint":"{base}/oauth/token"}}"#
            ))
        });
        let metadata = origin_metadata(&format!("http://127.0.0.1:{fine}/mcp"))
            .await
            .unwrap();
        assert!(metadata.token_endpoint.ends_with("/oauth/token"));
        let hostile = serve(|port| {
            let base = format!("http://127.0.0.1:{port}");
            json(format!(
                r#"{{"issuer":"{base}/oauth","authorization_endpoint":"{base}/oauth/authorize","token_endpoint":"https://evil.example/token"}}"#
            ))
        });
        let e = origin_metadata(&format!("http://127.0.0.1:{hostile}/mcp"))
            .await
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::AuthFailed);
        assert!(e.message.contains("another origin"), "{}", e.message);
    }
}
