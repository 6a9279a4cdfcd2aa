//! Secrets live only in the OS keychain (`keyring` with its real platform backends). Config files
//! hold references of the form `${secret:NAME}`; they are resolved when a server starts.
//! [`IndexedKeychain`] is the keychain as the app uses it: opened only when a secret is needed.

mod indexed;

pub use indexed::IndexedKeychain;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::error::{Error, ErrorCode, Result};

/// The keychain service name under which every Switchboard secret is stored.
pub const KEYCHAIN_SERVICE: &str = "switchboard";

/// Where secrets are kept. The app and CLI use [`Keychain`]; the trait lets tests of code that
/// merely *uses* secrets inject a store, while the keychain itself is tested for real.
pub trait SecretStore: Send + Sync {
    /// Stores `value` under `name`, replacing any previous value.
    fn set(&self, name: &str, value: &str) -> Result<()>;
    /// Reads the value stored under `name`; `Ok(None)` when there is none.
    fn get(&self, name: &str) -> Result<Option<String>>;
    /// Removes `name`; removing a missing entry is not an error.
    fn delete(&self, name: &str) -> Result<()>;
    /// Reads `name` for a lookup that usually finds nothing (a stored sign-in, a provider key):
    /// a store that knows which entries exist answers `None` for one never written without
    /// opening the keychain, and one that cannot be read counts as absent.
    fn find(&self, name: &str) -> Result<Option<String>> {
        self.get(name)
    }
}

/// The OS keychain: Secret Service on Linux, Keychain on macOS, Credential Manager on Windows.
#[derive(Debug, Clone)]
pub struct Keychain {
    service: String,
}

impl Default for Keychain {
    fn default() -> Self {
        Self {
            service: KEYCHAIN_SERVICE.to_owned(),
        }
    }
}

impl Keychain {
    /// A keychain view under a custom service name (tests use a unique one).
    pub fn with_service(service: impl Into<String>) -> Self {
        Self {
            service: service.into(),
        }
    }

    /// `op` on entry `name`, within [`KEYCHAIN_WAIT`].
    fn on_entry<T: Send + 'static>(
        &self,
        name: &str,
        op: impl FnOnce(&keyring::Entry) -> keyring::Result<T> + Send + 'static,
    ) -> Result<keyring::Result<T>> {
        let (service, name) = (self.service.clone(), name.to_owned());
        within_turn(KEYCHAIN_WAIT, move || {
            keyring::Entry::new(&service, &name).and_then(|entry| op(&entry))
        })
    }
}

/// How long one keychain operation may take: time to answer an unlock prompt, but not forever
/// for a Secret Service that took the connection and never answers (the D-Bus library gives a
/// call no time limit of its own).
const KEYCHAIN_WAIT: Duration = Duration::from_secs(30);

/// `op`'s answer, run on a thread of its own, or the keychain's error once `wait` has passed
/// without one (the thread is left to finish or hang on its own).
fn within<T: Send + 'static>(wait: Duration, op: impl FnOnce() -> T + Send + 'static) -> Result<T> {
    let (answer, answered) = std::sync::mpsc::sync_channel(1);
    std::thread::Builder::new()
        .name("keychain".to_owned())
        .spawn(move || {
            let _ = answer.send(op());
        })
        .map_err(|e| keychain_missing(&e.to_string()))?;
    answered.recv_timeout(wait).map_err(|_| {
        keychain_missing(&format!(
            "the Secret Service did not answer within {} s",
            wait.as_secs()
        ))
    })
}

/// Which keychain operation has the Secret Service, if one has: ours go there one at a time.
/// Each opens a connection and a session of its own, and gnome-keyring (42 to 50 at least) can
/// abort on a burst of sessions opened at once (upstream: a client record missing for a new
/// caller, `gkd_secret_service_get_pkcs11_session: assertion 'client' failed`); the desktop's
/// keyring then starts again locked and asks the person to unlock it. Seen in CI: `trap int3`
/// in the daemon, in `libglib`, during the app's end-to-end run.
static TURN: Mutex<Option<u64>> = Mutex::new(None);
static TURN_FREED: Condvar = Condvar::new();
static NEXT_TURN: AtomicU64 = AtomicU64::new(0);

