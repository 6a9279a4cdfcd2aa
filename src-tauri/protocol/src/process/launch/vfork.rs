//! Starting a server the `vfork` way (Linux): one `clone(CLONE_VM | CLONE_VFORK | CLONE_PIDFD)`
//! whose child runs on a stack of its own inside the host's memory, makes the start's system
//! calls (stdio, process group, death signal, descriptors, working directory, the box) and
//! execs. Nothing of the host's page tables is copied: `fork` copies them, which costs about
//! 65 µs a megabyte of the host's memory, and Rust's `Command` forks as soon as a `pre_exec` is
//! set. The child is then waited on through its pidfd.
//!
//! The child shares the host's memory while the host's thread waits, so it only reads what was
//! made before the clone and makes plain system calls: no allocation, no lock, no panic. Signals
//! are blocked around the clone and the child puts every handler back to the default before it
//! unblocks them, so no handler of the host's runs on the child's stack.

use std::ffi::{CString, c_char, c_int, c_void};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;

use tokio::io::Interest;

use super::child_steps;
use tokio::io::unix::AsyncFd;

/// The child's stack: its steps need a few KiB; a guard page below it stops an overflow.
const STACK_SIZE: usize = 128 * 1024;

/// What the child runs and how, made before the clone.
pub struct Plan<'a> {
    pub program: CString,
    /// `argv[0]` included.
    pub argv: Vec<CString>,
    /// `NAME=value` each.
    pub envp: Vec<CString>,
    pub cwd: Option<CString>,
    /// The host's pid: the child checks it is still its parent once the death signal is set.
    pub host: libc::pid_t,
    pub boxed: Option<&'a switchboard_sandbox::Prepared>,
}

/// A started child: its pid, its pidfd, and the host's ends of its stdio.
pub struct Started {
    pub child: PidfdChild,
    pub stdin: OwnedFd,
    pub stdout: OwnedFd,
    pub stderr: OwnedFd,
}

/// The step of the child's start that failed, for the error's text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Stdio,
    Group,
    DeathSignal,
    HostGone,
    WorkingDirectory,
    Box,
    Exec,
}

impl Step {
    fn what(self) -> &'static str {
        match self {
            Step::Stdio => "connecting its standard input and output",
            Step::Group => "giving it a process group of its own",
            Step::DeathSignal => "tying its life to Switchboard's",
            Step::HostGone => "checking that Switchboard is still running",
            Step::WorkingDirectory => "entering its working directory",
            Step::Box => "entering its sandbox",
            Step::Exec => "running its program",
        }
    }
}

/// What the child reads (the plan's pointers) and writes (why it failed), shared with the host.
struct Shared<'a> {
    plan: &'a Plan<'a>,
    argv: Vec<*const c_char>,
    /// `/bin/sh` with the program and its arguments: what `execvp` runs a file that has no
    /// `#!` line with.
    sh_argv: Vec<*const c_char>,
    envp: Vec<*const c_char>,
    /// The child's ends of its stdin, stdout and stderr pipes.
    stdio: [RawFd; 3],
    failed: Option<(Step, c_int)>,
}

/// Starts `plan`'s program. `Unsupported` when this kernel cannot (no pollable pidfd before 5.3,
/// or a seccomp profile that refuses the clone): the caller then starts it the forking way.
pub fn start(plan: &Plan<'_>) -> io::Result<Started> {
    if !pidfds_work() {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "this kernel has no pollable pidfds (Linux 5.3)",
        ));
    }
    let (stdin_child, stdin) = pipe()?;
    let (stdout, stdout_child) = pipe()?;
    let (stderr, stderr_child) = pipe()?;
    let argv = null_terminated(&plan.argv);
    let mut shared = Shared {
        plan,
        sh_argv: std::iter::once(SH.as_ptr())
            .chain(argv.iter().copied())
            .collect(),
        argv,
        envp: null_terminated(&plan.envp),
        stdio: [
            stdin_child.as_raw_fd(),
            stdout_child.as_raw_fd(),
            stderr_child.as_raw_fd(),
        ],
        failed: None,
    };
    let (pid, pidfd) = clone_child(&mut shared)?;
    drop((stdin_child, stdout_child, stderr_child));
    if let Some((step, errno)) = shared.failed {
        reap_now(pid);
        return Err(failure(step, errno));
    }
    Ok(Started {
        child: PidfdChild::new(pid, pidfd)?,
        stdin,
        stdout,
        stderr,
    })
}

