//! The host as the desktop app drives it: the configuration file and the supervised servers kept
//! in step. Every edit (add, change, rename, remove, enable, roots, import) is validated, merged
//! into the file as it is on disk (never over what was written in an editor meanwhile) and then
//! applied to the running servers; a change made in an editor is reloaded and applied the same
//! way. Calls the user can cancel are tracked by id. The config lock is only held to read or edit
//! the in-memory copy, never across an await.

pub mod config_file;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use indexmap::IndexMap;
use rmcp::model::CallToolResult;
use serde::Serialize;
use serde_json::Value;
use ts_rs::TS;

use crate::config::import::{self, ImportReport};
use crate::config::{Config, ServerConfig};
use crate::error::{Error, ErrorCode, Result};
use crate::events::{Bus, ServerEvent};
use crate::secrets::SecretStore;
use crate::servers::{ServerView, Servers, SupervisorContext};
use crate::store::off_thread;
use config_file::{Stamp, read_text, text_digest};

/// The roots each server sees: the global set and every server's own override.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RootsView {
    /// Roots every server sees unless it sets its own.
    pub global: Vec<PathBuf>,
    /// Per server: its own roots, or null when it uses the global ones.
    pub servers: IndexMap<String, Option<Vec<PathBuf>>>,
}

/// A configuration file and the servers started from it.
#[derive(Clone)]
pub struct Host {
    servers: Servers,
    config: Arc<RwLock<Config>>,
    file: PathBuf,
    secrets: Arc<dyn SecretStore>,
    events: Bus,
    calls: Arc<Mutex<HashMap<String, tokio::task::AbortHandle>>>,
    /// Taken by every edit for its whole length (file, then servers), so concurrent edits reach
    /// the file and the running servers in the same order.
    changes: Arc<tokio::sync::Mutex<()>>,
    /// The file as last read or written, and why it cannot be read now, if it cannot.
    disk: Arc<Mutex<Disk>>,
    /// Ends the watcher when the host shuts down.
    stop_watching: tokio_util::sync::CancellationToken,
    /// Whether its servers are supervised (the CLI connects per command and starts none).
    supervised: bool,
}

/// What the host knows of the file on disk.
#[derive(Default)]
struct Disk {
    /// The digest of the text last read or written (`None`: there was no file).
    seen: Option<String>,
    /// Why the file on disk cannot be used, while it cannot.
    problem: Option<Error>,
    /// Whether the configuration was ever read from the file (or there was none to read).
    loaded: bool,
}

impl Host {
    /// Starts supervising every server of `config`. Must run inside a tokio runtime.
    pub fn start(config: Config, ctx: SupervisorContext) -> Self {
        let servers = Servers::start(&config, ctx.clone());
        Self::with_servers(config, ctx, servers, true)
    }

    /// Starts supervising the servers of the configuration file as it is on disk now, and keeps
    /// them in step with the file: a change made in an editor is reloaded within `every` (a
    /// definition that changed then waits for trust like any other). A file that cannot be read
    /// starts no servers; [`Host::problem`] says why.
    pub fn start_watching(ctx: SupervisorContext, every: std::time::Duration) -> Self {
        let (config, text, problem) = match read_text(&ctx.config_file) {
            Ok(None) => (Config::default(), None, None),
            Ok(Some(text)) => match Config::parse(&text, &ctx.config_file) {
                Ok(config) => (config, Some(text), None),
                Err(e) => (Config::default(), None, Some(e)),
            },
            Err(e) => (Config::default(), None, Some(e)),
        };
        let host = Self::start(config, ctx);
        if let Ok(mut disk) = host.disk.lock() {
            disk.loaded = problem.is_none();
            disk.seen = text.as_deref().map(text_digest);
            disk.problem = problem;
        }
        let stamp = Stamp::of(&host.file);
        tokio::spawn(host.clone().watch(every, stamp));
        host
    }

