//! MCP Bundles (`.mcpb`): a zip with a `manifest.json` and the server's files, maybe signed.
//! Opening one checks everything before a byte is written: its SHA-256 against the registry's
//! when it came from one, its signature when it carries one, every entry of the zip, its
//! manifest against the schema of its version, and whether it can run here. Installing
//! unpacks it into a folder of its own per name and version and turns its `mcp_config` into a
//! server definition, its `user_config` filled from what the person gave.

pub mod archive;
pub mod manifest;
pub mod runtime;
pub mod settings;
pub mod signature;

use std::path::{Path, PathBuf};

use serde::Serialize;
use sha2::{Digest, Sha256};
use switchboard_base::{Error, ErrorCode, Result};
use ts_rs::TS;

pub use manifest::Manifest;
pub use signature::Signer;

use crate::text;

/// A bundle read and checked, not yet unpacked.
pub struct Opened {
    bytes: Vec<u8>,
    pub manifest: Manifest,
    pub signature: Signature,
    /// The file's SHA-256, hex.
    pub sha256: String,
}

/// Whether a bundle is signed, and by whom.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase", tag = "kind")]
#[ts(export, rename = "BundleSignature")]
pub enum Signature {
    Unsigned,
    Signed(Signer),
}

impl Opened {
    /// Reads the bundle at `path`; `sha256` is the registry's `fileSha256` when it came from
    /// one. Nothing is written.
    pub fn read(path: &Path, sha256: Option<&str>) -> Result<Self> {
        let size = std::fs::metadata(path).map_err(|e| io(path, e))?.len();
        if size > archive::MAX_FILE_BYTES {
            return Err(archive::bad(format!(
                "It is larger than {} MB.",
                archive::MAX_FILE_BYTES >> 20
            )));
        }
        let bytes = std::fs::read(path).map_err(|e| io(path, e))?;
        Self::from_bytes(bytes, sha256)
    }

    pub fn from_bytes(bytes: Vec<u8>, sha256: Option<&str>) -> Result<Self> {
        let digest: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        if let Some(expected) = sha256
            && !expected.eq_ignore_ascii_case(&digest)
        {
            return Err(archive::bad(
                "Its SHA-256 is not the one its registry lists: it is not the file that was \
                 published.",
            ));
        }
        let split = archive::split(&bytes)?;
        let signature = match split.signature {
            Some(der) => Signature::Signed(signature::verify(split.zip, der)?),
            None => Signature::Unsigned,
        };
        let manifest = manifest::parse(&archive::Archive::open(split.zip)?.manifest()?)?;
        compatible(&manifest)?;
        Ok(Self {
            bytes,
            manifest,
            signature,
            sha256: digest,
        })
    }

    /// Where bundle `name` at `version` lives under `bundles`: one folder per both.
    pub fn folder(&self, bundles: &Path) -> PathBuf {
        let m = &self.manifest;
        bundles
            .join(text::local_name(&format!("x/{}", m.name)))
            .join(text::local_name(&format!("x/{}", m.version)))
    }

    /// Unpacks it into [`Opened::folder`] under `bundles`; replaces an earlier unpacking of the
    /// same name and version.
    pub fn unpack(&self, bundles: &Path) -> Result<PathBuf> {
        let dest = self.folder(bundles);
        if dest.exists() {
            std::fs::remove_dir_all(&dest).map_err(|e| io(&dest, e))?;
        }
        let split = archive::split(&self.bytes)?;
        archive::Archive::open(split.zip)?.unpack(&dest)?;
        Ok(dest)
    }
}

/// Whether it runs on this platform and with the runtimes here.
fn compatible(m: &Manifest) -> Result<()> {
    let Some(c) = &m.compatibility else {
        return Ok(());
    };
    let here = match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    };
    if let Some(platforms) = &c.platforms
        && !platforms.iter().any(|p| p == here)
    {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            format!(
                "It runs on {} only, not on this computer ({here}).",
                platforms
                    .iter()
                    .map(|p| text::shown(p, 16))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    Ok(())
}

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::new(ErrorCode::Io, format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests;
