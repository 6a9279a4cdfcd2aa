//! How a server's process is started: its resolved program, arguments, environment, working
//! directory and OS box, and the steps its child takes before exec (a process group of its own,
//! death with the host, no descriptor of the host's, the box). On Linux that is done the
//! `vfork` way ([`vfork`]); where the kernel cannot, and on other systems, by tokio's `Command`
//! with the same steps as `pre_exec` hooks (a fork).

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};

use tokio::process::{ChildStderr, ChildStdin, ChildStdout, Command};

#[cfg(target_os = "linux")]
mod child_steps;
#[cfg(target_os = "linux")]
pub mod vfork;

#[cfg(target_os = "linux")]
use child_steps::{HostTie, die_with_host, mark_close_on_exec};

/// What to start, complete: the caller has resolved the program and merged the environment.
pub struct Launch {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub env: BTreeMap<OsString, OsString>,
    pub cwd: Option<PathBuf>,
    pub sandbox: Option<switchboard_sandbox::Prepared>,
}

/// A started child and the host's ends of its stdio.
pub struct Launched {
    pub child: ServerChild,
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
    pub stderr: ChildStderr,
}

/// The child, however it was started. Dropped before it exited, it is killed.
#[derive(Debug)]
pub enum ServerChild {
    #[cfg(target_os = "linux")]
    Pidfd(vfork::PidfdChild),
    Forked(tokio::process::Child),
}

impl ServerChild {
    /// Its pid.
    pub fn id(&self) -> Option<u32> {
        match self {
            #[cfg(target_os = "linux")]
            ServerChild::Pidfd(child) => Some(child.id()),
            ServerChild::Forked(child) => child.id(),
        }
    }

    /// Waits for it to exit; its status, as often as asked.
    pub async fn wait(&mut self) -> io::Result<ExitStatus> {
        match self {
            #[cfg(target_os = "linux")]
            ServerChild::Pidfd(child) => child.wait().await,
            ServerChild::Forked(child) => child.wait().await,
        }
    }
}

impl Launch {
    /// Starts it: the vfork way where the kernel can, else by a fork. Then lets it run first.
    pub fn start(self) -> io::Result<Launched> {
        #[cfg(target_os = "linux")]
        let started = match self.start_vfork() {
            Err(e) if e.kind() == io::ErrorKind::Unsupported => {
                tracing::debug!("this kernel cannot start a child the vfork way ({e}): forking");
                self.start_forked()
            }
            started => started,
        };
        #[cfg(not(target_os = "linux"))]
        let started = self.start_forked();
        started.inspect(widen_stdout).inspect(let_child_run)
    }

