//! The gallery: how a server gets in with a click. A registry's listings (the MCP Registry's
//! `v0.1` API, `server.json` documents) are fetched, checked and made safe to show; a chosen
//! package or remote becomes an ordinary server definition, pinned to its exact version and run
//! without a shell, with its secrets set apart for the keychain. Nothing here runs anything or
//! writes the config: the core does that after the person has seen and trusted the definition.

pub mod bundle;
pub mod definition;
pub mod link;
pub mod registry;
pub mod text;

pub use definition::{Choice, Installable, Needed, Provenance};
pub use registry::{Listing, Page, Query, Registry, Status};