/// [`within`], with `op` waiting for its turn at the Secret Service first. An operation that
/// never answers holds the turn only until its caller gives up on it.
fn within_turn<T: Send + 'static>(
    wait: Duration,
    op: impl FnOnce() -> T + Send + 'static,
) -> Result<T> {
    let id = NEXT_TURN.fetch_add(1, Ordering::Relaxed);
    let deadline = Instant::now() + wait;
    let answer = within(wait, move || {
        take_turn(id, deadline).then(|| {
            let answer = op();
            end_turn(id);
            answer
        })
    });
    if answer.is_err() {
        end_turn(id);
    }
    answer?.ok_or_else(|| {
        keychain_missing(&format!(
            "another keychain operation held the Secret Service for {} s",
            wait.as_secs()
        ))
    })
}

/// Waits until no operation has the turn, then takes it for `id`; false once `deadline` passes.
fn take_turn(id: u64, deadline: Instant) -> bool {
    let mut turn = TURN.lock().unwrap_or_else(PoisonError::into_inner);
    while turn.is_some() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return false;
        }
        turn = TURN_FREED
            .wait_timeout(turn, left)
            .unwrap_or_else(PoisonError::into_inner)
            .0;
    }
    *turn = Some(id);
    true
}

/// Gives the turn up if `id` has it.
fn end_turn(id: u64) {
    let mut turn = TURN.lock().unwrap_or_else(PoisonError::into_inner);
    if *turn == Some(id) {
        *turn = None;
        TURN_FREED.notify_one();
    }
}

fn keychain_error(e: keyring::Error) -> Error {
    keychain_missing(&e.to_string())
}

/// What to do when the keychain cannot be opened, said once for every place that needs it.
pub const KEYCHAIN_FIX: &str = "start a Secret Service such as gnome-keyring or KeePassXC and \
     unlock it, or give the value another way: write ${env:NAME} in its place in the \
     configuration and set NAME in the environment Switchboard starts from";

/// The keychain could not be opened; `why` is what the platform said.
pub fn keychain_missing(why: &str) -> Error {
    Error::new(
        ErrorCode::Keychain,
        format!(
            "The OS keychain could not be opened, so secrets can be neither read nor saved: \
             {KEYCHAIN_FIX}."
        ),
    )
    .with_details(why)
}

impl SecretStore for Keychain {
    fn set(&self, name: &str, value: &str) -> Result<()> {
        let value = value.to_owned();
        self.on_entry(name, move |entry| entry.set_password(&value))?
            .map_err(keychain_error)
    }

