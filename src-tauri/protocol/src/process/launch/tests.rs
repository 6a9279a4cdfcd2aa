use super::*;
use tokio::io::AsyncReadExt;

fn shell(script: &str, cwd: Option<PathBuf>) -> Launch {
    Launch {
        program: "/bin/sh".into(),
        args: vec!["-c".to_owned(), script.to_owned()],
        env: BTreeMap::from([("PATH".into(), "/usr/bin:/bin".into())]),
        cwd,
        sandbox: None,
    }
}

use crate::process::tests::executable;

async fn output(mut launched: Launched) -> String {
    let mut out = String::new();
    launched.stdout.read_to_string(&mut out).await.unwrap();
    launched.child.wait().await.unwrap();
    out
}

/// What a child sees of how it was started: blocked and ignored signals, its descriptors, its
/// process group against its pid, its working directory and environment.
const START_SEEN: &str = "grep -E '^Sig(Blk|Ign)' /proc/self/status; ls /proc/$$/fd; \
     set -- $(cut -d')' -f2 /proc/$$/stat); [ \"$3\" = $$ ] && echo own-group; pwd; env | sort";

/// A server's stdout pipe holds 256 KiB, not the kernel's 64 KiB: a large result crosses in
/// fewer turns.
#[tokio::test]
async fn a_servers_stdout_pipe_holds_256_kib() {
    use std::os::fd::AsRawFd;
    let launched = shell("true", None).start().unwrap();
    // SAFETY: F_GETPIPE_SZ on a descriptor the test owns.
    let size = unsafe { libc::fcntl(launched.stdout.as_raw_fd(), libc::F_GETPIPE_SZ) };
    assert_eq!(size, STDOUT_PIPE_BYTES);
    output(launched).await;
}

#[tokio::test]
async fn servers_start_the_vfork_way_on_this_kernel() {
    let launched = shell("true", None).start().unwrap();
    assert!(matches!(launched.child, ServerChild::Pidfd(_)));
    output(launched).await;
}

/// The vfork way gives the child what a fork with `pre_exec` hooks gave it: no blocked signal,
/// SIGPIPE not ignored (Rust ignores it in the host), only its stdio, a group of its own, its
/// working directory, and only the environment it was given.
#[tokio::test]
async fn both_ways_start_the_child_alike() {
    let dir = tempfile::tempdir().unwrap();
    let launch = || shell(START_SEEN, Some(dir.path().to_owned()));
    let vforked = output(launch().start_vfork().unwrap()).await;
    let forked = output(launch().start_forked().unwrap()).await;
    assert_eq!(vforked, forked);
    let lines: Vec<&str> = vforked.lines().collect();
    assert_eq!(lines[0], "SigBlk:\t0000000000000000", "{vforked}");
    let ignored = u64::from_str_radix(lines[1].trim_start_matches("SigIgn:\t"), 16).unwrap();
    assert_eq!(ignored & (1 << (libc::SIGPIPE - 1)), 0, "{vforked}");
    assert_eq!(lines[2..5], ["0", "1", "2"], "{vforked}");
    assert_eq!(lines[5], "own-group", "{vforked}");
    assert_eq!(
        lines[6],
        dir.path().canonicalize().unwrap().to_str().unwrap()
    );
    // What the shell itself sets, whichever shell `/bin/sh` is.
    let own = |l: &&str| ["PWD=", "SHLVL=", "_="].iter().any(|v| l.starts_with(v));
    let env: Vec<&str> = lines[7..].iter().filter(|l| !own(l)).copied().collect();
    assert_eq!(env, ["PATH=/usr/bin:/bin"], "{vforked}");
}

/// A step that fails says which; only a failed exec reads as a missing command.
#[tokio::test]
async fn a_failed_start_says_what_failed() {
    let missing = shell("true", Some("/nonexistent/switchboard".into()));
    let Err(e) = missing.start() else {
        panic!("started in a missing folder")
    };
    assert_ne!(e.kind(), io::ErrorKind::NotFound);
    assert!(
        e.to_string()
            .starts_with("entering its working directory: "),
        "{e}"
    );
    let mut absent = shell("true", None);
    absent.program = "/nonexistent/switchboard-server".into();
    let Err(e) = absent.start() else {
        panic!("a missing program started")
    };
    assert_eq!(e.kind(), io::ErrorKind::NotFound, "{e}");
}

#[tokio::test]
async fn its_exit_status_is_there_as_often_as_asked() {
    let mut launched = shell("exit 3", None).start().unwrap();
    assert_eq!(launched.child.wait().await.unwrap().code(), Some(3));
    assert_eq!(launched.child.wait().await.unwrap().code(), Some(3));
}

/// A child dropped before it exited is killed and reaped: no process, not even a zombie, left.
#[tokio::test]
async fn a_child_dropped_early_is_killed_and_reaped() {
    let mut launched = shell("echo up; exec sleep 1000", None).start().unwrap();
    let mut up = [0u8; 3];
    launched.stdout.read_exact(&mut up).await.unwrap();
    let pid = launched.child.id().unwrap();
    drop(launched);
    let status = format!("/proc/{pid}/status");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::path::Path::new(&status).exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "{pid} is left: {:?}",
            std::fs::read_to_string(&status)
        );
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
}

/// A name the child's PATH did not resolve is not found, even if a file of that name is in the
/// working directory (`execve` would run it from there; `execvp` never does).
#[tokio::test]
async fn a_bare_name_never_runs_from_the_working_directory() {
    let dir = tempfile::tempdir().unwrap();
    executable(dir.path(), "some-server", "#!/bin/sh\necho planted\n");
    let mut launch = shell("true", Some(dir.path().to_owned()));
    launch.program = "some-server".into();
    let Err(e) = launch.start() else {
        panic!("a bare name ran from the working directory")
    };
    assert_eq!(e.kind(), io::ErrorKind::NotFound, "{e}");
}

/// A script without a `#!` line runs with `/bin/sh`, as `execvp` runs it, with its arguments.
#[tokio::test]
async fn a_script_without_a_shebang_runs_with_sh() {
    let dir = tempfile::tempdir().unwrap();
    let script = executable(dir.path(), "server.sh", "echo \"ran $0 with $1\"\n");
    let mut launch = shell("", None);
    (launch.program, launch.args) = (script.clone(), vec!["one".to_owned()]);
    let out = output(launch.start().unwrap()).await;
    assert_eq!(out, format!("ran {} with one\n", script.display()));
}