/// The error of a failed step. Only a failed exec keeps its kind (a missing program is
/// `NotFound`); a missing working directory must not read as a missing command.
fn failure(step: Step, errno: c_int) -> io::Error {
    let os = io::Error::from_raw_os_error(errno);
    if step == Step::Exec {
        return os;
    }
    io::Error::other(format!("{}: {os}", step.what()))
}

/// The shell `execvp` falls back to.
const SH: &std::ffi::CStr = c"/bin/sh";

/// Whether this kernel makes pidfds that can be polled (Linux 5.3; `CLONE_PIDFD` came in 5.2,
/// and before that the kernel ignores the flag): asked once, with `pidfd_open` on ourselves.
fn pidfds_work() -> bool {
    static WORK: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *WORK.get_or_init(|| {
        // SAFETY: pidfd_open on our own pid; the descriptor is owned below.
        let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, libc::getpid(), 0) };
        match c_int::try_from(fd) {
            // SAFETY: just opened, owned by nothing else.
            Ok(fd) if fd >= 0 => {
                drop(unsafe { OwnedFd::from_raw_fd(fd) });
                true
            }
            _ => false,
        }
    })
}

fn null_terminated(strings: &[CString]) -> Vec<*const c_char> {
    strings
        .iter()
        .map(|s| s.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect()
}

/// A pipe, both ends close-on-exec, neither among 0–2 (a host started with its stdio closed
/// gets those numbers back, and the child's `dup2`s onto 0–2 would overwrite each other).
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as c_int; 2];
    // SAFETY: pipe2 writes two descriptors into the array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both were just opened and are owned by nobody else.
    let [read, write] = fds.map(|fd| unsafe { OwnedFd::from_raw_fd(fd) });
    Ok((above_stdio(read)?, above_stdio(write)?))
}

fn above_stdio(fd: OwnedFd) -> io::Result<OwnedFd> {
    if fd.as_raw_fd() > 2 {
        return Ok(fd);
    }
    // SAFETY: F_DUPFD_CLOEXEC returns a new descriptor, owned here.
    let moved = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 3) };
    if moved < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: just opened.
    Ok(unsafe { OwnedFd::from_raw_fd(moved) })
}

/// The clone itself, with every signal blocked around it. Returns once the child has exec'd or
/// exited.
fn clone_child(shared: &mut Shared<'_>) -> io::Result<(libc::pid_t, OwnedFd)> {
    let stack = Stack::new()?;
    let mut pidfd: c_int = -1;
    // SAFETY: the clone's child runs `child_main` on its own stack with `shared`, which outlives
    // the call (this thread waits until the child has exec'd or exited).
    unsafe {
        let old = signal_mask(!0);
        let pid = libc::clone(
            child_main,
            stack.top(),
            libc::CLONE_VM | libc::CLONE_VFORK | libc::CLONE_PIDFD | libc::SIGCHLD,
            (shared as *mut Shared<'_>).cast::<c_void>(),
            &mut pidfd as *mut c_int,
        );
        let cloned = io::Error::last_os_error();
        signal_mask(old);
        if pid < 0 {
            return Err(match cloned.raw_os_error() {
                Some(libc::EINVAL | libc::ENOSYS | libc::EPERM) => {
                    io::Error::new(io::ErrorKind::Unsupported, cloned)
                }
                _ => cloned,
            });
        }
        if pidfd < 0 {
            // A kernel that ignored the flag: the child runs, but cannot be waited on this way.
            libc::kill(pid, libc::SIGKILL);
            reap_now(pid);
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "the kernel gave no pidfd",
            ));
        }
        Ok((pid, OwnedFd::from_raw_fd(pidfd)))
    }
}

/// Sets this thread's signal mask, the kernel's 64 bits, and returns the one it replaces. The
/// system call itself, not `pthread_sigmask`: the C library keeps two signals of its own out of
/// any mask it is asked to set, and no handler may run in the child before it has reset them.
///
/// # Safety
/// Blocking signals delays them; the caller puts the old mask back.
unsafe fn signal_mask(mask: u64) -> u64 {
    let mut old: u64 = 0;
    // SAFETY: rt_sigprocmask on two local words of the kernel's sigset size.
    unsafe {
        libc::syscall(
            libc::SYS_rt_sigprocmask,
            libc::SIG_SETMASK,
            &mask as *const u64,
            &mut old as *mut u64,
            std::mem::size_of::<u64>(),
        );
    }
    old
}