    fn get(&self, name: &str) -> Result<Option<String>> {
        match self.on_entry(name, keyring::Entry::get_password)? {
            Ok(v) => Ok(Some(v)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(keychain_error(e)),
        }
    }

    fn delete(&self, name: &str) -> Result<()> {
        match self.on_entry(name, keyring::Entry::delete_credential)? {
            Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
            Err(e) => Err(keychain_error(e)),
        }
    }
}

/// Builds the reference text that stands in a config file for the secret `name`.
pub fn reference(name: &str) -> String {
    format!("${{secret:{name}}}")
}

/// Keychain entries Switchboard manages for itself: provider keys, sign-in tokens and every
/// server's own secrets. A definition reads only its own server's entries among them.
const RESERVED: [&str; 3] = ["provider:", "oauth:", "server/"];

/// Whether server `server`'s definition may read keychain entry `name`: its own entries
/// (`server/<server>/…`, where import and the server form put them), imported inputs (`input/…`)
/// and entries the user named themselves, never a provider key, a sign-in token or another
/// server's secret.
///
/// The owner is the whole segment after `server/`: a server named `vault/env` (a name the config
/// refuses) owns nothing of `vault`'s `server/vault/env/…`.
pub fn readable_by(name: &str, server: &str) -> bool {
    let own = name
        .strip_prefix("server/")
        .and_then(|rest| rest.split_once('/'))
        .is_some_and(|(owner, _)| owner == server);
    own || !RESERVED.iter().any(|prefix| name.starts_with(prefix))
}

/// Expands `${secret:NAME}` and `${env:VAR}` references in server `server`'s `value`. A missing
/// secret is an error naming it, and so is one the server may not read ([`readable_by`]); a
/// missing environment variable expands to the empty string, as other hosts do.
pub fn expand(value: &str, store: &dyn SecretStore, server: &str) -> Result<String> {
    expand_in(value, store, server, &|var| std::env::var(var).ok())
}

/// [`expand`] with `${env:VAR}` read from `env`.
pub fn expand_in(
    value: &str,
    store: &dyn SecretStore,
    server: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<String> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let inner = &after[..end];
        if let Some(name) = inner.strip_prefix("secret:") {
            if !readable_by(name, server) {
                return Err(Error::new(
                    ErrorCode::Denied,
                    format!(
                        "server {server:?} may not read the keychain entry {name:?}: it belongs to \
                         Switchboard or to another server (a definition reads only its own \
                         secrets, imported inputs and entries you named yourself)"
                    ),
                ));
            }
            match store.get(name).map_err(|e| needed(e, server, name))? {
                Some(v) => out.push_str(&v),
                None => {
                    return Err(Error::new(
                        ErrorCode::Keychain,
                        format!(
                            "Server {server:?} needs the secret {name:?}, which is not in the \
                             keychain (service {KEYCHAIN_SERVICE:?}): save it there, or write \
                             ${{env:NAME}} in its place in the configuration."
                        ),
                    ));
                }
            }
        } else if let Some(var) = inner.strip_prefix("env:") {
            out.push_str(&env(var).unwrap_or_default());
        } else {
            out.push_str(&rest[start..start + 2 + end + 1]);
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The keychain failed when server `server` needed entry `name`: one sentence naming both and
/// what to do, the platform's words as the details.
fn needed(e: Error, server: &str, name: &str) -> Error {
    if e.code != ErrorCode::Keychain {
        return e;
    }
    let mut out = Error::new(
        ErrorCode::Keychain,
        format!(
            "Server {server:?} needs the secret {name:?} from the OS keychain, which could not be \
             opened: {KEYCHAIN_FIX}."
        ),
    );
    out.details = e.details.or(Some(e.message));
    out
}

/// An in-memory store, for tests of code that uses secrets (never for the keychain's own tests).
#[derive(Debug, Default)]
pub struct MemoryStore(std::sync::Mutex<std::collections::HashMap<String, String>>);

impl SecretStore for MemoryStore {
    fn set(&self, name: &str, value: &str) -> Result<()> {
        self.lock()?.insert(name.into(), value.into());
        Ok(())
    }
    fn get(&self, name: &str) -> Result<Option<String>> {
        Ok(self.lock()?.get(name).cloned())
    }
    fn delete(&self, name: &str) -> Result<()> {
        self.lock()?.remove(name);
        Ok(())
    }
}

impl MemoryStore {
    /// How many entries it holds.
    pub fn len(&self) -> usize {
        self.lock().map_or(0, |m| m.len())
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, std::collections::HashMap<String, String>>> {
        self.0
            .lock()
            .map_err(|_| Error::new(ErrorCode::Internal, "secret store lock poisoned"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_keychain_that_never_answers_is_given_up_on() {
        let started = std::time::Instant::now();
        let never = within::<()>(Duration::from_millis(200), || {
            loop {
                std::thread::park();
            }
        });
        assert_eq!(never.unwrap_err().code, ErrorCode::Keychain);
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(within(Duration::from_secs(5), || 7).unwrap(), 7);
    }

    /// Two keychain operations never overlap: the second, started while the first is inside,
    /// gets in only once the first is done (without turns it gets in at once, and the first
    /// sees it).
    #[test]
    fn keychain_operations_take_turns() {
        use std::sync::mpsc::channel;
        let (first_in, first_is_in) = channel();
        let (second_in, second_is_in) = channel::<()>();
        let first = std::thread::spawn(move || {
            within_turn(Duration::from_secs(10), move || {
                first_in.send(()).unwrap();
                second_is_in.recv_timeout(Duration::from_secs(1)).is_ok()
            })
        });
        first_is_in.recv().unwrap();
        let second = within_turn(Duration::from_secs(10), move || second_in.send(()).is_ok());
        let second_met_the_first = first.join().unwrap().unwrap();
        assert!(
            !second_met_the_first,
            "the second operation ran beside the first"
        );
        assert!(
            !second.unwrap(),
            "the second got in while the first was still inside"
        );
    }

    /// An operation that never answers gives its turn up when its caller stops waiting for it.
    #[test]
    fn a_hung_keychain_operation_holds_the_turn_only_while_its_caller_waits() {
        let hung = within_turn::<()>(Duration::from_millis(200), || {
            loop {
                std::thread::park();
            }
        });
        assert_eq!(hung.unwrap_err().code, ErrorCode::Keychain);
        let started = std::time::Instant::now();
        assert_eq!(within_turn(Duration::from_secs(20), || 7).unwrap(), 7);
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn expands_references() {
        let s = MemoryStore::default();
        s.set("gh", "tok123").unwrap();
        let env = |var: &str| (var == "SWITCHBOARD_TEST_EXPAND").then(|| "e".to_owned());
        assert_eq!(
            expand_in(
                "Bearer ${secret:gh}/${env:SWITCHBOARD_TEST_EXPAND}/${other}",
                &s,
                "srv",
                &env
            )
            .unwrap(),
            "Bearer tok123/e/${other}"
        );
        let e = expand("${secret:nope}", &s, "srv").unwrap_err();
        assert_eq!(e.code, ErrorCode::Keychain);
        assert_eq!(
            expand("plain ${unterminated", &s, "srv").unwrap(),
            "plain ${unterminated"
        );
    }

    /// A keychain that cannot be opened.
    struct Gone;

    impl SecretStore for Gone {
        fn set(&self, _: &str, _: &str) -> Result<()> {
            Err(keychain_missing(
                "org.freedesktop.DBus.Error.ServiceUnknown",
            ))
        }
        fn get(&self, _: &str) -> Result<Option<String>> {
            Err(keychain_missing(
                "org.freedesktop.DBus.Error.ServiceUnknown",
            ))
        }
        fn delete(&self, _: &str) -> Result<()> {
            Err(keychain_missing(
                "org.freedesktop.DBus.Error.ServiceUnknown",
            ))
        }
    }

    #[test]
    fn a_needed_secret_without_a_keychain_names_the_server_the_entry_and_the_fix() {
        let e = expand("Bearer ${secret:server/gh/token}", &Gone, "gh").unwrap_err();
        assert_eq!(e.code, ErrorCode::Keychain);
        for needed in [
            "\"gh\"",
            "\"server/gh/token\"",
            "gnome-keyring",
            "${env:NAME}",
        ] {
            assert!(e.message.contains(needed), "{needed}: {}", e.message);
        }
        assert!(!e.message.contains("DBus"), "{}", e.message);
        assert!(e.details.unwrap().contains("ServiceUnknown"));
        // A server that names no secret never needs the keychain.
        assert_eq!(
            expand("Bearer ${env:NOPE}", &Gone, "gh").unwrap(),
            "Bearer "
        );
    }

    #[test]
    fn a_definition_reads_only_its_own_secrets() {
        let s = MemoryStore::default();
        for (name, value) in [
            ("provider:anthropic", "sk-ant-canary"),
            ("oauth:https://example.com/mcp", "{\"access_token\":\"t\"}"),
            ("server/other/env/TOKEN", "other-canary"),
            ("server/srv/env/TOKEN", "mine"),
            ("server/srv-2/env/TOKEN", "lookalike"),
            ("input/pat", "typed"),
            ("remote-token", "named"),
        ] {
            s.set(name, value).unwrap();
        }
        let read = |name: &str| expand(&format!("${{secret:{name}}}"), &s, "srv");
        assert_eq!(read("server/srv/env/TOKEN").unwrap(), "mine");
        assert_eq!(read("input/pat").unwrap(), "typed");
        assert_eq!(read("remote-token").unwrap(), "named");
        for foreign in [
            "provider:anthropic",
            "oauth:https://example.com/mcp",
            "server/other/env/TOKEN",
            "server/srv-2/env/TOKEN",
        ] {
            let e = read(foreign).unwrap_err();
            assert_eq!(e.code, ErrorCode::Denied, "{foreign}: {e}");
            assert!(!e.message.contains("canary"), "{}", e.message);
        }
        // A name with the separator in it owns nothing of the server it starts with.
        s.set("server/vault/env/KEY", "vault-canary").unwrap();
        let e = expand("${secret:server/vault/env/KEY}", &s, "vault/env").unwrap_err();
        assert_eq!(e.code, ErrorCode::Denied, "{e}");
        assert!(!readable_by("server/vault/env/KEY", "vault/env"));
        assert!(readable_by("server/vault/env/KEY", "vault"));
    }
}
