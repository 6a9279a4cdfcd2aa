//! A `.mcpb` file as bytes: its signature block split off, its zip opened and every entry
//! checked before anything is written (no absolute path, no `..`, no symbolic link, no entry
//! or total past the caps, no more entries than the cap), then unpacked into a folder that
//! only appears, whole, once everything was written.

use std::io::Read;
use std::path::{Component, Path, PathBuf};

use switchboard_base::{Error, ErrorCode, Result};

use crate::text;

/// The largest bundle file read.
pub const MAX_FILE_BYTES: u64 = 512 << 20;
/// The largest an entry may be once unpacked.
pub const MAX_ENTRY_BYTES: u64 = 256 << 20;
/// The most all entries may weigh once unpacked.
pub const MAX_TOTAL_BYTES: u64 = 1 << 30;
/// The most entries a bundle may hold.
pub const MAX_ENTRIES: usize = 20_000;
/// The largest manifest read.
const MAX_MANIFEST_BYTES: u64 = 1 << 20;

const SIG_HEADER: &[u8] = b"MCPB_SIG_V1";
const SIG_FOOTER: &[u8] = b"MCPB_SIG_END";

/// A bundle's zip and, when it carries one, its PKCS#7 signature (DER).
pub struct Split<'a> {
    pub zip: &'a [u8],
    pub signature: Option<&'a [u8]>,
}

/// Splits the signature block the official CLI appends (`MCPB_SIG_V1`, a 4-byte little-endian
/// length, the DER signature, `MCPB_SIG_END`) from the zip. A block that does not add up is an
/// error: a signature that is there but cannot be read is not the same as none.
pub fn split(file: &[u8]) -> Result<Split<'_>> {
    let Some(before_footer) = file.strip_suffix(SIG_FOOTER) else {
        return Ok(Split {
            zip: file,
            signature: None,
        });
    };
    let broken = || bad("Its signature block is damaged, so it cannot be trusted.");
    let header = find_last(before_footer, SIG_HEADER).ok_or_else(broken)?;
    let after = &before_footer[header + SIG_HEADER.len()..];
    let (len, der) = after.split_at_checked(4).ok_or_else(broken)?;
    let len = u32::from_le_bytes(len.try_into().map_err(|_| broken())?) as usize;
    if der.len() != len {
        return Err(broken());
    }
    Ok(Split {
        zip: &file[..header],
        signature: Some(der),
    })
}

fn find_last(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).rposition(|w| w == needle)
}

/// The zip, opened with every entry checked.
pub struct Archive<'a> {
    zip: zip::ZipArchive<std::io::Cursor<&'a [u8]>>,
}

