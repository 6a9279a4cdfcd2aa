//! End-to-end tests against real server processes: the npm reference servers, the Python SDK,
//! rmcp's server side (the 2026-07-28 era) and deliberately broken servers.
//! Fixtures are installed by `scripts/setup-fixtures.sh`.

#![allow(deprecated)]

mod support;

mod apps;
mod errors;
mod everything;
mod faults;
mod filesystem;
mod host;
mod keychain;
mod modern;
mod oauth;
mod python_sdk;
mod remote_loss;
mod sandbox;
mod skills;
mod tasks;
