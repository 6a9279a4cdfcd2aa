//! `switchboard-core`: everything Switchboard does that is not a window. Configuration and import,
//! secrets in the OS keychain, supervised MCP connections over rmcp (stdio and HTTP, both protocol
//! eras), the approval door for server→client requests, and the events the UI shows.
//! This crate never depends on Tauri.

// Sampling, roots and logging are deprecated by SEP-2577 for 2026-07-28 and later, but
// Switchboard speaks every revision and these features are central to it.
#![allow(deprecated)]

pub mod approvals;
pub mod catalog;
pub mod config;
pub mod connection;
pub mod error;
pub mod events;
pub mod handler;
pub mod host;
pub mod paths;
pub mod process;
pub mod secrets;
pub mod servers;
pub mod transport;

pub use error::{Error, ErrorCode, Result};
