//! Installing MCP Bundles: a file the person chose, or a registry's `mcpb` package (downloaded
//! over https into the data directory's downloads, kept only if its SHA-256 is the registry's
//! `fileSha256`). Either is unpacked into its own folder, shown through the trust dialog with
//! who signed it, and removed again, with its secrets, if the person does not trust it.

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use sha2::{Digest, Sha256};
use switchboard_gallery::bundle::{Opened as OpenedBundle, archive, runtime, settings};
use switchboard_gallery::registry::server_json::Package;
use switchboard_gallery::text;

use super::{BundleForm, BundleInstall};
use crate::app::{App, Confirm};
use crate::config::InstalledFrom;
use crate::error::{Error, ErrorCode, Result};
use crate::store::off_thread;

/// Where a bundle comes from, as its definition records it.
pub(super) struct BundleSource {
    pub path: PathBuf,
    /// The registry's `fileSha256`, for one from a registry.
    pub sha256: Option<String>,
    /// The registry listing, for one from a registry.
    pub listed: Option<InstalledFrom>,
}

impl App {
    /// The install form of the bundle file at `path` (read and checked; nothing written).
    pub async fn bundle_form(&self, path: PathBuf) -> Result<BundleForm> {
        let opened = off_thread(move || OpenedBundle::read(&path, None)).await?;
        let m = &opened.manifest;
        let shown = |s: &str| text::shown(s, text::LONG);
        Ok(BundleForm {
            name: self.free_name(&text::local_name(&format!("x/{}", m.name)))?,
            display_name: shown(m.display_name.as_deref().unwrap_or(&m.name)),
            version: shown(&m.version),
            description: shown(&m.description),
            author: shown(&m.author.name),
            signature_text: settings::signature_text(&opened.signature),
            signature: opened.signature.clone(),
            needs: settings::needs(m),
            sha256: opened.sha256.clone(),
        })
    }

    /// Installs the bundle file `args.path`. The local name.
    pub async fn install_bundle(&self, args: BundleInstall, confirm: Confirm) -> Result<String> {
        let source = BundleSource {
            path: args.path,
            sha256: None,
            listed: None,
        };
        self.install_bundle_from(source, args.name, args.values, confirm)
            .await
    }

    /// Unpacks the bundle `source` names into its own folder and installs its definition
    /// through `confirm`; if it is not installed, the folder goes again.
    pub(super) async fn install_bundle_from(
        &self,
        source: BundleSource,
        name: Option<String>,
        values: IndexMap<String, String>,
        confirm: Confirm,
    ) -> Result<String> {
        let (path, sha) = (source.path.clone(), source.sha256.clone());
        let opened = off_thread(move || OpenedBundle::read(&path, sha.as_deref())).await?;
        runtime_suits(&opened).await?;
        let name = match name {
            Some(name) => name.trim().to_owned(),
            None => self.free_name(&text::local_name(&format!("x/{}", opened.manifest.name)))?,
        };
        self.name_is_free(&name)?;
        let bundles = self.paths().data_dir.join("bundles");
        let home = directories::BaseDirs::new().map(|d| d.home_dir().to_path_buf());
        let (mut plan, folder) = off_thread(move || {
            let folder = opened.unpack(&bundles)?;
            match settings::definition(&opened, &folder, &name, &values, home.as_deref()) {
                Ok(plan) => Ok((plan, folder)),
                Err(e) => {
                    let _ = std::fs::remove_dir_all(&folder);
                    Err(e)
                }
            }
        })
        .await?;
        if let Some(from) = plan.config.installed_from.as_mut() {
            match source.listed {
                Some(listed) => {
                    from.registry = listed.registry;
                    from.name = listed.name;
                    from.version = listed.version;
                    from.repository = listed.repository.or(from.repository.take());
                }
                None => from.registry = source.path.to_string_lossy().into_owned(),
            }
        }
        let installed = self.install_planned(plan, confirm).await;
        if installed.is_err() {
            let _ = std::fs::remove_dir_all(&folder);
        }
        installed
    }

