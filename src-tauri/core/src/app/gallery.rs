//! The app's side of the gallery: listing a registry's servers, the install form of one, and
//! installing it (the definition goes through the trust dialog like any other, its secrets to
//! the keychain only once it is trusted) or uninstalling it (its definition, rules, trust and
//! keychain entries).

use std::path::PathBuf;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use switchboard_gallery::bundle::{Opened as OpenedBundle, Signature as BundleSignature, settings};
use switchboard_gallery::definition::{self, Choice, Installable, Needed};
use switchboard_gallery::registry::server_json::Package;
use switchboard_gallery::registry::{self, ListingText, Query, Registry};
use ts_rs::TS;

mod bundles;
mod cache;
mod icons;

pub use cache::RegistryCache;
pub use icons::Icons;

use super::requests::{NoArgs, SaveServer, ServerName};
use super::{App, Confirm};
use crate::error::{Error, ErrorCode, Result};
use crate::secrets::SecretStore;
use crate::store::off_thread;
use crate::trust::LaunchReview;

pub use switchboard_gallery::definition::{Needed as InstallInput, pick as pick_choice};
pub use switchboard_gallery::link::{InstallLink, SCHEME as INSTALL_SCHEME};
pub use switchboard_gallery::registry::{Listing, Page};

/// What to list from a registry.
#[derive(Debug, Clone, Default, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RegistrySearch {
    /// The registry's base URL; the configured default when null.
    pub registry: Option<String>,
    pub search: Option<String>,
    pub cursor: Option<String>,
    pub limit: Option<u32>,
}

/// A server of a registry, at a version (the latest when null).
#[derive(Debug, Clone, Default, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RegistryRef {
    pub registry: Option<String>,
    pub name: String,
    pub version: Option<String>,
}

/// The registries the person keeps (the config's `registries`), the first the default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RegistryList {
    pub registries: Vec<String>,
}

/// The registries the gallery may list, as the person can change them.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct RegistrySettings {
    /// The registries kept, the first the default: the official one alone when none are set.
    pub registries: Vec<String>,
    pub official: String,
    /// `SWITCHBOARD_REGISTRY`, which comes before them all for this run.
    pub from_environment: Option<String>,
}

/// At most this many registries are kept.
const MAX_REGISTRIES: usize = 20;

/// The install form of a listing: its text, the ways it can be run, what each asks for.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct InstallForm {
    pub listing: Listing,
    pub text: ListingText,
    pub choices: Vec<InstallOption>,
    /// The local name it would be installed under.
    pub name: String,
}

#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct InstallOption {
    pub choice: Choice,
    pub label: String,
    pub needs: Vec<Needed>,
}

/// A bundle file's install form: what it is, who signed it, what it asks for.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct BundleForm {
    pub name: String,
    pub display_name: String,
    pub version: String,
    pub description: String,
    pub author: String,
    pub signature: BundleSignature,
    /// How the trust dialog words the signature.
    pub signature_text: String,
    pub needs: Vec<Needed>,
    pub sha256: String,
}

/// Install a bundle file.
#[derive(Debug, Clone, Default, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct BundleInstall {
    #[ts(type = "string")]
    pub path: PathBuf,
    pub name: Option<String>,
    #[ts(type = "Record<string, string>")]
    pub values: IndexMap<String, String>,
}

/// A listing's icon, by its address.
#[derive(Debug, Clone, Deserialize, TS)]
#[ts(export)]
pub struct IconUrl {
    pub url: String,
}

/// Install the bundle file the person chose in the native picker (the window never names it).
#[derive(Debug, Clone, Default, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct BundleChoice {
    pub name: Option<String>,
    #[ts(type = "Record<string, string>")]
    pub values: IndexMap<String, String>,
}

