//! Where other hosts keep their MCP configuration on this computer: Claude Desktop's
//! `claude_desktop_config.json` and VS Code's (and VS Code Insiders') user `mcp.json`. The import
//! panel offers the ones that exist, so nobody has to find them in a file picker; the window may
//! only name a file from this list.

use std::path::{Path, PathBuf};

use serde::Serialize;
use ts_rs::TS;

use crate::error::{Error, ErrorCode, Result};

/// Another host's configuration file found on this computer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ImportCandidate {
    /// The host it belongs to, as people call it.
    pub app: String,
    pub path: String,
}

/// The usual places, under the platform's configuration folder (`~/.config` on Linux,
/// `~/Library/Application Support` on macOS, `%APPDATA%` on Windows).
fn usual(config_dir: &Path) -> Vec<(&'static str, PathBuf)> {
    vec![
        (
            "Claude Desktop",
            config_dir.join("Claude").join("claude_desktop_config.json"),
        ),
        (
            "VS Code",
            config_dir.join("Code").join("User").join("mcp.json"),
        ),
        (
            "VS Code Insiders",
            config_dir
                .join("Code - Insiders")
                .join("User")
                .join("mcp.json"),
        ),
    ]
}

/// The usual files under `config_dir` that exist.
pub fn found_in(config_dir: &Path) -> Vec<ImportCandidate> {
    usual(config_dir)
        .into_iter()
        .filter(|(_, path)| path.is_file())
        .map(|(app, path)| ImportCandidate {
            app: app.to_owned(),
            path: path.display().to_string(),
        })
        .collect()
}

/// The platform's configuration folder, where the usual files live.
pub fn config_dir() -> Option<PathBuf> {
    directories::BaseDirs::new().map(|d| d.config_dir().to_owned())
}

/// The usual files that exist on this computer.
pub fn found() -> Vec<ImportCandidate> {
    config_dir().map(|d| found_in(&d)).unwrap_or_default()
}

/// `path` if it is one of [`found`]'s files; anything else the window names is refused.
pub fn known(path: &str) -> Result<PathBuf> {
    known_in(&config_dir().unwrap_or_default(), path)
}

/// `path` if it is one of the usual files under `config_dir` that exist.
fn known_in(config_dir: &Path, path: &str) -> Result<PathBuf> {
    found_in(config_dir)
        .into_iter()
        .find(|c| c.path == path)
        .map(|c| PathBuf::from(c.path))
        .ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidInput,
                format!("{path} is not a configuration file Switchboard found; choose it in the file picker"),
            )
        })
}

/// Where the file picker opens: the folder of the first file found, else the home folder.
pub fn picker_folder() -> Option<PathBuf> {
    let dirs = directories::BaseDirs::new()?;
    Some(picker_folder_in(dirs.config_dir(), dirs.home_dir()))
}

/// Where the file picker opens, given where apps keep their files and the home folder: never
/// nowhere, which would open it on an empty "Recent".
fn picker_folder_in(config_dir: &Path, home: &Path) -> PathBuf {
    found_in(config_dir)
        .first()
        .and_then(|c| Path::new(&c.path).parent().map(Path::to_owned))
        .unwrap_or_else(|| home.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_picker_opens_where_a_file_was_found_else_at_home() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        assert_eq!(picker_folder_in(dir.path(), &home), home);
        let code = dir.path().join("Code").join("User");
        std::fs::create_dir_all(&code).unwrap();
        std::fs::write(code.join("mcp.json"), "{}").unwrap();
        assert_eq!(picker_folder_in(dir.path(), &home), code);
    }

    #[test]
    fn only_the_files_that_exist_are_offered() {
        let dir = tempfile::tempdir().unwrap();
        assert!(found_in(dir.path()).is_empty());
        let claude = dir.path().join("Claude");
        std::fs::create_dir_all(&claude).unwrap();
        std::fs::write(claude.join("claude_desktop_config.json"), "{}").unwrap();
        let code = dir.path().join("Code").join("User");
        std::fs::create_dir_all(&code).unwrap();
        std::fs::write(code.join("mcp.json"), "{}").unwrap();
        let found = found_in(dir.path());
        let apps: Vec<&str> = found.iter().map(|c| c.app.as_str()).collect();
        assert_eq!(apps, ["Claude Desktop", "VS Code"]);
        assert!(
            found[1].path.ends_with("Code/User/mcp.json"),
            "{}",
            found[1].path
        );
    }

    #[test]
    fn the_window_may_name_only_a_file_found() {
        let dir = tempfile::tempdir().unwrap();
        let claude = dir.path().join("Claude");
        std::fs::create_dir_all(&claude).unwrap();
        let file = claude.join("claude_desktop_config.json");
        std::fs::write(&file, "{}").unwrap();
        let found = file.display().to_string();
        assert_eq!(known_in(dir.path(), &found).unwrap(), file);
        let other = dir.path().join("secrets.json");
        std::fs::write(&other, "{}").unwrap();
        let e = known_in(dir.path(), &other.display().to_string()).unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput);
    }
}
