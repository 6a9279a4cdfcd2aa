//! Signing in to a remote server and out again, for the app and the CLI alike.

use tokio_util::sync::CancellationToken;

use super::App;
use super::requests::{NoArgs, ServerName};
use crate::auth::loopback::{Loopback, Open};
use crate::auth::{self, Authorizer, ClientIdentity};
use crate::config::ServerConfig;
use crate::error::{Error, ErrorCode, Result};
use crate::store::off_thread;

/// What signing in came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignIn {
    /// The person signed in; the tokens are in the keychain.
    Done,
    /// The server let Switchboard in without signing in (or with the tokens it already has).
    NotNeeded,
}

impl App {
    /// Signs in to remote server `name` defined by `server`: connects to learn what the server asks
    /// for (its 401 challenge), sends the person through `authorizer`, keeps the tokens in the
    /// keychain, and connects again to prove they work.
    pub async fn sign_in(
        &self,
        name: &str,
        server: &ServerConfig,
        authorizer: &dyn Authorizer,
    ) -> Result<SignIn> {
        self.admit(name, server)?;
        let url = remote_url(name, server)?;
        let challenge = match self.connect_to(name, server.clone(), &[], None).await {
            Ok(live) => {
                live.shutdown().await;
                return Ok(SignIn::NotNeeded);
            }
            Err(e) if e.challenge.is_some() => e.challenge,
            Err(e) => return Err(e),
        };
        self.sign_in_with(name, &url, challenge.as_deref(), server, authorizer)
            .await?;
        let live = self.connect_to(name, server.clone(), &[], None).await?;
        live.shutdown().await;
        Ok(SignIn::Done)
    }

    /// Signs in to remote server `name` asking for `scopes` (space-separated), without
    /// connecting first: how the CLI gets more access after a 403 named the scopes.
    pub async fn sign_in_for_scopes(
        &self,
        name: &str,
        server: &ServerConfig,
        scopes: &str,
        authorizer: &dyn Authorizer,
    ) -> Result<()> {
        self.admit(name, server)?;
        let url = remote_url(name, server)?;
        let challenge = auth::scope_challenge(scopes)?;
        self.sign_in_with(name, &url, Some(&challenge), server, authorizer)
            .await
    }

    /// Signs in to the server at `url` with the `challenge` it sent (a 401 or a 403 asking for
    /// more scopes), without connecting first.
    pub async fn sign_in_with(
        &self,
        name: &str,
        url: &str,
        challenge: Option<&str>,
        server: &ServerConfig,
        authorizer: &dyn Authorizer,
    ) -> Result<()> {
        let secrets = self.0.host.context().secrets.clone();
        let (oauth, store, name) = (server.oauth.clone(), secrets.clone(), name.to_owned());
        // The client secret is a keychain reference: read off the runtime.
        let identity =
            off_thread(move || ClientIdentity::from_config(oauth.as_ref(), store.as_ref(), &name))
                .await?;
        auth::sign_in(url, challenge, &identity, secrets, authorizer).await
    }

    /// The desktop's Sign in: signs in to configured server `args.server` with the challenge its
    /// server last sent (a 401 refusing the connection, or a 403 asking for more scopes), the
    /// browser opened by `open`, then (re)starts the server with the new tokens.
    pub async fn sign_in_server(&self, args: ServerName, open: Open) -> Result<()> {
        let (server, challenge) = self.sign_in_target(&args.server)?;
        self.admit(&args.server, &server)?;
        let url = remote_url(&args.server, &server)?;
        let cancel = CancellationToken::new();
        if let Some(earlier) = self.sign_in_slot().replace(cancel.clone()) {
            // One browser sign-in at a time: a new one replaces one left waiting.
            earlier.cancel();
        }
        let loopback = Loopback::bind(open, cancel).await?;
        let signed = self
            .sign_in_with(&args.server, &url, challenge.as_deref(), &server, &loopback)
            .await;
        self.sign_in_slot().take();
        signed?;
        // Restarted even when running (a sign-in for more access): the running connection
        // holds the tokens it started with. Resolves once the new one is up, so the window can
        // repeat what needed the sign-in.
        let startup = server
            .request_timeout()
            .max(crate::connection::MIN_STARTUP_TIMEOUT);
        let handle = self.0.host.servers().get(&args.server)?;
        handle.restart_and_wait(startup).await.map(drop)
    }

    /// Stops waiting for the browser.
    pub fn cancel_sign_in(&self, _: NoArgs) -> Result<()> {
        if let Some(waiting) = self.sign_in_slot().take() {
            waiting.cancel();
        }
        Ok(())
    }

    /// The desktop's Sign out: deletes the server's tokens and restarts it (it then asks for
    /// sign-in again).
    pub async fn sign_out_server(&self, args: ServerName) -> Result<()> {
        let server = self.configured_server(&args.server)?;
        self.sign_out(&args.server, &server).await?;
        self.0.host.servers().get(&args.server)?.restart().await
    }

    /// The sign-in the keychain holds for remote server `args.server` (`None`: not signed in).
    pub async fn sign_in_info(&self, args: ServerName) -> Result<Option<auth::SignInInfo>> {
        let server = self.configured_server(&args.server)?;
        let url = remote_url(&args.server, &server)?;
        auth::signed_in(&url, self.0.host.context().secrets.clone()).await
    }

    fn sign_in_target(&self, name: &str) -> Result<(ServerConfig, Option<String>)> {
        let server = self.configured_server(name)?;
        // What the server last asked for: a 401's challenge, or a 403's naming more scopes.
        let challenge = match self.0.host.servers().get(name)?.state() {
            crate::servers::ServerState::Failed { error } => error.challenge,
            crate::servers::ServerState::Running { connection, .. } => connection.scope_challenge(),
            _ => None,
        };
        Ok((server, challenge))
    }

    fn sign_in_slot(&self) -> std::sync::MutexGuard<'_, Option<CancellationToken>> {
        // Only ever held for a swap: a poisoned lock holds no broken state.
        self.0
            .sign_in
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Deletes the tokens of remote server `name`.
    pub async fn sign_out(&self, name: &str, server: &ServerConfig) -> Result<()> {
        let url = remote_url(name, server)?;
        auth::sign_out(&url, self.0.host.context().secrets.clone()).await
    }
}

fn remote_url(name: &str, server: &ServerConfig) -> Result<String> {
    server.url.clone().ok_or_else(|| {
        Error::new(
            ErrorCode::InvalidInput,
            format!("server {name:?} is not a remote server: only servers with a url sign in"),
        )
    })
}