/// Something the app was asked to open (a `.mcpb` given to it, dropped on its window, or an
/// install link), as the window shows it: nothing has been installed.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase", tag = "kind")]
#[ts(export)]
pub enum Opened {
    Bundle { form: Box<BundleForm> },
    Link { link: InstallLink },
    Failed { error: Error },
}

/// A server installed from a registry whose registry lists a newer version.
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct UpdateView {
    pub server: String,
    pub installed: String,
    pub latest: String,
    pub registry: String,
}

/// Install a registry server: which, how, under what name, with which values.
#[derive(Debug, Clone, Default, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct InstallRequest {
    pub server: RegistryRef,
    /// Which package or remote; the first when null.
    pub choice: Option<Choice>,
    /// The kind to pick when `choice` is null (`npm`, `pypi`, `oci`, `remote`).
    pub kind: Option<String>,
    /// The local name; from the registry name when null.
    pub name: Option<String>,
    #[ts(type = "Record<string, string>")]
    pub values: IndexMap<String, String>,
}

/// `SWITCHBOARD_REGISTRY`, when set.
fn environment_registry() -> Option<String> {
    std::env::var("SWITCHBOARD_REGISTRY")
        .ok()
        .filter(|u| !u.is_empty())
}

/// `urls` checked and written as the gallery calls them, without repeats; a URL that is not a
/// registry's is refused by name, as is a list too long to be one a person keeps.
fn registry_list(urls: &[String]) -> Result<Vec<String>> {
    if urls.len() > MAX_REGISTRIES {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            format!("Keep at most {MAX_REGISTRIES} registries."),
        ));
    }
    let mut kept: Vec<String> = Vec::new();
    for url in urls {
        let url = registry::base_url(url.trim())?
            .as_str()
            .trim_end_matches('/')
            .to_owned();
        if !kept.contains(&url) {
            kept.push(url);
        }
    }
    Ok(kept)
}

impl App {
    /// The registries the gallery offers: `SWITCHBOARD_REGISTRY` when set, then the config's
    /// `registries`, else the official one; the first is the default.
    pub async fn registries(&self, _: NoArgs) -> Result<Vec<String>> {
        let mut all: Vec<String> = environment_registry()
            .into_iter()
            .chain(self.config()?.registries)
            .collect();
        if all.is_empty() {
            all.push(registry::OFFICIAL.to_owned());
        }
        all.dedup();
        Ok(all)
    }

    /// The registries kept in the config, for the person to change.
    pub async fn registry_settings(&self, _: NoArgs) -> Result<RegistrySettings> {
        let kept = self.config()?.registries;
        Ok(RegistrySettings {
            registries: if kept.is_empty() {
                vec![registry::OFFICIAL.to_owned()]
            } else {
                kept
            },
            official: registry::OFFICIAL.to_owned(),
            from_environment: environment_registry(),
        })
    }

    /// Keeps `registries` (the first the default) in the config, each checked as a registry
    /// URL (https, or plain http on this computer) and written as the gallery will call it;
    /// the official one alone is written as no list, its default. What it kept.
    pub async fn set_registries(&self, args: RegistryList) -> Result<RegistryList> {
        let kept = registry_list(&args.registries)?;
        let written = kept.clone();
        self.0
            .host
            .edit_config(move |config| {
                config.registries = if written == [registry::OFFICIAL] {
                    Vec::new()
                } else {
                    written
                };
                Ok(())
            })
            .await?;
        Ok(RegistryList { registries: kept })
    }

    /// Every version of a registry server, newest first.
    pub async fn registry_versions(&self, args: RegistryRef) -> Result<Vec<Listing>> {
        self.registry(args.registry.as_deref())?
            .versions(&args.name)
            .await
    }

    /// The registry `url` names, else `SWITCHBOARD_REGISTRY`, else the config's first, else the
    /// official one.
    pub fn registry(&self, url: Option<&str>) -> Result<Registry> {
        let configured = self
            .0
            .host
            .config()
            .ok()
            .and_then(|c| c.registries.first().cloned());
        let url = url
            .map(str::to_owned)
            .or_else(environment_registry)
            .or(configured)
            .unwrap_or_else(|| registry::OFFICIAL.to_owned());
        Registry::new(&url)
    }

