//! Signing in to a remote server and out again, for the app and the CLI alike.

use super::App;
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
        let url = remote_url(name, server)?;
        let challenge = match self.connect_to(name, server.clone(), &[], None).await {
            Ok(live) => {
                live.shutdown().await;
                return Ok(SignIn::NotNeeded);
            }
            Err(e) if e.challenge.is_some() => e.challenge,
            Err(e) => return Err(e),
        };
        self.sign_in_with(&url, challenge.as_deref(), server, authorizer)
            .await?;
        let live = self.connect_to(name, server.clone(), &[], None).await?;
        live.shutdown().await;
        Ok(SignIn::Done)
    }

    /// Signs in to the server at `url` with the `challenge` it sent (a 401 or a 403 asking for
    /// more scopes), without connecting first.
    pub async fn sign_in_with(
        &self,
        url: &str,
        challenge: Option<&str>,
        server: &ServerConfig,
        authorizer: &dyn Authorizer,
    ) -> Result<()> {
        let secrets = self.0.host.context().secrets.clone();
        let (oauth, store) = (server.oauth.clone(), secrets.clone());
        // The client secret is a keychain reference: read off the runtime.
        let identity =
            off_thread(move || ClientIdentity::from_config(oauth.as_ref(), store.as_ref())).await?;
        auth::sign_in(url, challenge, &identity, secrets, authorizer).await
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
