//! The app's side of launch trust: reviewing a server's definition, trusting it after the person
//! confirmed exactly what was shown (in a native dialog or on the terminal, never on the word of
//! the web view), and the server edits that change what runs.

use futures::future::BoxFuture;

use super::App;
use super::requests::{SaveServer, ServerName};
use crate::config::SandboxSetting;
use crate::config::ServerConfig;
use crate::config::import::take_plain_secret;
use crate::error::{Error, ErrorCode, Result};
use crate::secrets::SecretStore;
use crate::store::off_thread;
use crate::trust::{LaunchReview, RootsReview, SandboxState, TrustVerdict, launch_digest};

/// Shows a person a launch definition and answers whether they trust it: the desktop's native
/// dialog, the CLI's terminal prompt.
pub type Confirm = Box<dyn FnOnce(LaunchReview) -> BoxFuture<'static, bool> + Send>;

/// Shows a person new global roots and the servers that would get them, and answers whether
/// they trust those servers with them.
pub type ConfirmRoots = Box<dyn FnOnce(RootsReview) -> BoxFuture<'static, bool> + Send>;

impl App {
    /// What trusting configured server `args.server` would let run.
    pub fn trust_review(&self, args: &ServerName) -> Result<LaunchReview> {
        let config = self.configured_server(&args.server)?;
        Ok(LaunchReview::of(
            &args.server,
            &config,
            &self.0.host.context().trust,
        ))
    }

    /// Shows the server's definition through `confirm` and, if the person trusts it, trusts
    /// exactly that definition and starts the server. Whether it is trusted now.
    pub async fn trust_server(&self, args: ServerName, confirm: Confirm) -> Result<bool> {
        let review = self.trust_review(&args)?;
        if review.verdict != TrustVerdict::Trusted {
            if !confirm(review.clone()).await {
                return Ok(false);
            }
            self.grant(&args.server, &review).await?;
        }
        if let Ok(handle) = self.0.host.servers().get(&args.server) {
            handle.start().await?;
        }
        Ok(true)
    }

    async fn grant(&self, server: &str, review: &LaunchReview) -> Result<()> {
        // Bound to what was shown: a definition (or env file) edited during the review is not
        // trusted. One reading of the env file is both checked and trusted.
        let config = switchboard_protocol::env_file::read_once(&self.configured_server(server)?);
        if launch_digest(&config) != review.digest {
            return Err(Error::new(
                ErrorCode::ApprovalMismatch,
                format!(
                    "server {server:?}'s definition changed while you were reviewing it; review \
                     it again"
                ),
            ));
        }
        // Its rules and pins were made for what the name ran before.
        if review.resets_rules() {
            self.0.door.forget_server(server).await?;
        }
        let (trust, name) = (self.0.host.context().trust.clone(), server.to_owned());
        off_thread(move || trust.grant(&name, &config)).await
    }

    /// Puts a local server that runs unsandboxed (turned off, or trusted before sandboxing) in
    /// the sandbox with the default profile, and restarts it there. Narrowing what it may reach
    /// needs no new trust: a trusted definition stays trusted with the box on.
    pub async fn sandbox_server(&self, args: ServerName) -> Result<()> {
        let name = args.server;
        // One reading of its env file is checked and granted.
        let mut config = switchboard_protocol::env_file::read_once(&self.configured_server(&name)?);
        let trust = self.0.host.context().trust.clone();
        match trust.sandbox_state(&name, &config) {
            SandboxState::Sandboxed => return Ok(()),
            SandboxState::Remote => {
                return Err(Error::new(
                    ErrorCode::InvalidInput,
                    format!("{name:?} is a remote server: nothing of it runs on this computer"),
                ));
            }
            SandboxState::Container => {
                return Err(Error::new(
                    ErrorCode::InvalidInput,
                    format!(
                        "{name:?} runs in a container, which is its box: Switchboard's own box \
                         cannot hold a container engine's client"
                    ),
                ));
            }
            SandboxState::Off | SandboxState::TrustedBefore => {}
        }
        let trusted = trust.verdict(&name, &config) == TrustVerdict::Trusted;
        config.sandbox = Some(SandboxSetting::Enabled(true));
        let (t, n, c) = (trust.clone(), name.clone(), config.clone());
        off_thread(move || {
            if trusted {
                t.grant(&n, &c)?;
            }
            t.forget_unsandboxed(&n)
        })
        .await?;
        self.0.host.save_server(&name, config, Some(&name)).await
    }

    /// Checks that configured server `name`'s definition is trusted before anything dials it.
    pub(super) fn admit(&self, name: &str, config: &ServerConfig) -> Result<()> {
        let trust = &self.0.host.context().trust;
        if trust.admit(name, config) {
            Ok(())
        } else {
            Err(trust.refusal(name, config))
        }
    }

