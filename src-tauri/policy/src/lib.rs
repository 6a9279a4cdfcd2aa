//! `switchboard-policy`: what a person decides and what is kept of it. The approval door (tool
//! calls, sampling, elicitation, views) with its queue and standing rules, pins of tool
//! definitions, trust in server definitions, the audit log, sampling limits and the LLM providers
//! approved sampling goes to. It builds on `switchboard-base` and `switchboard-protocol`.

pub mod approvals;
pub mod audit;
pub mod elicitation;
pub mod pins;
pub mod providers;
pub mod rate;
pub mod sampling;
pub mod tool_switches;
pub mod trust;

// The layers below under the names the modules of this crate use for them.
use switchboard_base::{canonical, config, error, events, secrets, store, visible};
use switchboard_protocol::{handler, sse, transport};
