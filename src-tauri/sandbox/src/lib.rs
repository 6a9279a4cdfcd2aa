//! The OS box a local server runs in. This crate owns what a sandboxed server may read, write
//! and reach (`grants`: decided from its profile, its roots, its resolved program and runtime),
//! how the kernel is told (`linux`: a Landlock ruleset and a seccomp filter built in the parent,
//! installed between fork and exec with async-signal-safe calls only), and how a refusal is
//! recognised so the user learns which setting to change (`hints`). It knows nothing of MCP.

pub mod grants;
pub mod hints;
#[cfg(target_os = "linux")]
pub mod linux;

pub use grants::{BoxPlace, BoxSpec, Grants, Network};
pub use switchboard_base::error;

use switchboard_base::error::{Error, ErrorCode, Result};

/// What the kernel offers for the box.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Support {
    /// The Landlock ABI version (0: none).
    pub landlock_abi: i32,
    /// Whether seccomp filters can be installed.
    pub seccomp: bool,
}

/// The first Landlock ABI that can limit TCP connections (Linux 6.7).
pub const LANDLOCK_NET_ABI: i32 = 4;

impl Support {
    /// What this kernel offers.
    pub fn detect() -> Self {
        #[cfg(target_os = "linux")]
        return linux::support();
        #[cfg(not(target_os = "linux"))]
        Support {
            landlock_abi: 0,
            seccomp: false,
        }
    }

    /// An error naming what is missing for `grants`, for server `server`; `None` when the box can
    /// be built. Nothing falls back to running unsandboxed.
    pub fn lacks(&self, server: &str, grants: &Grants) -> Option<Error> {
        let missing = if cfg!(not(target_os = "linux")) {
            Some("the sandbox is only built for Linux so far".to_owned())
        } else if self.landlock_abi < 1 {
            Some(
                "this kernel has no Landlock (Linux 5.13 or later with Landlock enabled is needed)"
                    .to_owned(),
            )
        } else if !self.seccomp {
            Some("this kernel has no seccomp filters".to_owned())
        } else if matches!(grants.network, Network::Proxy { .. })
            && self.landlock_abi < LANDLOCK_NET_ABI
        {
            Some(format!(
                "limiting a server to listed hosts needs Landlock ABI {LANDLOCK_NET_ABI} (Linux 6.7); this kernel has ABI {}",
                self.landlock_abi
            ))
        } else {
            None
        };
        missing.map(|why| {
            Error::new(
                ErrorCode::Sandbox,
                format!(
                    "Server \"{server}\" was not started: {why}. Switchboard never runs a server outside its sandbox without being told to. To run it without the sandbox, turn the sandbox off in its settings (\"sandbox\": false in the config, or --sandbox off in the CLI)."
                ),
            )
        })
    }
}

/// A box ready to be entered: built in the parent, entered by the child between fork and exec.
#[derive(Debug)]
pub struct Prepared {
    #[cfg(target_os = "linux")]
    inner: linux::Prepared,
}

impl Prepared {
    /// Builds the box for `grants`, or says why it cannot be built on this system.
    pub fn build(server: &str, grants: &Grants, support: Support) -> Result<Self> {
        if let Some(e) = support.lacks(server, grants) {
            return Err(e);
        }
        #[cfg(target_os = "linux")]
        return Ok(Self {
            inner: linux::Prepared::build(grants, support).map_err(|why| {
                Error::new(
                    ErrorCode::Sandbox,
                    format!("Server \"{server}\" was not started: its sandbox could not be built ({why})."),
                )
            })?,
        });
        #[cfg(not(target_os = "linux"))]
        Err(Error::new(
            ErrorCode::Sandbox,
            format!(
                "Server \"{server}\" was not started: the sandbox is only built for Linux so far."
            ),
        ))
    }

    /// Enters the box. Called in the child between fork and exec, so it only makes
    /// async-signal-safe system calls: no allocation, no locks.
    ///
    /// # Safety
    /// Only call this in a freshly forked child that is about to exec.
    pub unsafe fn enter(&self) -> std::io::Result<()> {
        #[cfg(target_os = "linux")]
        // SAFETY: the caller's contract is the callee's.
        return unsafe { self.inner.enter() };
        #[cfg(not(target_os = "linux"))]
        Ok(())
    }
}
