//! `switchboard-core`: everything Switchboard does that is not a window, and the one facade
//! (`app`) the window and the CLI use. It owns the supervision of servers, the host (the
//! configuration file as it runs) and the chat, over three layers the compiler keeps apart:
//! `switchboard-base` (errors, store, secrets, paths, config, events) ← `switchboard-protocol`
//! (MCP connections, the client handler, processes, sign-in, tasks, views) ←
//! `switchboard-policy` (the approval door, pins, trust, audit, providers, sampling).
//! This crate never depends on Tauri.

pub mod app;
pub mod chat;
pub mod host;
pub mod servers;

pub use switchboard_base::{Error, ErrorCode, Result};

// The layers below, under the names this crate's modules use for them. They are not re-exported:
// the shell and the CLI use `app`, which re-exports what they need (a test checks); tests reach
// the lower crates directly.
use switchboard_base::{canonical, config, error, events, logging, paths, secrets, store, visible};
use switchboard_policy::{
    approvals, audit, elicitation, pins, providers, sampling, tool_switches, trust,
};
use switchboard_protocol::{
    auth, catalog, connection, egress, handler, mcp_apps, process, tasks, traffic,
};
