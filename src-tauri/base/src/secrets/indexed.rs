//! The keychain as the app and the CLI use it. The database names the entries Switchboard wrote
//! (never their values), so a lookup that usually finds nothing (a stored sign-in, a provider
//! key) does not open the keychain for an entry never written: a server that needs no secret
//! connects on a machine without a keychain, and a locked keyring is not asked to unlock for it.
//! When no keychain can be had, a sign-in is kept in memory for this run only (never written in
//! clear anywhere), and the problem is reported once for the window's banner or the CLI's stderr.

use std::sync::Arc;

use rusqlite::OptionalExtension;
use tokio::sync::watch;

use super::{MemoryStore, SecretStore};
use crate::error::{Error, Result};
use crate::store::Store;

/// The OS keychain behind an index of the entries Switchboard wrote.
pub struct IndexedKeychain {
    keychain: Arc<dyn SecretStore>,
    names: Arc<Store>,
    /// Sign-ins kept for this run because no keychain could store them.
    kept: MemoryStore,
    problem: watch::Sender<Option<Error>>,
}

/// What the index knows of one entry.
#[derive(Debug, PartialEq, Eq)]
enum Known {
    Stored,
    Absent,
    /// Written, perhaps, before the index existed.
    Unknown,
}

impl IndexedKeychain {
    /// The keychain `keychain`, its entries named in `names`.
    pub fn new(keychain: Arc<dyn SecretStore>, names: Arc<Store>) -> Self {
        Self {
            keychain,
            names,
            kept: MemoryStore::default(),
            problem: watch::Sender::new(missing_at_start()),
        }
    }

    /// Why no keychain can be had, once that is known (before any use, when there is no
    /// session bus to find one on).
    pub fn problem(&self) -> Option<Error> {
        self.problem.borrow().clone()
    }

    /// Follows [`IndexedKeychain::problem`].
    pub fn watch_problem(&self) -> watch::Receiver<Option<Error>> {
        self.problem.subscribe()
    }

    /// Whether a sign-in is held only in memory, for this run.
    pub fn keeps_sign_ins_for_this_run(&self) -> bool {
        !self.kept.is_empty()
    }

    fn known(&self, name: &str) -> Result<Known> {
        self.names.with(|c| {
            let complete: bool = c
                .query_row("SELECT complete FROM keychain_index", [], |r| r.get(0))
                .optional()?
                .unwrap_or(false);
            let stored: Option<bool> = c
                .query_row(
                    "SELECT stored FROM keychain_entries WHERE name = ?1",
                    [name],
                    |r| r.get(0),
                )
                .optional()?;
            Ok(match (stored, complete) {
                (Some(true), _) => Known::Stored,
                (Some(false), _) | (None, true) => Known::Absent,
                (None, false) => Known::Unknown,
            })
        })
    }

    fn record(&self, name: &str, stored: bool) {
        let recorded = self.names.with(|c| {
            c.execute(
                "INSERT INTO keychain_entries (name, stored) VALUES (?1, ?2)
                 ON CONFLICT (name) DO UPDATE SET stored = excluded.stored",
                rusqlite::params![name, stored],
            )
        });
        // The keychain did what was asked; a stale index costs one more lookup later.
        if let Err(e) = recorded {
            tracing::warn!(error = %e, "the keychain index was not updated");
        }
    }

    /// Notes that the keychain failed, for the banner, and hands the error on.
    fn failed(&self, e: Error) -> Error {
        self.problem.send_if_modified(|known| {
            let first = known.is_none();
            if first {
                *known = Some(e.clone());
            }
            first
        });
        e
    }
}

/// Sign-in tokens, and the key DPoP binds them to, may be kept for this run when the keychain
/// cannot store them; other secrets (a provider key, a server's token) would be lost silently, so
/// their saving fails.
fn kept_for_this_run(name: &str) -> bool {
    name.starts_with("oauth:") || name.starts_with("dpop:")
}

/// On Linux the Secret Service is found on the session bus: without one, there is no keychain,
/// and that is known without trying.
fn missing_at_start() -> Option<Error> {
    let no_bus =
        cfg!(target_os = "linux") && std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none();
    no_bus.then(|| {
        super::keychain_missing(
            "there is no desktop session bus (DBUS_SESSION_BUS_ADDRESS is not set)",
        )
    })
}

impl SecretStore for IndexedKeychain {
    fn set(&self, name: &str, value: &str) -> Result<()> {
        match self.keychain.set(name, value) {
            Ok(()) => {
                self.kept.delete(name)?;
                self.record(name, true);
                Ok(())
            }
            Err(e) if kept_for_this_run(name) => {
                let e = self.failed(e);
                tracing::warn!(
                    entry = name,
                    "no keychain ({}): kept for this run only",
                    e.message
                );
                self.kept.set(name, value)
            }
            Err(e) => Err(self.failed(e)),
        }
    }

    fn get(&self, name: &str) -> Result<Option<String>> {
        if let Some(value) = self.kept.get(name)? {
            return Ok(Some(value));
        }
        let found = self.keychain.get(name).map_err(|e| self.failed(e))?;
        self.record(name, found.is_some());
        Ok(found)
    }

    fn find(&self, name: &str) -> Result<Option<String>> {
        if let Some(value) = self.kept.get(name)? {
            return Ok(Some(value));
        }
        if self.known(name)? == Known::Absent {
            return Ok(None);
        }
        match self.keychain.get(name) {
            Ok(found) => {
                self.record(name, found.is_some());
                Ok(found)
            }
            // What may be there cannot be read: go on as if it were not (a server that needs
            // the sign-in says so), with the problem on the banner.
            Err(e) => {
                let e = self.failed(e);
                tracing::warn!(entry = name, "{}", e.message);
                Ok(None)
            }
        }
    }