/// The child's stack, mapped for the clone and unmapped after it.
struct Stack {
    base: *mut c_void,
}

impl Stack {
    fn new() -> io::Result<Self> {
        // SAFETY: a fresh private mapping; its lowest page is made inaccessible as a guard.
        unsafe {
            let base = libc::mmap(
                std::ptr::null_mut(),
                STACK_SIZE,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
                -1,
                0,
            );
            if base == libc::MAP_FAILED {
                return Err(io::Error::last_os_error());
            }
            let stack = Self { base };
            if libc::mprotect(base, page_size(), libc::PROT_NONE) != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(stack)
        }
    }

    /// The top of the stack (it grows down), 16-byte aligned as the ABI wants.
    fn top(&self) -> *mut c_void {
        self.base.wrapping_byte_add(STACK_SIZE)
    }
}

fn page_size() -> usize {
    // SAFETY: sysconf reads a constant of the system.
    usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096)
}

impl Drop for Stack {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, no longer used (the child has exec'd or exited).
        unsafe {
            libc::munmap(self.base, STACK_SIZE);
        }
    }
}

/// The child: its steps, then exec; on failure the step and errno are left for the host.
extern "C" fn child_main(arg: *mut c_void) -> c_int {
    // SAFETY: `arg` is the `Shared` the host passed to clone, alive and not touched by the host
    // until this child has exec'd or exited. (The child also shares the host thread's errno,
    // which its failed calls overwrite; the host reads errno after the clone only if the clone
    // itself failed.)
    let shared = unsafe { &mut *arg.cast::<Shared<'_>>() };
    // SAFETY: this is the vfork child; the steps make only system calls.
    if let Err(failed) = unsafe { child_steps(shared) } {
        shared.failed = Some(failed);
    }
    // SAFETY: leaves without running anything of the host's (no atexit, no flush).
    unsafe { libc::_exit(127) }
}

/// # Safety
/// Only in the vfork child: system calls on memory made before the clone.
unsafe fn child_steps(shared: &Shared<'_>) -> Result<(), (Step, c_int)> {
    let errno = || {
        io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EIO)
    };
    let check = |ok: bool, step: Step| if ok { Ok(()) } else { Err((step, errno())) };
    let plan = shared.plan;
    // SAFETY: system calls on values made before the clone.
    unsafe {
        default_signal_handlers();
        for (fd, target) in shared.stdio.iter().zip(0..) {
            check(libc::dup2(*fd, target) == target, Step::Stdio)?;
        }
        check(libc::setpgid(0, 0) == 0, Step::Group)?;
        child_steps::die_with_host(plan.host).map_err(|gone| match gone {
            child_steps::HostTie::NotSet(errno) => (Step::DeathSignal, errno),
            child_steps::HostTie::HostGone => (Step::HostGone, libc::ESRCH),
        })?;
        child_steps::mark_close_on_exec();
        if let Some(cwd) = &plan.cwd {
            check(libc::chdir(cwd.as_ptr()) == 0, Step::WorkingDirectory)?;
        }
        if let Some(boxed) = plan.boxed {
            boxed
                .enter()
                .map_err(|e| (Step::Box, e.raw_os_error().unwrap_or(libc::EPERM)))?;
        }
        signal_mask(0);
        libc::execve(
            plan.program.as_ptr(),
            shared.argv.as_ptr(),
            shared.envp.as_ptr(),
        );
        if errno() == libc::ENOEXEC {
            libc::execve(SH.as_ptr(), shared.sh_argv.as_ptr(), shared.envp.as_ptr());
            return Err((Step::Exec, libc::ENOEXEC));
        }
    }
    Err((Step::Exec, errno()))
}

