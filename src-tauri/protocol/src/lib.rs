//! `switchboard-protocol`: speaking MCP to one server. Connections over rmcp (stdio, Streamable
//! HTTP, legacy HTTP+SSE, both protocol eras), the client handler every server→client request
//! enters through (it owns the `Approver` port the policy layer implements), child processes,
//! sign-in to remote servers (OAuth), tasks, MCP Apps views and the server catalog. It builds on
//! `switchboard-base` and knows nothing of approvals, providers, pins or the audit log.

pub mod auth;
pub mod catalog;
pub mod connection;
pub mod egress;
pub mod env_file;
#[cfg(test)]
mod fuzz;
#[cfg(test)]
mod fuzz_targets;
pub mod handler;
pub mod mcp_apps;
pub mod process;
pub mod sse;
pub mod tasks;
pub mod traffic;
pub mod transport;

// The base layer under the names the modules of this crate use for it.
use switchboard_base::{
    ErrorCode, Result, canonical, config, error, events, secrets, store, visible,
};
