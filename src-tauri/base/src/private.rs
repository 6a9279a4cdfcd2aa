//! Folders and files only the person can read, whatever the umask: the data folder (database,
//! downloads, bundles, servers' state) and the config file hold what servers run and what they
//! were told.

use std::io::Write as _;
use std::path::Path;

/// Creates `dir` (and its parents) and makes `dir` itself readable by its owner only.
pub fn dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    restrict(dir, 0o700)
}

/// Makes an existing `file` readable and writable by its owner only.
pub fn file(file: &Path) -> std::io::Result<()> {
    restrict(file, 0o600)
}

/// Writes `text` to a new `file` that only its owner can read, from its first byte.
pub fn write(file: &Path, text: &[u8]) -> std::io::Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut out = options.open(file)?;
    // An existing file keeps its mode through `open`.
    restrict(file, 0o600)?;
    out.write_all(text)?;
    out.sync_all()
}

#[cfg(unix)]
fn restrict(path: &Path, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn restrict(_: &Path, _: u32) -> std::io::Result<()> {
    // The user's profile folders are private by their ACLs.
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn folders_and_files_are_the_owners_only_whatever_was_there() {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("a/data");
        dir(&data).unwrap();
        assert_eq!(mode(&data), 0o700);
        let config = tmp.path().join("config.json");
        std::fs::write(&config, "{}").unwrap();
        std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o666)).unwrap();
        write(&config, b"{\"x\":1}").unwrap();
        assert_eq!(mode(&config), 0o600);
        assert_eq!(std::fs::read_to_string(&config).unwrap(), "{\"x\":1}");
    }
}
