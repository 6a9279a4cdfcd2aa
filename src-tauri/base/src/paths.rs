//! Where Switchboard keeps its files: the config file and the data directory (database, logs).
//! Defaults come from `directories`; each can be overridden by a flag or an environment variable so
//! tests and portable installs never touch the user's real files.

use std::path::{Path, PathBuf};

use crate::error::{Error, ErrorCode, Result};

/// Environment variable naming the config file (overrides the platform default).
pub const CONFIG_ENV: &str = "SWITCHBOARD_CONFIG";
/// Environment variable naming the data directory (overrides the platform default).
pub const DATA_DIR_ENV: &str = "SWITCHBOARD_DATA_DIR";

/// The resolved locations of Switchboard's files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paths {
    /// The `mcpServers` configuration file.
    pub config_file: PathBuf,
    /// Directory for the database and other state.
    pub data_dir: PathBuf,
}

impl Paths {
    /// Resolves paths: explicit arguments win, then environment variables, then platform defaults.
    pub fn resolve(config_file: Option<&Path>, data_dir: Option<&Path>) -> Result<Self> {
        let dirs = || {
            directories::ProjectDirs::from("dev", "switchboard", "Switchboard").ok_or_else(|| {
                Error::new(
                    ErrorCode::ConfigIo,
                    format!(
                        "no home directory found; set {CONFIG_ENV} and {DATA_DIR_ENV} to choose where Switchboard keeps its files"
                    ),
                )
            })
        };
        let config_file = match config_file
            .map(Path::to_path_buf)
            .or_else(|| std::env::var_os(CONFIG_ENV).map(PathBuf::from))
        {
            Some(p) => p,
            None => dirs()?.config_dir().join("config.json"),
        };
        let data_dir = match data_dir
            .map(Path::to_path_buf)
            .or_else(|| std::env::var_os(DATA_DIR_ENV).map(PathBuf::from))
        {
            Some(p) => p,
            None => dirs()?.data_dir().to_path_buf(),
        };
        Ok(Self {
            config_file,
            data_dir,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_paths_win() {
        let p = Paths::resolve(Some(Path::new("/x/c.json")), Some(Path::new("/x/d"))).unwrap();
        assert_eq!(p.config_file, PathBuf::from("/x/c.json"));
        assert_eq!(p.data_dir, PathBuf::from("/x/d"));
    }
}