    /// One page of a registry's latest servers, kept for next time; when the registry cannot
    /// be reached, the listing kept last time (marked offline).
    pub async fn registry_search(&self, args: RegistrySearch) -> Result<Page> {
        let registry = self.registry(args.registry.as_deref())?;
        let query = Query {
            search: args.search.clone(),
            cursor: args.cursor.clone(),
            limit: args.limit,
            updated_since: None,
        };
        let cache = &self.0.registry_cache;
        match registry.search(&query).await {
            Ok(page) => {
                cache.keep(registry.url(), &page.servers).await?;
                Ok(page)
            }
            Err(e) if e.code == ErrorCode::ConnectFailed && args.cursor.is_none() => {
                let servers = cache.search(registry.url(), args.search.as_deref()).await?;
                if servers.is_empty() {
                    return Err(e);
                }
                Ok(Page {
                    servers,
                    offline: true,
                    ..Page::default()
                })
            }
            Err(e) => Err(e),
        }
    }

    /// A listing's icon as a `data:` URL, or `None` when it may not or could not be fetched.
    pub async fn registry_icon(&self, args: IconUrl) -> Result<Option<String>> {
        Ok(self.0.icons.get(&args.url).await)
    }

    /// The listing kept from a registry's last answers, at once and without the network.
    pub async fn registry_cached(&self, args: RegistrySearch) -> Result<Page> {
        let registry = self.registry(args.registry.as_deref())?;
        let servers = self
            .0
            .registry_cache
            .search(registry.url(), args.search.as_deref())
            .await?;
        Ok(Page {
            servers,
            offline: true,
            ..Page::default()
        })
    }

    /// Brings the kept listing of a registry up to date: only what changed since the last
    /// refresh (all of it the first time), deleted servers removed. How many listings changed.
    pub async fn registry_refresh(&self, args: RegistrySearch) -> Result<usize> {
        let registry = self.registry(args.registry.as_deref())?;
        let cache = &self.0.registry_cache;
        let since = cache.synced_at(registry.url()).await?;
        let mut query = Query {
            limit: Some(registry::MAX_LIMIT),
            updated_since: since.clone(),
            ..Query::default()
        };
        let (mut changed, mut newest) = (0, since);
        // A registry that never stops paging is cut off: a refresh is not worth a hang.
        for _ in 0..1_000 {
            let page = registry.search(&query).await?;
            changed += page.servers.len();
            let latest = page
                .servers
                .iter()
                .filter_map(|l| l.updated_at.clone())
                .max();
            newest = newest.max(latest);
            cache.keep(registry.url(), &page.servers).await?;
            match page.next_cursor {
                Some(cursor) => query.cursor = Some(cursor),
                None => break,
            }
        }
        if let Some(at) = newest {
            cache.mark_synced(registry.url(), &at).await?;
        }
        Ok(changed)
    }

    /// The listing `r` names.
    pub async fn registry_listing(&self, r: &RegistryRef) -> Result<Listing> {
        let version = r.version.as_deref().unwrap_or("latest");
        self.registry(r.registry.as_deref())?
            .version(&r.name, version)
            .await
    }

    /// The install form of the server `args` names.
    pub async fn install_form(&self, args: RegistryRef) -> Result<InstallForm> {
        let listing = self.registry_listing(&args).await?;
        let mut choices = Vec::new();
        for (choice, label) in definition::choices(&listing) {
            let needs = match bundle_package(&listing, choice) {
                // A bundle's settings are in its manifest: it is fetched (and checked) first.
                Some(p) => {
                    let (path, sha) = self.fetch_bundle(p).await?;
                    let opened = off_thread(move || OpenedBundle::read(&path, Some(&sha))).await?;
                    settings::needs(&opened.manifest)
                }
                None => definition::needs(&listing, choice)?,
            };
            choices.push(InstallOption {
                choice,
                label,
                needs,
            });
        }
        Ok(InstallForm {
            text: listing.shown(),
            name: self.free_name(&switchboard_gallery::text::local_name(&listing.server.name))?,
            listing,
            choices,
        })
    }