    /// The configuration without supervisors (the CLI connects per command); `problem` is why
    /// the file could not be read, if it could not.
    pub fn unsupervised(config: Config, ctx: SupervisorContext, problem: Option<Error>) -> Self {
        let servers = Servers::start(&Config::default(), ctx.clone());
        let host = Self::with_servers(config, ctx, servers, false);
        let seen = read_text(&host.file).ok().flatten();
        if let Ok(mut disk) = host.disk.lock() {
            disk.seen = seen
                .as_deref()
                .map(text_digest)
                .filter(|_| problem.is_none());
            disk.loaded = problem.is_none();
            disk.problem = problem;
        }
        host
    }

    /// What everything else needs to reach a server: approver, events, environment, secrets.
    pub fn context(&self) -> &SupervisorContext {
        self.servers.context()
    }

    fn with_servers(
        config: Config,
        ctx: SupervisorContext,
        servers: Servers,
        supervised: bool,
    ) -> Self {
        Self {
            servers,
            config: Arc::new(RwLock::new(config)),
            file: ctx.config_file,
            secrets: ctx.secrets,
            events: ctx.events,
            calls: Arc::default(),
            changes: Arc::default(),
            disk: Arc::new(Mutex::new(Disk {
                loaded: true,
                ..Disk::default()
            })),
            stop_watching: tokio_util::sync::CancellationToken::new(),
            supervised,
        }
    }

    /// Why the configuration file cannot be used right now (servers keep running as they were),
    /// and whether it was ever read: a file broken from the start leaves nothing to show.
    pub fn problem(&self) -> (Option<Error>, bool) {
        match self.disk.lock() {
            Ok(disk) => (disk.problem.clone(), disk.loaded),
            Err(_) => (None, true),
        }
    }

    /// Reads the file again if it changed since it was last read or written, and applies the
    /// difference to the running servers. Whether it changed.
    pub async fn reload(&self) -> Result<bool> {
        let _in_order = self.changes.lock().await;
        self.reload_in_order().await
    }

    /// [`Host::reload`] for callers already holding `changes`.
    async fn reload_in_order(&self) -> Result<bool> {
        let file = self.file.clone();
        let text = off_thread(move || read_text(&file)).await?;
        let digest = text.as_deref().map(text_digest);
        // A file that disappeared (an editor saving by rename, perhaps) changes nothing: what
        // runs goes on until a file is there again.
        let seen = self.disk()?.seen.clone();
        if text.is_some() && digest == seen {
            // Back to what was last read (a broken edit undone): nothing to apply, nothing wrong.
            if self.disk()?.problem.take().is_some() {
                self.events
                    .publish(ServerEvent::ConfigChanged { error: None });
            }
            return Ok(false);
        }
        let Some(text) = text else {
            return Ok(false);
        };
        let next = match Config::parse(&text, &self.file) {
            Ok(next) => next,
            Err(e) => {
                self.disk()?.problem = Some(e.clone());
                self.events.publish(ServerEvent::ConfigChanged {
                    error: Some(e.clone()),
                });
                return Err(e);
            }
        };
        let previous = std::mem::replace(&mut *self.write()?, next.clone());
        {
            let mut disk = self.disk()?;
            (disk.seen, disk.problem, disk.loaded) = (digest, None, true);
        }
        self.apply_difference(&previous, &next).await;
        self.events
            .publish(ServerEvent::ConfigChanged { error: None });
        Ok(true)
    }

    /// Brings the running servers from `previous` to `next`: the removed stop, the changed get
    /// their new definition or roots, the new start (once trusted).
    async fn apply_difference(&self, previous: &Config, next: &Config) {
        if !self.supervised {
            return;
        }
        for name in previous.mcp_servers.keys() {
            if !next.mcp_servers.contains_key(name) {
                let _ = self.servers.remove(name).await;
            }
        }
        for (name, server) in &next.mcp_servers {
            let roots = next.roots_for(name);
            let same =
                previous.mcp_servers.get(name) == Some(server) && previous.roots_for(name) == roots;
            if same {
                continue;
            }
            if let Err(e) = self.servers.upsert(name, server.clone(), roots).await {
                tracing::warn!(server = %name, error = %e.message, "could not apply the reloaded definition");
            }
        }
    }

