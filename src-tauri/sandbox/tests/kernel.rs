//! The box against the real kernel. Each test runs a program once in the box, where the access
//! must fail, and once with the box off, where the same access must succeed: the test proves the
//! box, not a broken command.
#![cfg(target_os = "linux")]

use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::RwLock;

use switchboard_base::config::{NetworkSetting, SandboxProfile};
use switchboard_sandbox::grants::{Grants, Launch};
use switchboard_sandbox::{BoxSpec, Prepared, Support};

/// Held to write a program, and shared to start one. A child another test forks holds every
/// descriptor open until its own exec, a program's writable one included, and the kernel will
/// not run a file open for writing (ETXTBSY): so no fork happens while a program is written.
static PROGRAM_WRITES: RwLock<()> = RwLock::new(());

/// A home directory with a planted key, a root, and the box's own directories.
struct World {
    home: tempfile::TempDir,
    root: PathBuf,
    spec: BoxSpec,
}

impl World {
    fn new() -> Self {
        let home = tempfile::tempdir().unwrap();
        let h = std::fs::canonicalize(home.path()).unwrap();
        std::fs::create_dir_all(h.join(".ssh")).unwrap();
        std::fs::write(h.join(".ssh/id_ed25519"), "PRIVATE KEY").unwrap();
        let data = h.join(".local/share/switchboard");
        std::fs::create_dir_all(&data).unwrap();
        std::fs::write(data.join("switchboard.db"), "the host's database").unwrap();
        let (root, state, temp) = (h.join("root"), h.join("box/state"), h.join("box/tmp"));
        for d in [&root, &state, &temp] {
            std::fs::create_dir_all(d).unwrap();
        }
        let spec = BoxSpec {
            profile: SandboxProfile::default(),
            roots: vec![root.clone()],
            state_dir: state,
            temp_dir: temp,
            cache_dir: h.join("box/cache"),
            home: Some(h.clone()),
            protected: vec![data],
            bundles: None,
            proxy_port: None,
        };
        World { home, root, spec }
    }

    fn home(&self) -> PathBuf {
        std::fs::canonicalize(self.home.path()).unwrap()
    }

    /// Runs `script` under bash, boxed or not.
    fn bash(&self, boxed: bool, script: &str) -> Output {
        self.run(boxed, Path::new("/bin/bash"), &["-c", script])
    }

    fn run(&self, boxed: bool, program: &Path, args: &[&str]) -> Output {
        let owned: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let grants = boxed.then(|| {
            self.spec.grants(Launch {
                program,
                args: &owned,
                cwd: None,
                path: Some("/usr/bin:/bin"),
            })
        });
        self.run_with(grants.as_ref(), program, args)
    }

    /// Runs `program` in a box with `grants`, or unboxed.
    fn run_with(&self, grants: Option<&Grants>, program: &Path, args: &[&str]) -> Output {
        let mut cmd = Command::new(program);
        cmd.args(args).env("HOME", self.home());
        if let Some(grants) = grants {
            let prepared = Prepared::build("probe", grants, Support::detect()).unwrap();
            // SAFETY: enter() makes only async-signal-safe system calls.
            unsafe { cmd.pre_exec(move || prepared.enter()) };
        }
        let child = {
            let _no_program_written = PROGRAM_WRITES.read().unwrap();
            cmd.stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap_or_else(|e| panic!("{}: {e}", program.display()))
        };
        child.wait_with_output().unwrap()
    }
}

fn ok(o: &Output) -> bool {
    o.status.success()
}