    /// A registry's `mcpb` package, downloaded once into the data directory's downloads and
    /// kept only when its SHA-256 is the one the registry lists.
    pub(super) async fn fetch_bundle(&self, p: &Package) -> Result<(PathBuf, String)> {
        let sha = p
            .file_sha256
            .clone()
            .filter(|s| s.len() == 64 && s.chars().all(|c| c.is_ascii_hexdigit()))
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::InvalidInput,
                    "Its bundle has no SHA-256 in the registry, so what arrives could not be checked.",
                )
            })?
            .to_ascii_lowercase();
        let downloads = self.paths().data_dir.join("downloads");
        let path = downloads.join(format!("{sha}.mcpb"));
        if path.is_file() {
            return Ok((path, sha));
        }
        let bytes = download(&p.identifier).await?;
        let digest: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        if digest != sha {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                "The downloaded bundle's SHA-256 is not the one its registry lists: it is not \
                 the file that was published, so it was not kept.",
            ));
        }
        let target = path.clone();
        off_thread(move || keep(&downloads, &target, &bytes)).await?;
        Ok((path, sha))
    }
}

/// Whether the runtime here is one the bundle accepts (`compatibility.runtimes`): its
/// `--version`, asked of the program itself, against the range.
async fn runtime_suits(opened: &OpenedBundle) -> Result<()> {
    let Some((program, range)) = runtime::requirement(&opened.manifest) else {
        return Ok(());
    };
    let answer = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        tokio::process::Command::new(program)
            .arg("--version")
            .output(),
    )
    .await;
    let Ok(Ok(out)) = answer else {
        return Err(Error::new(
            ErrorCode::SpawnFailed,
            format!(
                "This bundle runs on {program}, which did not answer on this computer: install it, then try again."
            ),
        ));
    };
    let said = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
    let Some(version) = runtime::version_in(&said) else {
        return Ok(());
    };
    if runtime::satisfies(range, version) == Some(false) {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            format!(
                "This bundle needs {program} {}, and this computer has {}.{}.{}.",
                text::shown(range, 64),
                version[0],
                version[1],
                version[2]
            ),
        ));
    }
    Ok(())
}

/// Downloads an https URL, up to the bundle size cap.
async fn download(url: &str) -> Result<Vec<u8>> {
    let parsed = url::Url::parse(url)
        .ok()
        .filter(|u| u.scheme() == "https" || is_loopback_http(u))
        .ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidInput,
                format!(
                    "Its bundle's address {:?} is not an https URL.",
                    text::shown(url, 100)
                ),
            )
        })?;
    let failed = |e: reqwest::Error| {
        Error::new(
            ErrorCode::ConnectFailed,
            "The bundle could not be downloaded.",
        )
        .with_details(e.to_string())
    };
    let mut response = reqwest::get(parsed).await.map_err(failed)?;
    if !response.status().is_success() {
        return Err(Error::new(
            ErrorCode::ConnectFailed,
            format!(
                "Downloading the bundle answered HTTP {}.",
                response.status().as_u16()
            ),
        ));
    }
    let mut bytes = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(failed)? {
        if (bytes.len() + chunk.len()) as u64 > archive::MAX_FILE_BYTES {
            return Err(Error::new(
                ErrorCode::MessageTooLarge,
                format!(
                    "The bundle is larger than {} MB.",
                    archive::MAX_FILE_BYTES >> 20
                ),
            ));
        }
        bytes.extend_from_slice(&chunk);
    }
    Ok(bytes)
}

/// Plain http only to this computer (a test's or a mirror's loopback).
fn is_loopback_http(u: &url::Url) -> bool {
    u.scheme() == "http" && matches!(u.host_str(), Some("127.0.0.1" | "localhost" | "[::1]"))
}

/// Writes `bytes` to `target` whole or not at all.
fn keep(dir: &Path, target: &Path, bytes: &[u8]) -> Result<()> {
    let io =
        |e: std::io::Error| Error::new(ErrorCode::Io, format!("Keeping the download failed: {e}."));
    std::fs::create_dir_all(dir).map_err(io)?;
    let partial = target.with_extension("partial");
    std::fs::write(&partial, bytes).map_err(io)?;
    std::fs::rename(&partial, target).map_err(io)
}