    /// Reloads the file whenever its size, time or inode changes (or it was written so lately
    /// that a second write could share its time), until the host shuts down. `last` is the
    /// file's stamp when it was read.
    async fn watch(self, every: std::time::Duration, mut last: Option<Stamp>) {
        let file = self.file.clone();
        loop {
            tokio::select! {
                _ = self.stop_watching.cancelled() => return,
                _ = tokio::time::sleep(every) => {}
            }
            let now = Stamp::of(&file);
            if now == last && !now.is_some_and(|s| s.is_recent()) {
                continue;
            }
            last = now;
            match self.reload().await {
                Ok(true) => tracing::info!(file = %file.display(), "reloaded the configuration"),
                Ok(false) => {}
                Err(e) => {
                    tracing::warn!(error = %e.message, "the configuration file cannot be read; servers go on as they were")
                }
            }
        }
    }

    /// Whether it supervises its servers (the desktop app), rather than connecting per command
    /// (the CLI).
    pub fn is_supervised(&self) -> bool {
        self.supervised
    }

    /// The supervised servers.
    pub fn servers(&self) -> &Servers {
        &self.servers
    }

    /// The event channel every server reports to.
    pub fn events(&self) -> &Bus {
        &self.events
    }

    /// The configuration file.
    pub fn config_file(&self) -> &Path {
        &self.file
    }

    /// A copy of the current configuration.
    pub fn config(&self) -> Result<Config> {
        Ok(self.read()?.clone())
    }

    /// Every server as the list shows it, with its configuration.
    pub fn views(&self, stderr_tail: usize) -> Result<Vec<ServerView>> {
        let config = self.config()?;
        Ok(self
            .servers
            .all()
            .iter()
            .map(|h| {
                let mut view = h.view(stderr_tail);
                view.config = config.mcp_servers.get(h.name()).cloned();
                if let Some(server) = &view.config {
                    view.sandbox = self.context().trust.sandbox_state(h.name(), server);
                }
                if view.sandbox == crate::trust::SandboxState::Sandboxed {
                    view.sandbox_hint =
                        view.stderr_tail.iter().rev().find_map(|line| {
                            switchboard_sandbox::hints::refusal_hint(h.name(), line)
                        });
                }
                view
            })
            .chain(config.invalid_servers.iter().map(invalid_view))
            .collect())
    }

    /// Adds a server, or replaces `previous` (possibly under a new name), saves the file and
    /// (re)starts it.
    pub async fn save_server(
        &self,
        name: &str,
        server: ServerConfig,
        previous: Option<&str>,
    ) -> Result<()> {
        let _in_order = self.changes.lock().await;
        self.merge_from_disk().await?;
        let name = name.trim();
        if name.is_empty() {
            return Err(invalid("a server needs a name"));
        }
        // Validates command/url and transport the same way loading the file does.
        server.endpoint(&self.file, name)?;
        let renamed_from = previous.filter(|p| *p != name);
        let roots = self.edit(|config| {
            if previous != Some(name) && config.mcp_servers.contains_key(name) {
                return Err(invalid(&format!("a server named {name:?} already exists")));
            }
            match previous {
                Some(p) => {
                    let Some(index) = config.mcp_servers.get_index_of(p) else {
                        return Err(not_found(p));
                    };
                    config.mcp_servers.shift_remove(p);
                    config
                        .mcp_servers
                        .shift_insert(index, name.to_owned(), server.clone());
                }
                None => {
                    config.mcp_servers.insert(name.to_owned(), server.clone());
                }
            }
            Ok(config.roots_for(name))
        })?;
        if let Some(old) = renamed_from {
            let _ = self.servers.remove(old).await;
        }
        self.servers.upsert(name, server, roots).await
    }

    /// Removes a server from the file and stops it.
    pub async fn remove_server(&self, name: &str) -> Result<()> {
        let _in_order = self.changes.lock().await;
        self.merge_from_disk().await?;
        let was_valid = self.edit(|config| {
            if config.mcp_servers.shift_remove(name).is_some() {
                return Ok(true);
            }
            // An entry that is not valid never ran: it only leaves the file.
            config
                .invalid_servers
                .shift_remove(name)
                .map(|_| false)
                .ok_or_else(|| not_found(name))
        })?;
        if !was_valid {
            return Ok(());
        }
        self.servers.remove(name).await
    }

