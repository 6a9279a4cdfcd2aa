//! The configuration file as the host last saw it. An edit made in an editor while the app runs
//! is never written over: the host remembers the digest of the text it last read or wrote, reads
//! the file again before every edit and merges the edit into what is on disk, and a watcher
//! reloads the file whenever it changes.

use std::path::Path;
use std::time::{Duration, SystemTime};

use sha2::{Digest, Sha256};

use crate::error::{Error, ErrorCode, Result};

/// How often the watcher looks at the file's size and modification time.
pub const WATCH_EVERY: Duration = Duration::from_millis(500);

/// The file's text, or `None` when there is no file.
pub fn read_text(file: &Path) -> Result<Option<String>> {
    match std::fs::read_to_string(file) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(Error::new(
            ErrorCode::ConfigIo,
            format!("{}: cannot read: {e}", file.display()),
        )),
    }
}

/// What identifies one version of the file's text.
pub fn text_digest(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What a cheap look at the file tells: enough to notice that it may have changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    modified: Option<SystemTime>,
    len: u64,
    inode: u64,
}

impl Stamp {
    /// The file's stamp, or `None` when there is no file.
    pub fn of(file: &Path) -> Option<Self> {
        let meta = std::fs::metadata(file).ok()?;
        Some(Self {
            modified: meta.modified().ok(),
            len: meta.len(),
            inode: inode(&meta),
        })
    }

    /// Whether the file was written so lately that another write could have left the same
    /// time (file systems keep modification times only as fine as the kernel's clock tick).
    pub fn is_recent(&self) -> bool {
        self.modified
            .and_then(|m| m.elapsed().ok())
            .is_none_or(|age| age < RECENT)
    }
}

/// How long after a write the watcher reads the file even when its stamp looks unchanged.
const RECENT: Duration = Duration::from_secs(2);

#[cfg(unix)]
fn inode(meta: &std::fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::ino(meta)
}

#[cfg(not(unix))]
fn inode(_: &std::fs::Metadata) -> u64 {
    0
}

/// The refusal of an edit while the file on disk cannot be read as a configuration: nothing is
/// written over what the person is editing.
pub fn edit_refused(file: &Path, problem: &Error) -> Error {
    Error::new(
        ErrorCode::ConfigInvalid,
        format!(
            "nothing was saved: {} was changed outside Switchboard and cannot be read now ({}); \
             fix the file and try again",
            file.display(),
            problem.message
        ),
    )
}

/// The refusal of an edit when the file changed between reading and writing it.
pub fn changed_while_saving(file: &Path) -> Error {
    Error::new(
        ErrorCode::ConfigIo,
        format!(
            "nothing was saved: {} changed while Switchboard was saving it; try again",
            file.display()
        ),
    )
}
