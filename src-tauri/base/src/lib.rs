//! `switchboard-base`: the bottom layer of Switchboard's core. Errors as sentences, the SQLite
//! store and its migrations, secrets in the OS keychain, paths, the configuration file and its
//! import, the events the window shows and what they carry, what a person can see in text,
//! canonical digests and ids. It speaks no MCP connection and knows
//! nothing of approvals: the crates above it (protocol, policy, core) build on it.

pub mod canonical;
pub mod config;
pub mod error;
pub mod events;
#[cfg(test)]
mod fuzz;
#[cfg(any(test, feature = "fuzzing"))]
pub mod fuzzing;
pub mod logging;
pub mod paths;
pub mod private;
pub mod secrets;
pub mod store;
pub mod visible;

pub use error::{Error, ErrorCode, Result};