    /// Enables (and starts) or disables (and stops) a server, remembering it in the file.
    pub async fn set_enabled(&self, name: &str, enabled: bool) -> Result<()> {
        let _in_order = self.changes.lock().await;
        self.merge_from_disk().await?;
        let (server, roots) = self.edit(|config| {
            let roots = config.roots_for(name);
            let server = config
                .mcp_servers
                .get_mut(name)
                .ok_or_else(|| not_found(name))?;
            server.enabled = enabled;
            Ok((server.clone(), roots))
        })?;
        self.servers.upsert(name, server, roots).await
    }

    /// The roots view for the Roots screen.
    pub fn roots(&self) -> Result<RootsView> {
        let config = self.read()?;
        Ok(RootsView {
            global: config.roots.clone(),
            servers: config
                .mcp_servers
                .iter()
                .map(|(n, s)| (n.clone(), s.roots.clone()))
                .collect(),
        })
    }

    /// Sets the global roots (`server` is `None`) or one server's own (`paths` `None` means "use
    /// the global ones"), saves the file and tells every affected running server.
    pub async fn set_roots(&self, server: Option<&str>, paths: Option<Vec<PathBuf>>) -> Result<()> {
        let in_order = self.changes.lock().await;
        self.merge_from_disk().await?;
        let paths = paths.map(|ps| ps.into_iter().map(absolute).collect::<Result<Vec<_>>>());
        let paths = paths.transpose()?;
        let affected = self.edit(|config| {
            match server {
                None => config.roots = paths.clone().unwrap_or_default(),
                Some(name) => {
                    config
                        .mcp_servers
                        .get_mut(name)
                        .ok_or_else(|| not_found(name))?
                        .roots = paths.clone();
                }
            }
            Ok(config
                .mcp_servers
                .keys()
                .filter(|n| server.is_none_or(|s| s == n.as_str()))
                .map(|n| (n.clone(), config.roots_for(n)))
                .collect::<Vec<_>>())
        })?;
        let mut changed = Vec::new();
        for (name, roots) in affected {
            if let Ok(handle) = self.servers.get(&name)
                && handle.update_roots(&roots)
            {
                changed.push(handle);
            }
        }
        // Servers are told after the edit is over: a server that stops reading its input must
        // not hold up every other edit.
        drop(in_order);
        for handle in changed {
            handle.notify_roots_changed().await?;
        }
        Ok(())
    }

