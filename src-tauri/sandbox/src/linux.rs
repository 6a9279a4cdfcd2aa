//! The box on Linux. The parent builds everything that allocates or opens files: a Landlock
//! ruleset (its file descriptor, with one rule per granted path and, for a proxied network, the
//! proxy's port) and a seccomp program. The child, between fork and exec, only makes system
//! calls: no new privileges, no capabilities, enter the ruleset, install the filter. All of it is
//! inherited by every process the server starts.

mod filter;

use std::os::fd::{AsRawFd, OwnedFd};

use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, NetPort, Ruleset, RulesetAttr,
    RulesetCreatedAttr, Scope,
};

use crate::{Grants, Network, Support};

/// `SECCOMP_FILTER_FLAG_SPEC_ALLOW` (Linux 4.17).
const SECCOMP_FILTER_FLAG_SPEC_ALLOW: u32 = 1 << 2;

/// What this kernel offers.
pub fn support() -> Support {
    // SAFETY: landlock_create_ruleset with a null attribute and the VERSION flag only reports.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32, // LANDLOCK_CREATE_RULESET_VERSION
        )
    };
    // SAFETY: PR_GET_SECCOMP reads the caller's mode; EINVAL means no seccomp.
    let seccomp = unsafe { libc::prctl(libc::PR_GET_SECCOMP) } >= 0;
    Support {
        landlock_abi: i32::try_from(abi).unwrap_or(0).max(0),
        seccomp,
    }
}

/// A ruleset and a filter, ready for the child to enter.
#[derive(Debug)]
pub struct Prepared {
    ruleset: OwnedFd,
    filter: Vec<filter::Instruction>,
}

/// The crate's ABI for the kernel's Landlock version, at most V6. What later versions add would
/// change no box: V7 and V8 only add `landlock_restrict_self` flags (audit logging, all threads
/// at once; the child is one thread), and V9's right to connect to a pathname Unix socket would
/// refuse nothing more: the filter refuses `socket(AF_UNIX)`, the only way to one (a
/// `socketpair` it allows has no name to connect to; `filter.rs`).
fn abi_of(version: i32) -> ABI {
    match version {
        ..=0 => ABI::Unsupported,
        1 => ABI::V1,
        2 => ABI::V2,
        3 => ABI::V3,
        4 => ABI::V4,
        5 => ABI::V5,
        _ => ABI::V6,
    }
}

impl Prepared {
    /// Builds the ruleset and the filter for `grants`; the error says what failed.
    pub fn build(grants: &Grants, support: Support) -> Result<Self, String> {
        Ok(Self {
            ruleset: ruleset(grants, abi_of(support.landlock_abi))?,
            filter: filter::program(grants.network)?,
        })
    }

    /// Enters the box: only system calls, no allocation.
    ///
    /// # Safety
    /// Only call this in a freshly forked child that is about to exec.
    pub unsafe fn enter(&self) -> std::io::Result<()> {
        let last = std::io::Error::last_os_error;
        // SAFETY: plain system calls on memory this struct owns and keeps alive.
        unsafe {
            if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                return Err(last());
            }
            drop_capabilities()?;
            if libc::syscall(
                libc::SYS_landlock_restrict_self,
                self.ruleset.as_raw_fd(),
                0u32,
            ) != 0
            {
                return Err(last());
            }
            let program = libc::sock_fprog {
                len: u16::try_from(self.filter.len()).unwrap_or(u16::MAX),
                filter: self.filter.as_ptr().cast_mut(),
            };
            if libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER,
                // As Chromium's sandbox does: without it the kernel turns on its speculative
                // store bypass mitigation for the server, which guards a process against code
                // running inside it. Here that code is the server itself.
                SECCOMP_FILTER_FLAG_SPEC_ALLOW,
                &program as *const libc::sock_fprog,
            ) != 0
            {
                return Err(last());
            }
        }
        Ok(())
    }
}

/// The seccomp program a box with `network` installs, as the kernel is given it: for measuring
/// what entering a box costs (`examples/box_cost.rs`, `scripts/box-floor.sh`).
pub fn seccomp_program(network: Network) -> Result<Vec<libc::sock_filter>, String> {
    filter::program(network)
}

