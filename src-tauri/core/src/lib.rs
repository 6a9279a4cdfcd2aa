//! `switchboard-core`: everything Switchboard does that is not a window. Configuration and import,
//! secrets in the OS keychain, sign-in to remote servers (OAuth), supervised MCP connections over rmcp (stdio and HTTP, both protocol
//! eras), the approval door with its policies, pins, sampling providers and audit log in SQLite, and
//! the events the UI shows.
//! This crate never depends on Tauri.

// Sampling, roots and logging are deprecated by SEP-2577 for 2026-07-28 and later, but
// Switchboard speaks every revision and these features are central to it.
#![allow(deprecated)]

pub mod app;
pub mod approvals;
pub mod apps;
pub mod audit;
pub mod auth;
pub mod canonical;
pub mod catalog;
pub mod chat;
pub mod config;
pub mod connection;
pub mod elicitation;
pub mod error;
pub mod events;
#[cfg(test)]
mod fuzz;
pub mod handler;
pub mod host;
pub mod logging;
pub mod paths;
pub mod pins;
pub mod process;
pub mod providers;
pub mod rate;
pub mod sampling;
pub mod secrets;
pub mod servers;
pub mod sse;
pub mod store;
pub mod tasks;
pub mod transport;
pub mod trust;
pub mod visible;

pub use error::{Error, ErrorCode, Result};