    /// The definition `args` would install, without installing it (what `install` shows).
    pub async fn install_plan(&self, args: &InstallRequest) -> Result<Installable> {
        let listing = self.registry_listing(&args.server).await?;
        let installable = self.plan(&listing, choice_of(&listing, args)?, args)?;
        if let Some(runtime) = &installable.runtime {
            runtime_present(runtime)?;
        }
        Ok(installable)
    }

    /// The definition `choice` of `listing` gives under the name `args` asks for.
    fn plan(
        &self,
        listing: &Listing,
        choice: Choice,
        args: &InstallRequest,
    ) -> Result<Installable> {
        let name = match &args.name {
            Some(name) => name.trim().to_owned(),
            None => self.free_name(&switchboard_gallery::text::local_name(&listing.server.name))?,
        };
        self.name_is_free(&name)?;
        definition::installable(listing, choice, &name, &args.values)
    }

    /// The trust review of the definition `args` would install.
    pub async fn install_review(&self, args: &InstallRequest) -> Result<LaunchReview> {
        let mut plan = self.install_plan(args).await?;
        plan.config.inherit_roots(&self.0.host.config()?.roots);
        let trust = &self.0.host.context().trust;
        Ok(LaunchReview::of(&plan.name, &plan.config, trust))
    }

    /// Installs the server `args` names: shows its definition through `confirm` (with where it
    /// came from), and only if the person trusts it writes its secrets to the keychain and adds
    /// it. The local name it was installed under.
    pub async fn install_server(&self, args: InstallRequest, confirm: Confirm) -> Result<String> {
        let listing = self.registry_listing(&args.server).await?;
        let choice = choice_of(&listing, &args)?;
        if let Some(p) = bundle_package(&listing, choice) {
            if !listing.offered() {
                return Err(Error::new(
                    ErrorCode::InvalidInput,
                    "It is no longer offered by its registry.",
                ));
            }
            let (path, sha) = self.fetch_bundle(p).await?;
            let source = bundles::BundleSource {
                path,
                sha256: Some(sha),
                listed: Some(crate::config::InstalledFrom {
                    registry: listing.registry.clone(),
                    name: listing.server.name.clone(),
                    version: listing.server.version.clone(),
                    repository: listing.server.repository.as_ref().map(|r| r.url.clone()),
                    ..Default::default()
                }),
            };
            return self
                .install_bundle_from(source, args.name, args.values, confirm)
                .await;
        }
        // The runtime is checked in `install_planned`, as for a bundle.
        let plan = self.plan(&listing, choice, &args)?;
        self.install_planned(plan, confirm).await
    }

    /// Writes `plan`'s secrets and saves its definition through the trust dialog; takes the
    /// secrets back if it is not saved.
    async fn install_planned(&self, plan: Installable, confirm: Confirm) -> Result<String> {
        if let Some(runtime) = &plan.runtime {
            runtime_present(runtime)?;
        }
        let Installable {
            name,
            config,
            secrets,
            ..
        } = plan;
        let store = self.0.host.context().secrets.clone();
        // Written before the definition is saved (the server starts as soon as it is), and
        // taken back if it is not.
        let (s, kept) = (store.clone(), secrets.clone());
        off_thread(move || kept.iter().try_for_each(|(k, v)| s.set(k, v))).await?;
        let saved = self
            .save_server(
                SaveServer {
                    name: name.clone(),
                    config,
                    previous_name: None,
                },
                confirm,
            )
            .await;
        if let Err(e) = saved {
            let entries: Vec<String> = secrets.into_iter().map(|(k, _)| k).collect();
            off_thread(move || forget(store.as_ref(), &entries)).await?;
            return Err(e);
        }
        Ok(name)
    }