impl<'a> Archive<'a> {
    pub fn open(bytes: &'a [u8]) -> Result<Self> {
        let zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))
            .map_err(|e| bad(format!("It is not a readable zip archive: {e}.")))?;
        let mut archive = Self { zip };
        archive.check()?;
        Ok(archive)
    }

    /// Every entry's path, kind and size, before anything is written.
    fn check(&mut self) -> Result<()> {
        if self.zip.len() > MAX_ENTRIES {
            return Err(bad(format!(
                "It holds {} files, more than the {MAX_ENTRIES} a bundle may.",
                self.zip.len()
            )));
        }
        let mut total = 0u64;
        for i in 0..self.zip.len() {
            let entry = self.zip.by_index_raw(i).map_err(|e| bad(e.to_string()))?;
            let name = entry.name().to_owned();
            safe_path(&name)?;
            if entry.is_symlink() {
                return Err(bad(format!(
                    "It holds a symbolic link ({}), which could point outside its folder.",
                    text::shown(&name, 100)
                )));
            }
            if entry.size() > MAX_ENTRY_BYTES {
                return Err(bad(format!(
                    "Its file {} unpacks to more than {} MB.",
                    text::shown(&name, 100),
                    MAX_ENTRY_BYTES >> 20
                )));
            }
            total += entry.size();
        }
        if total > MAX_TOTAL_BYTES {
            return Err(bad(format!(
                "It unpacks to more than {} MB.",
                MAX_TOTAL_BYTES >> 20
            )));
        }
        Ok(())
    }

    /// `manifest.json`'s bytes.
    pub fn manifest(&mut self) -> Result<Vec<u8>> {
        let entry = self
            .zip
            .by_name("manifest.json")
            .map_err(|_| bad("It has no manifest.json at its top level."))?;
        let mut bytes = Vec::new();
        entry
            .take(MAX_MANIFEST_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| bad(format!("Its manifest.json cannot be read: {e}.")))?;
        if bytes.len() as u64 > MAX_MANIFEST_BYTES {
            return Err(bad("Its manifest.json is larger than 1 MB."));
        }
        Ok(bytes)
    }

    /// Unpacks into `dest` (which must not exist): written into a sibling folder first, which
    /// is removed if anything fails and renamed to `dest` when everything was written.
    pub fn unpack(&mut self, dest: &Path) -> Result<()> {
        let parent = dest
            .parent()
            .ok_or_else(|| bad("The bundle's folder has no parent."))?;
        std::fs::create_dir_all(parent).map_err(io)?;
        let staging = tempdir_in(parent)?;
        let written = self.write_all(&staging);
        let placed = written.and_then(|()| std::fs::rename(&staging, dest).map_err(io));
        if placed.is_err() {
            let _ = std::fs::remove_dir_all(&staging);
        }
        placed
    }

    fn write_all(&mut self, into: &Path) -> Result<()> {
        for i in 0..self.zip.len() {
            let mut entry = self.zip.by_index(i).map_err(|e| bad(e.to_string()))?;
            let path = into.join(safe_path(entry.name())?);
            if entry.is_dir() {
                std::fs::create_dir_all(&path).map_err(io)?;
                continue;
            }
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(io)?;
            }
            let mut out = std::fs::File::create(&path).map_err(io)?;
            // The header's size is the publisher's word: read no more than the cap either way.
            let copied = std::io::copy(&mut (&mut entry).take(MAX_ENTRY_BYTES + 1), &mut out)
                .map_err(|e| bad(format!("Its file cannot be unpacked: {e}.")))?;
            if copied > MAX_ENTRY_BYTES {
                return Err(bad("One of its files unpacks to more than its size says."));
            }
            set_mode(&path, entry.unix_mode())?;
        }
        Ok(())
    }
}

/// `name` as a relative path inside the bundle: no root, no `..`, no drive, no backslash tricks.
fn safe_path(name: &str) -> Result<PathBuf> {
    let unsafe_entry = || {
        bad(format!(
            "It holds a file whose path leaves its folder ({}).",
            text::shown(name, 100)
        ))
    };
    if name.is_empty() || name.contains('\\') || name.contains('\0') {
        return Err(unsafe_entry());
    }
    let path = Path::new(name);
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::Normal(p) => out.push(p),
            Component::CurDir => {}
            _ => return Err(unsafe_entry()),
        }
    }
    if out.as_os_str().is_empty() {
        return Err(unsafe_entry());
    }
    Ok(out)
}

/// Keeps the execute bits the CLI stored (a binary server needs them), nothing else.
#[cfg(unix)]
fn set_mode(path: &Path, mode: Option<u32>) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let executable = mode.is_some_and(|m| m & 0o111 != 0);
    let mode = if executable { 0o755 } else { 0o644 };
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).map_err(io)
}

#[cfg(not(unix))]
fn set_mode(_: &Path, _: Option<u32>) -> Result<()> {
    Ok(())
}

/// A fresh folder in `parent` for unpacking into.
fn tempdir_in(parent: &Path) -> Result<PathBuf> {
    for attempt in 0..100u32 {
        let dir = parent.join(format!(".unpacking-{}-{attempt}", std::process::id()));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io(e)),
        }
    }
    Err(bad("No folder could be made to unpack it in."))
}

pub(crate) fn bad(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidInput, message)
}

fn io(e: std::io::Error) -> Error {
    Error::new(ErrorCode::Io, format!("Unpacking the bundle failed: {e}."))
}