    #[cfg(target_os = "linux")]
    fn start_vfork(&self) -> io::Result<Launched> {
        use std::os::unix::ffi::OsStrExt;
        let c_string = |bytes: &[u8]| {
            std::ffi::CString::new(bytes)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))
        };
        // `execve` would run a bare name from the working directory, which `execvp` never does:
        // a name the child's PATH did not resolve is not found.
        if !self.program.as_os_str().as_bytes().contains(&b'/') {
            return Err(io::Error::from(io::ErrorKind::NotFound));
        }
        let program = c_string(self.program.as_os_str().as_bytes())?;
        let mut argv = vec![program.clone()];
        for arg in &self.args {
            argv.push(c_string(arg.as_bytes())?);
        }
        let envp = (self.env.iter())
            .map(|(k, v)| c_string(&[k.as_bytes(), b"=", v.as_bytes()].concat()))
            .collect::<io::Result<_>>()?;
        let cwd = (self.cwd.as_ref())
            .map(|dir| c_string(dir.as_os_str().as_bytes()))
            .transpose()?;
        let plan = vfork::Plan {
            program,
            argv,
            envp,
            cwd,
            // SAFETY: getpid has no preconditions.
            host: unsafe { libc::getpid() },
            boxed: self.sandbox.as_ref(),
        };
        let started = vfork::start(&plan)?;
        Ok(Launched {
            child: ServerChild::Pidfd(started.child),
            stdin: ChildStdin::from_std(started.stdin.into())?,
            stdout: ChildStdout::from_std(started.stdout.into())?,
            stderr: ChildStderr::from_std(started.stderr.into())?,
        })
    }

    /// Starts it with tokio's `Command`: a fork, the child's steps as `pre_exec` hooks.
    fn start_forked(self) -> io::Result<Launched> {
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args)
            .env_clear()
            .envs(&self.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if let Some(dir) = &self.cwd {
            cmd.current_dir(dir);
        }
        #[cfg(unix)]
        cmd.process_group(0);
        #[cfg(target_os = "linux")]
        tie_and_seal(&mut cmd);
        // SAFETY: `enter` makes only async-signal-safe system calls (prctl, capset,
        // landlock_restrict_self, seccomp) on memory the closure owns.
        #[cfg(unix)]
        if let Some(prepared) = self.sandbox {
            unsafe {
                cmd.pre_exec(move || prepared.enter());
            }
        }
        let mut child = cmd.spawn()?;
        let missing = || io::Error::other("the child's pipes are missing");
        Ok(Launched {
            stdin: child.stdin.take().ok_or_else(missing)?,
            stdout: child.stdout.take().ok_or_else(missing)?,
            stderr: child.stderr.take().ok_or_else(missing)?,
            child: ServerChild::Forked(child),
        })
    }
}

/// What a server's stdout pipe holds before the server must wait for the host to read: 64 KiB by
/// default, so a 4 MB tool result crossed in 62 turns of the server writing and the host reading,
/// each a wake-up on both sides. At 256 KiB a large result arrives about a third faster
/// (BENCHMARKS.md); more did not help. The kernel charges a pipe's size to its user (by default
/// 64 MiB of pipes before new ones are held to one page), so not more than that either.
#[cfg(target_os = "linux")]
pub const STDOUT_PIPE_BYTES: libc::c_int = 256 * 1024;

/// Gives the server's stdout pipe [`STDOUT_PIPE_BYTES`]; where the kernel refuses (the user's
/// pipes are at their limit), it keeps its size, which only costs speed.
fn widen_stdout(launched: &Launched) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        let fd = launched.stdout.as_raw_fd();
        // SAFETY: F_SETPIPE_SZ on a descriptor the host owns; no memory is passed.
        if unsafe { libc::fcntl(fd, libc::F_SETPIPE_SZ, STDOUT_PIPE_BYTES) } < 0 {
            let e = io::Error::last_os_error();
            tracing::debug!("the server's stdout pipe keeps its size: {e}");
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = launched;
}

/// Gives the CPU to the new child before the host goes on with its own side of the start (the
/// child's process record, the handshake's first request). Where the two share a CPU (a
/// host pinned to one, a one-CPU machine, a busy one) the child otherwise waits for all of that
/// before it finishes its exec and starts, which is the part the user waits for; once it has
/// run, the host's side overlaps the server's start instead of delaying it. Where nothing else
/// waits for this CPU it returns at once (about a microsecond).
fn let_child_run(_: &Launched) {
    #[cfg(unix)]
    // SAFETY: sched_yield has no preconditions and touches no memory.
    unsafe {
        libc::sched_yield();
    }
}

/// The forked child's first steps: it dies with the host, and inherits none of its descriptors.
#[cfg(target_os = "linux")]
fn tie_and_seal(cmd: &mut Command) {
    // SAFETY: getpid has no preconditions.
    let host = unsafe { libc::getpid() };
    // SAFETY: only system calls between fork and exec, and no allocation: the errors are
    // errno values.
    unsafe {
        cmd.pre_exec(move || {
            die_with_host(host).map_err(|tie| match tie {
                HostTie::NotSet(errno) => io::Error::from_raw_os_error(errno),
                HostTie::HostGone => io::Error::from_raw_os_error(libc::ESRCH),
            })?;
            mark_close_on_exec();
            Ok(())
        });
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests;
