//! Where a sign-in's tokens live: one keychain entry per server URL (the OAuth resource), holding
//! rmcp's stored credentials as JSON, the issuer that minted them included (rmcp drops tokens
//! whose issuer is not today's). Never in the config, the database or a log line.

use std::sync::Arc;

use rmcp::transport::auth::{AuthError, CredentialStore, StoredCredentials};
use tokio::sync::Mutex;

use crate::error::Result;
use crate::secrets::SecretStore;
use crate::store::off_thread;

/// The keychain entry name for the tokens of the server at `url`.
pub fn entry_name(url: &str) -> String {
    format!("oauth:{url}")
}

/// A server's tokens in the keychain, read once and then kept in memory: every request asks for
/// the token, and the keychain can be slow (or wait on an unlock prompt).
#[derive(Clone)]
pub struct KeychainCredentials {
    store: Arc<dyn SecretStore>,
    name: String,
    /// `None`: not read yet; `Some(None)`: read, nothing stored.
    cached: Arc<Mutex<Option<Option<StoredCredentials>>>>,
}

impl KeychainCredentials {
    /// The tokens of the server at `url`.
    pub fn new(store: Arc<dyn SecretStore>, url: &str) -> Self {
        Self {
            store,
            name: entry_name(url),
            cached: Arc::default(),
        }
    }

    /// What the keychain holds, if anything.
    pub async fn stored(&self) -> Result<Option<StoredCredentials>> {
        let mut cached = self.cached.lock().await;
        if let Some(known) = &*cached {
            return Ok(known.clone());
        }
        let (store, name) = (self.store.clone(), self.name.clone());
        let text = off_thread(move || store.find(&name)).await?;
        // An entry that does not parse (an older format, a hand edit) is as good as none.
        let found = text.and_then(|t| serde_json::from_str(&t).ok());
        *cached = Some(found.clone());
        Ok(found)
    }

    /// Deletes the entry.
    pub async fn delete(&self) -> Result<()> {
        let mut cached = self.cached.lock().await;
        let (store, name) = (self.store.clone(), self.name.clone());
        off_thread(move || store.delete(&name)).await?;
        *cached = Some(None);
        Ok(())
    }

    async fn write(&self, credentials: StoredCredentials) -> Result<()> {
        let mut cached = self.cached.lock().await;
        let text = serde_json::to_string(&credentials).map_err(|e| {
            crate::error::Error::new(crate::error::ErrorCode::Internal, e.to_string())
        })?;
        let (store, name) = (self.store.clone(), self.name.clone());
        off_thread(move || store.set(&name, &text)).await?;
        *cached = Some(Some(credentials));
        Ok(())
    }
}

fn store_error(e: crate::error::Error) -> AuthError {
    AuthError::CredentialStoreError(e.message)
}

#[async_trait::async_trait]
impl CredentialStore for KeychainCredentials {
    async fn load(&self) -> std::result::Result<Option<StoredCredentials>, AuthError> {
        self.stored().await.map_err(store_error)
    }

    async fn save(&self, credentials: StoredCredentials) -> std::result::Result<(), AuthError> {
        self.write(credentials).await.map_err(store_error)
    }

    async fn clear(&self) -> std::result::Result<(), AuthError> {
        self.delete().await.map_err(store_error)
    }
}