    /// What an argument the app was started with (or a dropped file) asks to open: a bundle's
    /// form, or an install link's request; `None` when it is neither.
    pub async fn open_argument(&self, arg: &str) -> Option<Opened> {
        let failed = |error| Some(Opened::Failed { error });
        if arg.starts_with(&format!("{INSTALL_SCHEME}:")) {
            return match switchboard_gallery::link::parse(arg) {
                Ok(link) => Some(Opened::Link { link }),
                Err(error) => failed(error),
            };
        }
        if !arg.ends_with(".mcpb") {
            return None;
        }
        match self.bundle_form(PathBuf::from(arg)).await {
            Ok(form) => Some(Opened::Bundle {
                form: Box::new(form),
            }),
            Err(error) => failed(error),
        }
    }

    /// Removes a server and the keychain entries of its own its definition refers to (and an
    /// installed bundle's folder).
    pub async fn uninstall_server(&self, args: ServerName) -> Result<()> {
        let config = self.configured_server(&args.server)?;
        let bundle = config
            .installed_from
            .as_ref()
            .and_then(|f| f.bundle.clone());
        let prefix = format!("${{secret:server/{}/", args.server);
        let entries: Vec<String> = config
            .env
            .values()
            .chain(config.headers.values())
            .filter_map(|v| own_entry(v, &prefix))
            .collect();
        self.remove_server(args).await?;
        // The folder the config names goes only if it is one bundle's folder (a config file can
        // name any path) and no other server still runs from it.
        let bundles = self.paths().data_dir.join("bundles");
        let still_used = |folder: &std::path::Path| {
            self.config().map_or(true, |c| {
                c.mcp_servers.values().any(|other| {
                    other
                        .installed_from
                        .as_ref()
                        .and_then(|f| f.bundle.as_deref())
                        == Some(folder)
                })
            })
        };
        if let Some(folder) = bundle.filter(|f| one_bundle_folder(&bundles, f) && !still_used(f)) {
            let _ = std::fs::remove_dir_all(folder);
        }
        let store = self.0.host.context().secrets.clone();
        off_thread(move || forget(store.as_ref(), &entries)).await
    }

    /// The servers installed from a registry that lists a newer version (a registry that cannot
    /// be reached says nothing).
    pub async fn check_updates(&self, _: NoArgs) -> Result<Vec<UpdateView>> {
        let installed: Vec<(String, crate::config::InstalledFrom)> = self
            .config()?
            .mcp_servers
            .into_iter()
            .filter_map(|(name, c)| c.installed_from.map(|f| (name, f)))
            .filter(|(_, f)| f.bundle.is_none())
            .collect();
        let checks = installed.into_iter().map(|(server, from)| async move {
            let latest = Registry::new(&from.registry)
                .ok()?
                .version(&from.name, "latest")
                .await
                .ok()?;
            (latest.server.version != from.version && latest.offered()).then(|| UpdateView {
                server,
                installed: from.version.clone(),
                latest: latest.server.version,
                registry: from.registry,
            })
        });
        Ok(futures::future::join_all(checks)
            .await
            .into_iter()
            .flatten()
            .collect())
    }