/// The kernel's `struct __user_cap_header_struct` and `struct __user_cap_data_struct`.
#[repr(C)]
struct CapHeader {
    version: u32,
    pid: i32,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct CapData {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

/// `_LINUX_CAPABILITY_VERSION_3`.
const CAPABILITY_VERSION_3: u32 = 0x2008_0522;

/// Leaves the server no capabilities, now or after exec: a host running as root would otherwise
/// hand them on, and with `CAP_SYS_PTRACE` Landlock lets a process read another's
/// `/proc/<pid>/environ` (where the host's provider keys are). Emptying the permitted set also
/// empties the ambient set (the kernel keeps it within permitted and inheritable), and with no
/// new privileges set first an exec grants nothing beyond the permitted set it starts from, not
/// even to root: so the bounding set is left as it is. Dropping it too took one system call a
/// capability, about 100 µs of every boxed start.
///
/// # Safety
/// Only system calls on stack memory: for the child between fork and exec, after
/// `PR_SET_NO_NEW_PRIVS`.
unsafe fn drop_capabilities() -> std::io::Result<()> {
    let header = CapHeader {
        version: CAPABILITY_VERSION_3,
        pid: 0,
    };
    let none = [CapData {
        effective: 0,
        permitted: 0,
        inheritable: 0,
    }; 2];
    // SAFETY: capset on stack values.
    if unsafe { libc::syscall(libc::SYS_capset, &header as *const CapHeader, none.as_ptr()) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// The Landlock ruleset: every filesystem right handled, only the granted paths allowed; TCP
/// connect and bind handled unless the network is on (off: no port; proxied: the proxy's port);
/// abstract Unix sockets and signals scoped to the box.
fn ruleset(grants: &Grants, abi: ABI) -> Result<OwnedFd, String> {
    let fail = |what: &str, e: &dyn std::fmt::Display| format!("{what}: {e}");
    let mut base = Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(abi))
        .map_err(|e| fail("filesystem rights", &e))?;
    if grants.network != Network::On {
        base = base
            .handle_access(AccessNet::from_all(abi))
            .map_err(|e| fail("network rights", &e))?;
    }
    let mut created = base
        .scope(Scope::from_all(abi))
        .map_err(|e| fail("scopes", &e))?
        .create()
        .map_err(|e| fail("ruleset", &e))?;
    if let Network::Proxy { port } = grants.network {
        created = created
            .add_rule(NetPort::new(port, AccessNet::ConnectTcp))
            .map_err(|e| fail("proxy port", &e))?;
    }
    let ruleset = Option::<OwnedFd>::from(created)
        .ok_or_else(|| "Landlock refused the ruleset".to_owned())?;
    let file = AccessFs::from_file(abi).bits();
    let read = AccessFs::from_read(abi).bits();
    add_paths(&ruleset, &grants.read, Links::Followed, read, file)?;
    add_paths(&ruleset, &grants.checked, Links::Refused, read, file)?;
    let all = AccessFs::from_all(abi).bits();
    add_paths(&ruleset, &grants.write, Links::Followed, all, file)?;
    Ok(ruleset)
}

/// The kernel's `struct landlock_path_beneath_attr`.
#[repr(C, packed)]
struct PathBeneathAttr {
    allowed_access: u64,
    parent_fd: i32,
}

/// `LANDLOCK_RULE_PATH_BENEATH`.
const RULE_PATH_BENEATH: u32 = 1;

/// Allows `access` beneath each of `paths` that exists (a file: only the file rights in
/// `file_access`). One `open` and one `landlock_add_rule` (two for a file not known to be one
/// by [`crate::grants::is_system_file`]) a path: the crate's rules also `stat` each path twice,
/// which made up most of what a box cost a start.
///
/// Each descriptor is closed once its rule is made, not kept until the server has started:
/// fifty held together take a host past the 64 its descriptor table starts with, and the kernel
/// grows the table of a process with several threads only after an RCU grace period (0.8 ms once
/// in three tries in a two-thread test process on the development VM).
fn add_paths(
    ruleset: &OwnedFd,
    paths: &[std::path::PathBuf],
    links: Links,
    access: u64,
    file_access: u64,
) -> Result<(), String> {
    use std::os::unix::ffi::OsStrExt;
    for path in paths {
        let Ok(c_path) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
            continue;
        };
        let Some(fd) = open_path(&c_path, links) else {
            continue; // What does not exist (or is no longer what was checked) is granted nothing.
        };
        let known_file = crate::grants::is_system_file(path);
        if known_file || add_path(ruleset, &fd, access).is_err() {
            // A file takes only the rights of files (the kernel refuses directory rights on it).
            add_path(ruleset, &fd, access & file_access)
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
    }
    Ok(())
}

/// Whether a path's symlinks are followed when its rule is made.
#[derive(Clone, Copy)]
enum Links {
    /// As the person named it (`/lib64` is a link on most systems).
    Followed,
    /// A real path checked before: a link in it now was put there since.
    Refused,
}

/// The kernel's `struct open_how` (`libc`'s cannot be built outside it).
#[repr(C)]
struct OpenHow {
    flags: u64,
    mode: u64,
    resolve: u64,
}

/// `path` opened for its rule (`O_PATH`), or `None` where it cannot be.
fn open_path(path: &std::ffi::CStr, links: Links) -> Option<OwnedFd> {
    let flags = libc::O_PATH | libc::O_CLOEXEC;
    let raw = match links {
        Links::Followed => {
            // SAFETY: a valid C string; the descriptor is owned below.
            unsafe { libc::open(path.as_ptr(), flags) }
        }
        Links::Refused => {
            let how = OpenHow {
                flags: flags as u64,
                mode: 0,
                resolve: libc::RESOLVE_NO_SYMLINKS,
            };
            // SAFETY: a valid C string and `how` live across the call.
            let fd = unsafe {
                libc::syscall(
                    libc::SYS_openat2,
                    libc::AT_FDCWD,
                    path.as_ptr(),
                    &how as *const OpenHow,
                    std::mem::size_of::<OpenHow>(),
                )
            };
            let error = std::io::Error::last_os_error().raw_os_error();
            if fd < 0 && matches!(error, Some(libc::ENOSYS | libc::EPERM)) {
                // A container's seccomp profile that predates `openat2` (Linux 5.6): the check
                // stands alone there.
                // SAFETY: as above.
                unsafe { libc::open(path.as_ptr(), flags) }
            } else {
                fd as i32
            }
        }
    };
    // SAFETY: `raw`, when valid, was just opened and is owned by nothing else.
    (raw >= 0).then(|| unsafe { <OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(raw) })
}

fn add_path(ruleset: &OwnedFd, parent: &OwnedFd, access: u64) -> std::io::Result<()> {
    let attr = PathBeneathAttr {
        allowed_access: access,
        parent_fd: parent.as_raw_fd(),
    };
    // SAFETY: both descriptors are open; `attr` lives across the call.
    let done = unsafe {
        libc::syscall(
            libc::SYS_landlock_add_rule,
            ruleset.as_raw_fd(),
            RULE_PATH_BENEATH,
            &attr as *const PathBeneathAttr,
            0u32,
        )
    };
    if done == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}
