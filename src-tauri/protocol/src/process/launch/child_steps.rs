//! The steps a server's child takes before exec on Linux, whichever way it was started: it dies
//! with the host, and it inherits none of the host's descriptors. Only system calls, no
//! allocation: they run between fork (or vfork) and exec.

use std::io;

/// Why the child could not be tied to the host.
pub(super) enum HostTie {
    /// `PR_SET_PDEATHSIG` failed with this errno.
    NotSet(libc::c_int),
    /// The host was gone before the signal was set: nobody would send it.
    HostGone,
}

/// The child is killed when the thread that started it ends (the host's runtime threads live as
/// long as the host): a host killed with SIGKILL takes its servers with it.
///
/// # Safety
/// Only in a child before exec: system calls only.
pub(super) unsafe fn die_with_host(host: libc::pid_t) -> Result<(), HostTie> {
    // SAFETY: prctl and getppid, no memory.
    unsafe {
        if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
            let errno = io::Error::last_os_error().raw_os_error();
            return Err(HostTie::NotSet(errno.unwrap_or(libc::EINVAL)));
        }
        if libc::getppid() != host {
            return Err(HostTie::HostGone);
        }
    }
    Ok(())
}

/// Every descriptor from 3 up is marked close-on-exec, even one a library opened without the
/// flag (a database file, a socket): marked, not closed, so the box's ruleset stays usable until
/// the exec. Before Linux 5.11, or where a seccomp profile refuses `close_range`'s flag, one by
/// one.
///
/// # Safety
/// Only in a child before exec: system calls on a local struct.
pub(super) unsafe fn mark_close_on_exec() {
    const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
    // SAFETY: close_range, getrlimit and fcntl on descriptor numbers.
    unsafe {
        let first: libc::c_uint = 3;
        let all = libc::syscall(
            libc::SYS_close_range,
            first,
            libc::c_uint::MAX,
            CLOSE_RANGE_CLOEXEC,
        );
        if all == 0 {
            return;
        }
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        let open_max = if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 {
            limit.rlim_cur.min(1 << 16) as libc::c_int
        } else {
            1024
        };
        for fd in 3..open_max {
            let flags = libc::fcntl(fd, libc::F_GETFD);
            if flags >= 0 && flags & libc::FD_CLOEXEC == 0 {
                libc::fcntl(fd, libc::F_SETFD, flags | libc::FD_CLOEXEC);
            }
        }
    }
}