fn said(o: &Output) -> String {
    format!(
        "status {:?}\nstdout: {}\nstderr: {}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// `script` fails in the box and succeeds with the box off.
fn refused_only_in_the_box(w: &World, script: &str) {
    let boxed = w.bash(true, script);
    assert!(!ok(&boxed), "in the box: {}", said(&boxed));
    let open = w.bash(false, script);
    assert!(ok(&open), "with the box off: {}", said(&open));
}

/// Runs Python `code` in the box and with the box off; it must fail only in the box.
fn python_refused_only_in_the_box(w: &World, code: &str) {
    let python = Path::new("/usr/bin/python3");
    let boxed = w.run(true, python, &["-c", code]);
    assert!(!ok(&boxed), "{}", said(&boxed));
    let open = w.run(false, python, &["-c", code]);
    assert!(ok(&open), "{}", said(&open));
}

#[test]
fn the_planted_key_is_unreadable_in_the_box_and_readable_outside() {
    let w = World::new();
    let script = format!("cat {}/.ssh/id_ed25519", w.home().display());
    let boxed = w.bash(true, &script);
    assert!(!ok(&boxed), "{}", said(&boxed));
    assert!(
        said(&boxed).contains("Permission denied"),
        "{}",
        said(&boxed)
    );
    let open = w.bash(false, &script);
    assert!(
        ok(&open) && said(&open).contains("PRIVATE KEY"),
        "{}",
        said(&open)
    );
}

#[test]
fn a_grandchild_is_boxed_too() {
    let w = World::new();
    let script = format!(
        "bash -c 'sh -c \"cat {}/.ssh/id_ed25519\"'",
        w.home().display()
    );
    refused_only_in_the_box(&w, &script);
}

#[test]
fn the_hosts_database_is_unreadable_in_the_box() {
    let w = World::new();
    let script = format!(
        "cat {}/.local/share/switchboard/switchboard.db",
        w.home().display()
    );
    refused_only_in_the_box(&w, &script);
}

#[test]
fn it_writes_its_roots_state_and_temp_but_nothing_else() {
    let w = World::new();
    let inside = format!(
        "echo x > {}/a && echo x > {}/b && echo x > {}/c",
        w.root.display(),
        w.spec.state_dir.display(),
        w.spec.temp_dir.display()
    );
    let boxed = w.bash(true, &inside);
    assert!(ok(&boxed), "{}", said(&boxed));
    let outside = format!("echo x > {}/.bashrc", w.home().display());
    refused_only_in_the_box(&w, &outside);
}

#[test]
fn a_read_only_root_is_read_but_not_written() {
    let mut w = World::new();
    std::fs::write(w.root.join("notes.txt"), "hello").unwrap();
    w.spec.profile.read_only_roots = vec![w.root.clone()];
    let read = w.bash(true, &format!("cat {}/notes.txt", w.root.display()));
    assert!(
        ok(&read) && said(&read).contains("hello"),
        "{}",
        said(&read)
    );
    let write = format!("echo x > {}/new.txt", w.root.display());
    refused_only_in_the_box(&w, &write);
}

#[test]
fn network_off_refuses_even_loopback() {
    let mut w = World::new();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let script = format!("exec 3<>/dev/tcp/127.0.0.1/{port}");
    let on = w.bash(true, &script);
    assert!(ok(&on), "network on lets it through: {}", said(&on));
    w.spec.profile.network = NetworkSetting::Enabled(false);
    refused_only_in_the_box(&w, &script);
}

#[test]
fn a_proxied_network_reaches_only_the_proxys_port() {
    let mut w = World::new();
    let proxy = TcpListener::bind("127.0.0.1:0").unwrap();
    let other = TcpListener::bind("127.0.0.1:0").unwrap();
    let (p, o) = (
        proxy.local_addr().unwrap().port(),
        other.local_addr().unwrap().port(),
    );
    w.spec.profile.network = NetworkSetting::Hosts(vec!["example.com".into()]);
    w.spec.proxy_port = Some(p);
    let to = |port: u16| format!("exec 3<>/dev/tcp/127.0.0.1/{port}");
    let reached = w.bash(true, &to(p));
    assert!(ok(&reached), "{}", said(&reached));
    refused_only_in_the_box(&w, &to(o));
    // DNS and other datagrams go through the proxy too, not around it.
    let udp = "exec 3<>/dev/udp/127.0.0.1/53";
    refused_only_in_the_box(&w, udp);
}

#[test]
fn unix_sockets_are_refused() {
    let w = World::new();
    let dir = tempfile::tempdir().unwrap();
    let sock = dir.path().join("bus");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    let code = format!(
        "import socket; s=socket.socket(socket.AF_UNIX); s.connect({:?}); print('connected')",
        sock.to_string_lossy()
    );
    python_refused_only_in_the_box(&w, &code);
}

#[test]
fn it_cannot_ptrace_the_host() {
    let w = World::new();
    let host = std::process::id();
    // PTRACE_SEIZE does not stop the host; the tracer's exit detaches it.
    let code = format!(
        "import ctypes; libc=ctypes.CDLL(None,use_errno=True); r=libc.ptrace(0x4206,{host},0,0); \
         print(r, ctypes.get_errno()); raise SystemExit(0 if r==0 else 1)"
    );
    python_refused_only_in_the_box(&w, &code);
}

#[test]
fn a_setuid_program_gains_nothing() {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped: making a setuid program of another user needs root");
        return;
    }
    let w = World::new();
    let id = w.root.join("id");
    {
        let _no_fork = PROGRAM_WRITES.write().unwrap();
        std::fs::copy("/usr/bin/id", &id).unwrap();
    }
    std::os::unix::fs::chown(&id, Some(65534), Some(65534)).unwrap();
    std::fs::set_permissions(&id, std::os::unix::fs::PermissionsExt::from_mode(0o4755)).unwrap();
    let boxed = w.run(true, &id, &["-u"]);
    assert_eq!(
        String::from_utf8_lossy(&boxed.stdout).trim(),
        "0",
        "{}",
        said(&boxed)
    );
    let open = w.run(false, &id, &["-u"]);
    assert_eq!(
        String::from_utf8_lossy(&open.stdout).trim(),
        "65534",
        "{}",
        said(&open)
    );
}

/// The capability sets a program reads in its own `/proc/self/status`, after its exec.
fn capabilities(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .filter(|l| {
            ["CapInh", "CapPrm", "CapEff", "CapAmb"]
                .iter()
                .any(|c| l.starts_with(c))
        })
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_program_it_runs_holds_no_capabilities_even_run_by_root() {
    let w = World::new();
    let boxed = w.run(true, Path::new("/bin/cat"), &["/proc/self/status"]);
    let held = capabilities(&boxed);
    assert_eq!(held.len(), 4, "{}", said(&boxed));
    assert!(
        held.iter().all(|l| l.ends_with("0000000000000000")),
        "{held:?}"
    );
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("skipped the open half: only root holds capabilities to lose");
        return;
    }
    let open = w.run(false, Path::new("/bin/cat"), &["/proc/self/status"]);
    let held = capabilities(&open);
    assert!(
        held.iter()
            .any(|l| l.starts_with("CapEff") && !l.ends_with("0000000000000000")),
        "{held:?}"
    );
}

#[test]
fn it_cannot_signal_the_host() {
    if Support::detect().landlock_abi < 6 {
        eprintln!("skipped: scoping signals needs Landlock ABI 6");
        return;
    }
    let w = World::new();
    let script = format!("kill -0 {}", std::process::id());
    refused_only_in_the_box(&w, &script);
}

#[test]
fn a_kernel_without_landlock_starts_nothing_and_says_how_to_opt_out() {
    let w = World::new();
    let grants = w.spec.grants(Launch {
        program: Path::new("/bin/true"),
        args: &[],
        cwd: None,
        path: None,
    });
    let none = Support {
        landlock_abi: 0,
        seccomp: true,
    };
    let e = Prepared::build("files", &grants, none).unwrap_err();
    assert_eq!(e.code.as_str(), "sandbox");
    assert!(e.message.contains("no Landlock"), "{}", e.message);
    assert!(e.message.contains("\"sandbox\": false"), "{}", e.message);
    assert!(e.message.contains("--sandbox off"), "{}", e.message);
}

#[test]
fn the_hosts_environment_and_memory_are_out_of_reach() {
    let w = World::new();
    let host = std::process::id();
    refused_only_in_the_box(&w, &format!("cat /proc/{host}/environ > /dev/null"));
    refused_only_in_the_box(&w, &format!("head -c 1 /proc/{host}/maps > /dev/null"));
}

#[test]
fn a_unix_socket_is_refused_however_its_family_is_spelled() {
    // The kernel reads the family as an int: a high bit in the register still means AF_UNIX.
    let w = World::new();
    let code = format!(
        "import ctypes; libc=ctypes.CDLL(None,use_errno=True); \
         r=libc.syscall({}, ctypes.c_long((1<<32)|1), 1, 0); print(r, ctypes.get_errno()); \
         raise SystemExit(0 if r>=0 else 1)",
        libc::SYS_socket
    );
    python_refused_only_in_the_box(&w, &code);
}

#[test]
fn it_cannot_make_a_user_namespace() {
    // A raw clone, as a fork: the child leaves at once, the parent waits for it.
    let code = format!(
        "import ctypes, os; libc=ctypes.CDLL(None,use_errno=True); \
         r=libc.syscall({}, ctypes.c_ulong({}), 0, 0, 0, 0)\n\
         if r == 0: os._exit(0)\n\
         print(r, ctypes.get_errno()); r > 0 and os.waitpid(r, 0); raise SystemExit(0 if r>0 else 1)",
        libc::SYS_clone,
        libc::CLONE_NEWUSER | libc::SIGCHLD
    );
    python_refused_only_in_the_box(&World::new(), &code);
}

#[test]
fn clone3_is_not_there_and_threads_start_without_it() {
    // Outside, clone3 with no arguments is refused for its size (EINVAL); in the box it is "not
    // there" (ENOSYS), and the C library starts a thread with clone instead.
    let code = format!(
        "import ctypes, threading; libc=ctypes.CDLL(None,use_errno=True); \
         r=libc.syscall({}, None, 0); e=ctypes.get_errno(); \
         t=threading.Thread(target=print, args=('thread',)); t.start(); t.join(); \
         print(r, e); raise SystemExit(0 if e=={} else 1)",
        libc::SYS_clone3,
        libc::ENOSYS
    );
    let w = World::new();
    let python = Path::new("/usr/bin/python3");
    let boxed = w.run(true, python, &["-c", &code]);
    assert!(ok(&boxed), "{}", said(&boxed));
    assert!(said(&boxed).contains("thread"), "{}", said(&boxed));
    let open = w.run(false, python, &["-c", &code]);
    assert!(!ok(&open), "{}", said(&open));
}

#[test]
fn a_socket_family_not_listed_is_refused() {
    // VSOCK and netlink's device events: families a server has no use for.
    for (family, kind, protocol) in [(libc::AF_VSOCK, 1, 0), (libc::AF_NETLINK, 3, 15)] {
        let code = format!(
            "import socket; socket.socket({family}, {kind}, {protocol}).close(); print('made')"
        );
        python_refused_only_in_the_box(&World::new(), &code);
    }
}

#[test]
fn a_folder_swapped_for_a_symlink_after_its_check_grants_nothing() {
    // The working folder passes the checks as a real folder; another process that may write
    // the folder above it then puts a symlink to ~/.ssh in its place before the box is built.
    let w = World::new();
    let (proj, home) = (w.home().join("proj"), w.home());
    std::fs::create_dir_all(&proj).unwrap();
    let grants = w.spec.grants(Launch {
        program: Path::new("/bin/cat"),
        args: &[],
        cwd: Some(&proj),
        path: Some("/usr/bin:/bin"),
    });
    assert!(grants.checked.contains(&proj), "{:?}", grants.checked);
    std::fs::rename(&proj, home.join("proj.real")).unwrap();
    std::os::unix::fs::symlink(home.join(".ssh"), &proj).unwrap();
    let key = proj.join("id_ed25519");
    let args = [key.to_str().unwrap()];
    let boxed = w.run_with(Some(&grants), Path::new("/bin/cat"), &args);
    assert!(!ok(&boxed), "{}", said(&boxed));
    let open = w.run_with(None, Path::new("/bin/cat"), &args);
    assert!(ok(&open), "{}", said(&open));
}