    fn delete(&self, name: &str) -> Result<()> {
        self.kept.delete(name)?;
        if self.known(name)? == Known::Absent {
            return Ok(());
        }
        self.keychain.delete(name).map_err(|e| self.failed(e))?;
        self.record(name, false);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::error::ErrorCode;

    /// A keychain that counts how often it was opened, and can be made unreachable.
    #[derive(Default)]
    struct Counting {
        inner: MemoryStore,
        opened: Mutex<u32>,
        gone: Mutex<bool>,
    }

    impl Counting {
        fn open(&self) -> Result<()> {
            *self.opened.lock().unwrap() += 1;
            match *self.gone.lock().unwrap() {
                true => Err(super::super::keychain_missing("the test took it away")),
                false => Ok(()),
            }
        }
        fn opened(&self) -> u32 {
            *self.opened.lock().unwrap()
        }
    }

    impl SecretStore for Counting {
        fn set(&self, name: &str, value: &str) -> Result<()> {
            self.open()?;
            self.inner.set(name, value)
        }
        fn get(&self, name: &str) -> Result<Option<String>> {
            self.open()?;
            self.inner.get(name)
        }
        fn delete(&self, name: &str) -> Result<()> {
            self.open()?;
            self.inner.delete(name)
        }
    }

    fn indexed() -> (IndexedKeychain, Arc<Counting>, Arc<Store>) {
        let keychain = Arc::new(Counting::default());
        let store = Arc::new(Store::in_memory().unwrap());
        (
            IndexedKeychain::new(keychain.clone(), store.clone()),
            keychain,
            store,
        )
    }

    #[test]
    fn an_entry_never_written_is_not_looked_for() {
        let (secrets, keychain, _) = indexed();
        assert_eq!(secrets.find("oauth:https://example.com/mcp").unwrap(), None);
        secrets.delete("oauth:https://example.com/mcp").unwrap();
        assert_eq!(keychain.opened(), 0, "the keychain was opened for nothing");

        secrets
            .set("oauth:https://example.com/mcp", "tokens")
            .unwrap();
        assert_eq!(
            secrets
                .find("oauth:https://example.com/mcp")
                .unwrap()
                .as_deref(),
            Some("tokens")
        );
        secrets.delete("oauth:https://example.com/mcp").unwrap();
        let opened = keychain.opened();
        assert_eq!(secrets.find("oauth:https://example.com/mcp").unwrap(), None);
        assert_eq!(keychain.opened(), opened, "a deleted entry was looked for");
    }

    #[test]
    fn a_secret_the_config_names_is_always_asked_for() {
        // Written by the person with their own tool: the index cannot know it.
        let (secrets, keychain, _) = indexed();
        keychain.inner.set("my-token", "t").unwrap();
        assert_eq!(secrets.get("my-token").unwrap().as_deref(), Some("t"));
        assert_eq!(secrets.find("my-token").unwrap().as_deref(), Some("t"));
    }

    #[test]
    fn entries_from_before_the_index_are_looked_up_once_each() {
        let (secrets, keychain, store) = indexed();
        store
            .with(|c| c.execute("UPDATE keychain_index SET complete = 0", []))
            .unwrap();
        keychain.inner.set("provider:openai", "sk").unwrap();
        assert_eq!(
            secrets.find("provider:openai").unwrap().as_deref(),
            Some("sk")
        );
        assert_eq!(secrets.find("oauth:https://old.example/mcp").unwrap(), None);
        let opened = keychain.opened();
        assert_eq!(secrets.find("oauth:https://old.example/mcp").unwrap(), None);
        assert_eq!(
            keychain.opened(),
            opened,
            "an entry found absent was asked for again"
        );
    }

    #[test]
    fn without_a_keychain_a_sign_in_is_kept_for_this_run_and_other_secrets_fail() {
        let (secrets, keychain, _) = indexed();
        *keychain.gone.lock().unwrap() = true;
        secrets
            .set("oauth:https://example.com/mcp", "tokens")
            .unwrap();
        assert!(secrets.keeps_sign_ins_for_this_run());
        assert_eq!(
            secrets
                .find("oauth:https://example.com/mcp")
                .unwrap()
                .as_deref(),
            Some("tokens")
        );
        // The key DPoP binds those tokens to goes with them.
        secrets.set("dpop:https://example.com/mcp", "key").unwrap();
        assert_eq!(
            secrets
                .find("dpop:https://example.com/mcp")
                .unwrap()
                .as_deref(),
            Some("key")
        );
        let e = secrets.set("provider:openai", "sk").unwrap_err();
        assert_eq!(e.code, ErrorCode::Keychain);
        assert!(secrets.problem().is_some());
    }

    #[test]
    fn an_unreadable_keychain_is_an_absent_sign_in_and_a_reported_problem() {
        let (secrets, keychain, _) = indexed();
        secrets
            .set("oauth:https://example.com/mcp", "tokens")
            .unwrap();
        *keychain.gone.lock().unwrap() = true;
        assert_eq!(secrets.find("oauth:https://example.com/mcp").unwrap(), None);
        assert!(secrets.problem().is_some());
        assert_eq!(
            secrets
                .get("oauth:https://example.com/mcp")
                .unwrap_err()
                .code,
            ErrorCode::Keychain
        );
    }
}