/// Every signal the host handles goes back to the default, and SIGPIPE too (Rust ignores it in
/// the host; a server expects it). Other ignored signals stay ignored, as across a fork. The
/// system call itself, not the C library's `sigaction`: that refuses the library's own two
/// signals and, in some C libraries, takes a lock in the host's memory.
///
/// # Safety
/// Only in the vfork child, with every signal blocked.
unsafe fn default_signal_handlers() {
    // The kernel's `struct sigaction` starts with the handler; 4 words hold it on every
    // architecture. All zeros is SIG_DFL, no flags, an empty mask.
    let default = [0u64; 4];
    for signal in 1..=64 {
        if signal == libc::SIGKILL || signal == libc::SIGSTOP {
            continue;
        }
        let mut now = [0u64; 4];
        // SAFETY: rt_sigaction into and from local buffers larger than the kernel's struct; the
        // child's handler table is its own (no CLONE_SIGHAND).
        unsafe {
            let read = libc::syscall(
                libc::SYS_rt_sigaction,
                signal,
                std::ptr::null::<u64>(),
                now.as_mut_ptr(),
                std::mem::size_of::<u64>(),
            );
            let handler = now[0] as libc::sighandler_t;
            let keep =
                handler == libc::SIG_DFL || (handler == libc::SIG_IGN && signal != libc::SIGPIPE);
            if read == 0 && !keep {
                libc::syscall(
                    libc::SYS_rt_sigaction,
                    signal,
                    default.as_ptr(),
                    std::ptr::null_mut::<u64>(),
                    std::mem::size_of::<u64>(),
                );
            }
        }
    }
}

/// Reaps a child that failed its start: it has exited (the clone returned), or is about to.
fn reap_now(pid: libc::pid_t) {
    let mut status = 0;
    // SAFETY: waits for our own child.
    unsafe {
        libc::waitpid(pid, &mut status, 0);
    }
}

/// A child started here, waited on through its pidfd. Dropped before it was waited for, it is
/// killed (as `tokio::process` does with `kill_on_drop`) and reaped in the background.
#[derive(Debug)]
pub struct PidfdChild {
    pid: libc::pid_t,
    pidfd: Option<AsyncFd<OwnedFd>>,
    status: Option<ExitStatus>,
}

impl PidfdChild {
    fn new(pid: libc::pid_t, pidfd: OwnedFd) -> io::Result<Self> {
        // SAFETY: the pidfd is owned by the `AsyncFd` from here and stays open as long as it.
        match unsafe { AsyncFd::register_with_interest(pidfd, Interest::READABLE) } {
            Ok(pidfd) => Ok(Self {
                pid,
                pidfd: Some(pidfd),
                status: None,
            }),
            Err(e) => {
                // SAFETY: our own child, not yet reaped.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
                reap_now(pid);
                Err(e.into_parts().1)
            }
        }
    }

    /// The child's pid.
    pub fn id(&self) -> u32 {
        self.pid.unsigned_abs()
    }

    /// Waits for the child to exit; its status, as often as asked.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        loop {
            if let Some(status) = self.try_wait()? {
                return Ok(status);
            }
            let Some(pidfd) = &self.pidfd else {
                return Err(io::Error::other("the child's pidfd is gone"));
            };
            pidfd.readable().await?.clear_ready();
        }
    }

    /// The child's status if it has exited; reaps it then.
    pub fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        if let Some(status) = self.status {
            return Ok(Some(status));
        }
        let status = exited(self.pid)?;
        self.status = status;
        Ok(status)
    }
}

/// `waitpid` without waiting: the status once `pid` (our child) has exited.
fn exited(pid: libc::pid_t) -> io::Result<Option<ExitStatus>> {
    let mut raw = 0;
    // SAFETY: waits for our own child, never blocking.
    match unsafe { libc::waitpid(pid, &mut raw, libc::WNOHANG) } {
        0 => Ok(None),
        -1 => Err(io::Error::last_os_error()),
        _ => Ok(Some(ExitStatus::from_raw(raw))),
    }
}

impl Drop for PidfdChild {
    fn drop(&mut self) {
        if self.status.is_some() {
            return;
        }
        let Some(pidfd) = self.pidfd.take() else {
            return;
        };
        // SAFETY: pidfd_send_signal on our child's pidfd: it cannot reach a reused pid.
        unsafe {
            libc::syscall(
                libc::SYS_pidfd_send_signal,
                pidfd.as_raw_fd(),
                libc::SIGKILL,
                std::ptr::null::<libc::siginfo_t>(),
                0,
            );
        }
        if !matches!(exited(self.pid), Ok(None)) {
            return;
        }
        // A thread, not a task: a task spawned while the runtime shuts down never runs, and the
        // child would stay a zombie. SIGKILL ends it soon, so the wait is short.
        let pid = self.pid;
        let reaper = std::thread::Builder::new().name("switchboard-reap".into());
        if let Err(e) = reaper.spawn(move || reap_now(pid)) {
            tracing::warn!(pid, "a killed server cannot be reaped: {e}");
        }
    }
}