    /// Moves server `args.server` to the latest version its registry lists: the same definition
    /// with the new version pinned, shown through `confirm` with what changed, and trusted again
    /// only if the person says so. Whether it was updated.
    pub async fn update_server(&self, args: ServerName, confirm: Confirm) -> Result<bool> {
        let name = args.server;
        let mut config = self.configured_server(&name)?;
        let Some(from) = config.installed_from.clone().filter(|f| f.bundle.is_none()) else {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!("{name:?} was not installed from a registry."),
            ));
        };
        let latest = Registry::new(&from.registry)?
            .version(&from.name, "latest")
            .await?;
        let new = latest.server.version.clone();
        if new == from.version || !latest.offered() {
            return Ok(false);
        }
        if !switchboard_gallery::text::is_exact_version(&new) {
            return Err(Error::new(
                ErrorCode::ServerError,
                "The registry's latest version is not an exact version.",
            ));
        }
        config.args = definition::repin(&config.args, &latest, &from.version, &new);
        if let Some(f) = config.installed_from.as_mut() {
            f.version = new;
        }
        let save = SaveServer {
            name: name.clone(),
            config,
            previous_name: Some(name),
        };
        self.save_server(save, confirm).await.map(|()| true)
    }

    /// An error when a server named `name` is configured already.
    fn name_is_free(&self, name: &str) -> Result<()> {
        if self.config()?.mcp_servers.contains_key(name) {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!("A server named {name:?} is already configured: choose another name."),
            ));
        }
        Ok(())
    }

    /// `base`, or `base-2`, `base-3`… whichever is not configured yet.
    fn free_name(&self, base: &str) -> Result<String> {
        let taken = self.config()?.mcp_servers;
        let name = (1..)
            .map(|i| {
                if i == 1 {
                    base.to_owned()
                } else {
                    format!("{base}-{i}")
                }
            })
            .find(|n| !taken.contains_key(n))
            .unwrap_or_else(|| base.to_owned());
        Ok(name)
    }
}

/// The way to run `listing` that `args` chose, or picked by its kind.
fn choice_of(listing: &Listing, args: &InstallRequest) -> Result<Choice> {
    match args.choice {
        Some(choice) => Ok(choice),
        None => definition::pick(listing, args.kind.as_deref()),
    }
}

/// The `mcpb` package `choice` names, if it names one.
fn bundle_package(listing: &Listing, choice: Choice) -> Option<&Package> {
    match choice {
        Choice::Package(i) => listing
            .server
            .packages
            .get(i)
            .filter(|p| p.registry_type == "mcpb"),
        Choice::Remote(_) => None,
    }
}

/// Whether `folder` is `<bundles>/<name>/<version>`: no `..`, nothing above or below.
fn one_bundle_folder(bundles: &std::path::Path, folder: &std::path::Path) -> bool {
    folder.strip_prefix(bundles).is_ok_and(|rest| {
        let parts: Vec<_> = rest.components().collect();
        parts.len() == 2
            && parts
                .iter()
                .all(|c| matches!(c, std::path::Component::Normal(_)))
    })
}

/// The keychain entry a `${secret:server/<name>/…}` value refers to, when it is nothing else.
fn own_entry(value: &str, prefix: &str) -> Option<String> {
    let rest = value.strip_prefix(prefix)?.strip_suffix('}')?;
    (!rest.contains('}')).then(|| format!("{}{rest}", &prefix["${secret:".len()..]))
}

fn forget(store: &dyn SecretStore, entries: &[String]) -> Result<()> {
    entries.iter().try_for_each(|e| store.delete(e))
}

/// An error saying how to get `runtime` when it is not on PATH.
fn runtime_present(runtime: &str) -> Result<()> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    if std::env::split_paths(&path).any(|dir| dir.join(runtime).is_file()) {
        return Ok(());
    }
    let how = match runtime {
        "npx" => "install Node.js (https://nodejs.org), which comes with npx",
        "uvx" => "install uv (https://docs.astral.sh/uv/), which comes with uvx",
        "docker" => "install Docker (https://docs.docker.com/get-docker/)",
        _ => "install it",
    };
    Err(Error::new(
        ErrorCode::SpawnFailed,
        format!(
            "This server runs with {runtime}, which is not on this computer's PATH: {how}, then try again."
        ),
    ))
}

#[cfg(test)]
mod tests;