    /// Adds a server or changes one (possibly renaming it: its rules, pins and secrets follow).
    /// Plain secret-looking `env` and `headers` values move to the keychain first. A definition
    /// that would run something not yet trusted under this name is shown through `confirm`, and
    /// nothing is saved unless the person trusts it.
    pub async fn save_server(&self, mut args: SaveServer, confirm: Confirm) -> Result<()> {
        args.name = args.name.trim().to_owned();
        let previous = args
            .previous_name
            .as_deref()
            .map(str::trim)
            .map(str::to_owned);
        let trust = self.0.host.context().trust.clone();
        let bound = previous.clone().unwrap_or_else(|| args.name.clone());
        // One reading of its env file is asked about, shown and granted: an edit to the file
        // between the dialog and the grant would otherwise be trusted unseen.
        args.config = switchboard_protocol::env_file::read_once(&args.config);
        // Trusted with the roots it will get: the global ones, if it has none of its own.
        args.config.inherit_roots(&self.0.host.config()?.roots);
        // Asked about what the person submitted; what Switchboard then rewrites (secrets moved
        // to the keychain, references following a rename) is trusted along with it.
        let ask = trust.verdict(&bound, &args.config) != TrustVerdict::Trusted;
        let store = self.0.host.context().secrets.clone();
        let (name, old, mut config) = (args.name.clone(), previous.clone(), args.config);
        config = off_thread(move || {
            secure_secrets(&name, old.as_deref(), &mut config, store.as_ref())?;
            Ok(config)
        })
        .await?;
        if ask {
            let mut review = LaunchReview::of(&args.name, &config, &trust);
            // The person's own edit: rules and pins carry over to what they confirm.
            review.verdict = TrustVerdict::New;
            if !confirm(review).await {
                return Err(Error::new(
                    ErrorCode::Denied,
                    format!(
                        "{:?} was not saved: you did not trust its definition",
                        args.name
                    ),
                ));
            }
        }
        if trust.verdict(&bound, &config) != TrustVerdict::Trusted {
            let (t, b, c) = (trust.clone(), bound.clone(), config.clone());
            off_thread(move || t.grant(&b, &c)).await?;
        }
        self.0
            .host
            .save_server(&args.name, config, previous.as_deref())
            .await?;
        match previous {
            Some(previous) if previous != args.name => {
                let to = args.name.clone();
                off_thread(move || trust.rename(&previous, &to)).await?;
                let previous = args.previous_name.unwrap_or_default();
                let (switches, from, to) = (
                    self.0.chats.switches().clone(),
                    previous.trim().to_owned(),
                    args.name.clone(),
                );
                off_thread(move || switches.rename(&from, &to)).await?;
                self.0.door.rename_server(previous.trim(), &args.name).await
            }
            _ => Ok(()),
        }
    }
}

/// Moves plain secret-looking `env` and `headers` values of server `name` into the keychain
/// (`server/<name>/<env|header>/<KEY>`), and, when it was renamed from `previous`, its own
/// keychain entries to the new name, rewriting the references.
fn secure_secrets(
    name: &str,
    previous: Option<&str>,
    config: &mut ServerConfig,
    store: &dyn SecretStore,
) -> Result<()> {
    for (section, map) in [("env", &mut config.env), ("header", &mut config.headers)] {
        for (key, value) in map.iter_mut() {
            if let Some(old) = previous.filter(|p| *p != name) {
                move_own_secrets(value, old, name, store)?;
            }
            if let Some((entry, secret)) = take_plain_secret(name, section, key, value) {
                store.set(&entry, &secret)?;
            }
        }
    }
    Ok(())
}

/// Copies the `server/<from>/…` entries `value` refers to under `server/<to>/…` and rewrites it.
fn move_own_secrets(
    value: &mut String,
    from: &str,
    to: &str,
    store: &dyn SecretStore,
) -> Result<()> {
    let (old, new) = (
        format!("${{secret:server/{from}/"),
        format!("${{secret:server/{to}/"),
    );
    let mut rest = value.as_str();
    while let Some(at) = rest.find(&old) {
        let after = &rest[at + 2 + "secret:".len()..];
        let Some(end) = after.find('}') else { break };
        let entry = &after[..end];
        let moved = format!("server/{to}/{}", &entry[format!("server/{from}/").len()..]);
        if let Some(secret) = store.get(entry)? {
            store.set(&moved, &secret)?;
        }
        rest = &after[end..];
    }
    *value = value.replace(&old, &new);
    Ok(())
}

#[cfg(test)]
mod tests;