    /// What importing a Claude Desktop or VS Code file would do.
    pub fn import_preview(&self, path: &Path) -> Result<import::ImportPlan> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::new(
                ErrorCode::ConfigIo,
                format!("cannot read {}: {e}", path.display()),
            )
        })?;
        let mut plan = import::plan(&text, path)?;
        plan.compare(&*self.read()?);
        Ok(plan)
    }

    /// Imports a file as it was previewed (`previewed` is the preview's `source_digest`):
    /// secrets into the keychain, servers into the config (each started once it is trusted).
    pub async fn import_apply(
        &self,
        path: &Path,
        inputs: &HashMap<String, String>,
        previewed: &str,
    ) -> Result<ImportReport> {
        let plan = self.import_preview(path)?;
        if plan.source_digest != previewed {
            return Err(Error::new(
                ErrorCode::ApprovalMismatch,
                format!(
                    "{} changed since you previewed it: nothing was imported; preview it again",
                    path.display()
                ),
            ));
        }
        let _in_order = self.changes.lock().await;
        self.merge_from_disk().await?;
        let (secrets, inputs) = (self.secrets.clone(), inputs.clone());
        // The keychain may wait on an unlock prompt: off the runtime, and before the config lock
        // is taken, so nothing that reads the config waits for the person.
        let (plan, mut report) = crate::store::off_thread(move || {
            let report = plan.store_secrets(secrets.as_ref(), &mut |input| {
                inputs.get(&input.id).filter(|v| !v.is_empty()).cloned()
            })?;
            Ok((plan, report))
        })
        .await?;
        let host = self.clone();
        let (merged, started) = crate::store::off_thread(move || {
            host.edit(|config| {
                let merged = plan.add_servers(config);
                let started = merged
                    .added
                    .iter()
                    .chain(&merged.updated)
                    .filter_map(|n| {
                        let s = config.mcp_servers.get(n)?.clone();
                        Some((n.clone(), s, config.roots_for(n)))
                    })
                    .collect::<Vec<_>>();
                Ok((merged, started))
            })
        })
        .await?;
        report.added = merged.added;
        report.updated = merged.updated;
        report.unchanged = merged.unchanged;
        // The CLI starts nothing: its commands connect per run.
        if self.supervised {
            for (name, server, roots) in started {
                self.servers.upsert(&name, server, roots).await?;
            }
        }
        Ok(report)
    }

    /// Calls a tool as a cancellable call named `call_id` (see [`Host::cancel_call`]).
    pub async fn call_tool(
        &self,
        server: &str,
        tool: &str,
        arguments: Option<Value>,
        call_id: &str,
    ) -> Result<CallToolResult> {
        let connection = self.servers.get(server)?.connection()?;
        let (tool, call) = (tool.to_owned(), call_id.to_owned());
        let task = tokio::spawn(async move {
            connection
                .call_tool_for(Some(&call), &tool, arguments)
                .await
        });
        self.lock_calls()?
            .insert(call_id.to_owned(), task.abort_handle());
        let result = task.await;
        if let Ok(mut calls) = self.lock_calls() {
            calls.remove(call_id);
        }
        match result {
            Ok(r) => r,
            Err(e) if e.is_cancelled() => Err(Error::new(
                ErrorCode::Cancelled,
                "the call was cancelled; the server was told",
            )),
            Err(e) => Err(Error::new(ErrorCode::Internal, format!("call failed: {e}"))),
        }
    }

    /// Cancels a call in flight: dropping the request makes rmcp send `notifications/cancelled`.
    pub fn cancel_call(&self, call_id: &str) -> Result<()> {
        if let Some(handle) = self.lock_calls()?.remove(call_id) {
            handle.abort();
        }
        Ok(())
    }

    /// The ids of the calls in flight: those [`Host::cancel_call`] can cancel now.
    pub fn calls_in_flight(&self) -> Vec<String> {
        self.lock_calls()
            .map(|calls| calls.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// Stops every server (host exit).
    pub async fn shutdown(&self) {
        self.stop_watching.cancel();
        self.servers.shutdown().await;
    }

    /// Changes the configuration as `change` says, merged into the file as it is on disk now
    /// (what was written in an editor is reloaded first, never written over).
    pub async fn edit_config<T>(&self, change: impl FnOnce(&mut Config) -> Result<T>) -> Result<T> {
        let _in_order = self.changes.lock().await;
        self.merge_from_disk().await?;
        self.edit(change)
    }

    /// Before an edit: takes in what changed on disk, or refuses the edit while the file on disk
    /// cannot be read (writing it would lose what the person is typing there).
    async fn merge_from_disk(&self) -> Result<()> {
        match self.reload_in_order().await {
            Ok(_) => Ok(()),
            Err(e) => Err(config_file::edit_refused(&self.file, &e)),
        }
    }

    /// Edits the in-memory config and saves it; nothing changes when either step fails, and
    /// nothing is written when the file changed since it was last read.
    fn edit<T>(&self, change: impl FnOnce(&mut Config) -> Result<T>) -> Result<T> {
        let mut guard = self.write()?;
        let mut next = guard.clone();
        let out = change(&mut next)?;
        next.settle();
        let mut disk = self.disk()?;
        let on_disk = read_text(&self.file)?.as_deref().map(text_digest);
        if on_disk != disk.seen {
            return Err(config_file::changed_while_saving(&self.file));
        }
        let text = next.save(&self.file)?;
        disk.seen = Some(text_digest(&text));
        *guard = next;
        Ok(out)
    }

    fn write(&self) -> Result<std::sync::RwLockWriteGuard<'_, Config>> {
        self.config
            .write()
            .map_err(|_| Error::new(ErrorCode::Internal, "config lock poisoned"))
    }

    fn disk(&self) -> Result<std::sync::MutexGuard<'_, Disk>> {
        self.disk
            .lock()
            .map_err(|_| Error::new(ErrorCode::Internal, "config file lock poisoned"))
    }

    fn read(&self) -> Result<std::sync::RwLockReadGuard<'_, Config>> {
        self.config
            .read()
            .map_err(|_| Error::new(ErrorCode::Internal, "config lock poisoned"))
    }

    fn lock_calls(
        &self,
    ) -> Result<std::sync::MutexGuard<'_, HashMap<String, tokio::task::AbortHandle>>> {
        self.calls
            .lock()
            .map_err(|_| Error::new(ErrorCode::Internal, "calls lock poisoned"))
    }
}

/// The list's view of an entry of the file that is not valid.
fn invalid_view((name, invalid): (&String, &crate::config::InvalidServer)) -> ServerView {
    ServerView {
        name: name.clone(),
        status: crate::servers::ServerStatus::Invalid {
            error: invalid.problem.clone(),
        },
        stderr_tail: Vec::new(),
        config: None,
        sandbox: crate::trust::SandboxState::Remote,
        sandbox_hint: None,
        refused_hosts: Vec::new(),
    }
}

fn invalid(message: &str) -> Error {
    Error::new(ErrorCode::InvalidInput, message)
}

fn not_found(name: &str) -> Error {
    Error::new(
        ErrorCode::ServerNotFound,
        format!("no server named {name:?}"),
    )
}

/// `path` as a root: `~/` expanded, absolute, and a folder that exists.
pub(crate) fn absolute(path: PathBuf) -> Result<PathBuf> {
    let path = if let Some(rest) = path.to_str().and_then(|p| p.strip_prefix("~/")) {
        directories::BaseDirs::new()
            .map(|d| d.home_dir().join(rest))
            .unwrap_or(path)
    } else {
        path
    };
    let path =
        std::path::absolute(&path).map_err(|e| invalid(&format!("{}: {e}", path.display())))?;
    if !path.is_dir() {
        return Err(invalid(&format!(
            "{} is not a folder on this computer",
            path.display()
        )));
    }
    Ok(path)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;
    use std::time::Duration;

    use super::*;
    use crate::servers::scripted::{Script, context, server};

    #[tokio::test(start_paused = true)]
    async fn concurrent_saves_leave_the_file_and_the_running_server_agreeing() {
        let script = Script::new([]);
        let bus = crate::events::Bus::default();
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.json");
        let mut ctx = context(&script, &bus);
        ctx.config_file = file.clone();
        let host = Host::start(Config::default(), ctx);
        host.save_server("s", server(), None).await.unwrap();
        // A clone held elsewhere (a command in flight, the chat) keeps a supervisor alive.
        let held = host.servers().get("s").unwrap();
        held.wait_running(Duration::from_secs(5)).await.unwrap();
        let saves = (1..=4).map(|n| {
            let definition = ServerConfig::stdio("unused", vec![n.to_string()]);
            let host = host.clone();
            async move { host.save_server("s", definition, Some("s")).await }
        });
        for r in futures::future::join_all(saves).await {
            r.unwrap();
        }
        held.wait_running(Duration::from_secs(5)).await.unwrap();
        tokio::time::sleep(Duration::from_secs(5)).await;
        let saved = Config::load(&file).unwrap().mcp_servers["s"].args.clone();
        let running = script.served.lock().unwrap().last().cloned().unwrap();
        assert_eq!(saved, running, "the file and the running server agree");
        assert_eq!(script.alive.load(Ordering::SeqCst), 1, "one process");
    }

    /// Waits for the watcher to say it read the file again; its error, if it could not.
    async fn reloaded(events: &mut crate::events::Listener) -> Option<Error> {
        loop {
            match events.recv().await {
                Some(crate::events::CoreEvent::Server(ServerEvent::ConfigChanged { error })) => {
                    return error;
                }
                Some(_) => {}
                None => panic!("the bus is gone"),
            }
        }
    }

    fn written(file: &Path, text: &str) {
        std::fs::write(file, text).unwrap();
    }

    /// A host on `text`, watching its file every `every`.
    fn watching(
        text: &str,
        every: Duration,
    ) -> (Host, PathBuf, tempfile::TempDir, crate::events::Listener) {
        let script = Script::new([]);
        let bus = crate::events::Bus::default();
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.json");
        written(&file, text);
        let mut ctx = context(&script, &bus);
        ctx.config_file = file.clone();
        let events = bus.control();
        (Host::start_watching(ctx, every), file, dir, events)
    }

    #[tokio::test]
    async fn a_hand_edit_is_reloaded() {
        let text = r#"{"mcpServers": {"a": {"command": "unused", "args": ["1"]}}}"#;
        let (host, file, _dir, mut events) = watching(text, Duration::from_millis(20));
        assert_eq!(host.config().unwrap().mcp_servers["a"].args, ["1"]);
        // An editor adds a server and changes an argument: the host takes both in.
        written(
            &file,
            r#"{"mcpServers": {"a": {"command": "unused", "args": ["2"]},
                               "b": {"command": "unused"}}}"#,
        );
        assert_eq!(reloaded(&mut events).await, None);
        assert_eq!(host.config().unwrap().mcp_servers["a"].args, ["2"]);
        assert!(
            host.servers().get("b").is_ok(),
            "the added server is supervised"
        );
        host.shutdown().await;
    }

    // The watcher is far too slow to help here: only the merge before each edit keeps the hand edits.
    #[tokio::test]
    async fn an_edit_from_the_window_never_writes_over_a_hand_edit() {
        let text = r#"{"mcpServers": {"a": {"command": "unused"}}}"#;
        let (host, file, dir, _events) = watching(text, Duration::from_secs(3600));
        written(
            &file,
            r#"{"mcpServers": {"a": {"command": "unused"}, "c": {"command": "unused"}}}"#,
        );
        host.set_roots(None, Some(vec![dir.path().to_owned()]))
            .await
            .unwrap();
        let saved = Config::load(&file).unwrap();
        assert!(
            saved.mcp_servers.contains_key("c"),
            "the editor's server survives the save"
        );
        assert_eq!(saved.roots, [dir.path().to_owned()]);
        assert!(host.servers().get("c").is_ok(), "and runs");

        // A file broken in the editor is never written over; the servers go on.
        let broken = "{\"mcpServers\": {\"a\": \n";
        written(&file, broken);
        let error = host
            .set_roots(None, Some(vec![]))
            .await
            .expect_err("an edit over a broken file is refused");
        assert_eq!(error.code, ErrorCode::ConfigInvalid);
        assert!(error.message.contains("line 2"), "{}", error.message);
        assert_eq!(std::fs::read_to_string(&file).unwrap(), broken);
        assert!(host.servers().get("c").is_ok());
        host.shutdown().await;
    }

    #[tokio::test]
    async fn a_broken_file_is_reported_and_its_fix_reloaded() {
        let text = r#"{"mcpServers": {"a": {"command": "unused"}}}"#;
        let (host, file, _dir, mut events) = watching(text, Duration::from_millis(20));
        written(&file, "{\n  \"mcpServers\": {,\n}");
        let error = reloaded(&mut events)
            .await
            .expect("the broken file is reported");
        assert!(
            error.message.contains("line 2 column 18"),
            "{}",
            error.message
        );
        assert_eq!(host.problem(), (Some(error), true));
        assert!(
            host.servers().get("a").is_ok(),
            "the running server goes on"
        );
        // Undone in the editor, back to exactly what was read: nothing is wrong any more.
        written(&file, text);
        assert_eq!(reloaded(&mut events).await, None);
        assert_eq!(host.problem(), (None, true));
        written(&file, "{\n  \"mcpServers\": {,\n}");
        assert!(reloaded(&mut events).await.is_some());
        written(&file, r#"{"mcpServers": {}}"#);
        assert_eq!(reloaded(&mut events).await, None);
        assert!(
            host.servers().get("a").is_err(),
            "the server removed in the file is gone"
        );
        assert_eq!(host.problem(), (None, true));
        host.shutdown().await;
    }
}
