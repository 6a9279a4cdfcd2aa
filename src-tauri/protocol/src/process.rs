//! Local server processes: the environment a child gets (an allow-list plus its configured env,
//! with PATH from the user's login shell), its stderr (to `tracing` and a bounded ring), and the
//! spec's shutdown sequence applied to the whole process group: close stdin, wait, SIGTERM, wait,
//! SIGKILL. A guard kills the group if it is dropped, so no grandchild outlives the host.

use std::collections::{BTreeMap, VecDeque};
use std::ffi::OsString;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::{ChildStdin, ChildStdout};

use crate::error::{Error, ErrorCode, Result};

pub mod launch;
pub mod records;

use launch::{Launch, ServerChild};

use records::ProcessRecords;

/// Variables a child inherits from the host. The TypeScript SDK's default list is the reference;
/// locale and temp-dir variables are added because tools misbehave without them. Provider keys and
/// other host secrets are never inherited.
#[cfg(unix)]
pub const INHERITED_ENV: &[&str] = &[
    "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR",
    "TZ",
];
/// What a container engine's client needs of the person's environment to reach their engine
/// (a rootless or remote one, its settings): handed only to servers that run a container.
pub const ENGINE_ENV: &[&str] = &[
    "DOCKER_HOST",
    "DOCKER_CONTEXT",
    "DOCKER_CONFIG",
    "DOCKER_CERT_PATH",
    "DOCKER_TLS_VERIFY",
    "CONTAINER_HOST",
    "CONTAINER_CONNECTION",
    "CONTAINERS_CONF",
    "CONTAINERS_REGISTRIES_CONF",
    "CONTAINERS_STORAGE_CONF",
    "XDG_RUNTIME_DIR",
];

#[cfg(windows)]
pub const INHERITED_ENV: &[&str] = &[
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATH",
    "PROCESSOR_ARCHITECTURE",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "USERNAME",
    "USERPROFILE",
    "PROGRAMFILES",
];

/// How long each shutdown step waits before escalating.
pub const SHUTDOWN_STEP: Duration = Duration::from_secs(2);

/// The environment every child starts from, computed once when the host starts. Asking the
/// login shell for its PATH can take seconds (slow profile scripts), so it happens on a thread
/// of its own and only a spawn waits for it, never the app's start.
#[derive(Debug, Clone)]
pub struct BaseEnv {
    vars: tokio::sync::watch::Receiver<Option<Arc<BTreeMap<String, String>>>>,
}

impl Default for BaseEnv {
    fn default() -> Self {
        Self::from_current()
    }
}

impl BaseEnv {
    /// The allow-listed variables of this process, with PATH replaced by the login shell's so
    /// `npx`/`uvx` installed through nvm, asdf or Homebrew are found from a GUI launch. Returns at
    /// once; the login shell answers in the background.
    pub fn detect() -> Self {
        let (tx, vars) = tokio::sync::watch::channel(None);
        let probe = move || {
            let mut env = current_vars();
            if let Some(path) = login_shell_path() {
                env.insert("PATH".into(), path);
            }
            let _ = tx.send(Some(Arc::new(env)));
        };
        if let Err(e) = std::thread::Builder::new()
            .name("switchboard-login-path".into())
            .spawn(probe)
        {
            tracing::warn!("cannot ask the login shell for PATH: {e}");
            return Self::from_current();
        }
        Self { vars }
    }

    /// The allow-listed variables of this process, without asking the login shell.
    pub fn from_current() -> Self {
        let (_, vars) = tokio::sync::watch::channel(Some(Arc::new(current_vars())));
        Self { vars }
    }

    /// The variables, once known.
    pub async fn vars(&self) -> Arc<BTreeMap<String, String>> {
        let mut vars = self.vars.clone();
        loop {
            if let Some(known) = vars.borrow_and_update().clone() {
                return known;
            }
            if vars.changed().await.is_err() {
                // The probe died without an answer: the host's own allow-listed variables.
                return Arc::new(current_vars());
            }
        }
    }
}

/// The variables of [`ENGINE_ENV`] this process has: added to the base of a server that runs a
/// container (its own `env` still wins).
pub fn engine_vars() -> BTreeMap<String, String> {
    ENGINE_ENV
        .iter()
        .filter_map(|k| std::env::var(k).ok().map(|v| ((*k).to_owned(), v)))
        .filter(|(_, v)| !v.starts_with("()"))
        .collect()
}

/// The allow-listed variables of this process.
fn current_vars() -> BTreeMap<String, String> {
    allow_listed(|name| std::env::var(name).ok())
}

/// The allow-listed variables of an environment, as `lookup` reads it.
fn allow_listed(lookup: impl Fn(&str) -> Option<String>) -> BTreeMap<String, String> {
    INHERITED_ENV
        .iter()
        .filter_map(|k| lookup(k).map(|v| ((*k).to_owned(), v)))
        // Shell functions exported as variables are a known injection vector.
        .filter(|(_, v)| !v.starts_with("()"))
        .collect()
}

/// Asks the user's login shell for its PATH, with a short timeout; `None` if that fails.
#[cfg(unix)]
fn login_shell_path() -> Option<String> {
    let shell = std::env::var("SHELL").ok().filter(|s| !s.is_empty())?;
    path_from_shell(&shell)
}

/// Runs `shell -l -c` to print its PATH between markers (profile scripts may print other text).
#[cfg(unix)]
fn path_from_shell(shell: &str) -> Option<String> {
    let marker = "__SWITCHBOARD_PATH__";
    let mut child = std::process::Command::new(shell)
        .args([
            "-l",
            "-c",
            &format!("printf '{marker}%s{marker}' \"$PATH\""),
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        }
    }
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take()?, &mut out).ok()?;
    let start = out.find(marker)? + marker.len();
    let end = out[start..].find(marker)? + start;
    let path = &out[start..end];
    (!path.is_empty()).then(|| path.to_owned())
}

#[cfg(not(unix))]
fn login_shell_path() -> Option<String> {
    None
}

/// A bounded ring of a server's most recent stderr lines, shared between the reader task and
/// whoever shows them. The lock is never held across an await. The server's own secret values
/// (see [`StderrRing::hide`]) are taken out of each line before it is kept or logged, so a
/// server that prints its API key puts it in no error, log or window.
#[derive(Debug, Clone)]
pub struct StderrRing {
    inner: Arc<Mutex<RingInner>>,
}

#[derive(Debug)]
struct RingInner {
    lines: VecDeque<String>,
    capacity: usize,
    dropped: u64,
    total: u64,
    /// Values replaced by `[redacted]`, longest first.
    hidden: Vec<String>,
}

/// Values shorter than this are not hidden: they would blank out ordinary words.
const MIN_HIDDEN: usize = 4;

/// One line of a multi-line secret shorter than this is not hidden on its own.
const MIN_HIDDEN_LINE: usize = 12;

/// The longest stderr line kept; longer lines are truncated.
pub const MAX_STDERR_LINE: usize = 8 * 1024;

/// `value`, and each of its lines when it has several: stderr is kept line by line, so a
/// multi-line secret (a PEM key) printed whole is found one line at a time.
pub fn with_its_lines(value: String) -> Vec<String> {
    // A short last line (a PEM key's `Aw==`) would blank out ordinary text wherever it occurs.
    let lines: Vec<String> = value
        .lines()
        .map(|l| l.trim_end_matches('\r').to_owned())
        .filter(|l| l.trim().len() >= MIN_HIDDEN_LINE)
        .collect();
    let several = value.contains('\n');
    let mut forms = vec![value];
    if several {
        forms.extend(lines);
    }
    forms
}

impl StderrRing {
    /// A ring keeping at most `capacity` lines.
    pub fn new(capacity: usize) -> Self {
        Self {
            inner: Arc::new(Mutex::new(RingInner {
                lines: VecDeque::with_capacity(capacity.min(1024)),
                capacity,
                dropped: 0,
                total: 0,
                hidden: Vec::new(),
            })),
        }
    }

    /// Appends a line, evicting the oldest when full.
    pub fn push(&self, line: String) {
        if let Ok(mut r) = self.inner.lock() {
            if r.lines.len() == r.capacity {
                r.lines.pop_front();
                r.dropped += 1;
            }
            r.lines.push_back(line);
            r.total += 1;
        }
    }

    /// Hides `values` (the secrets the server was started with) from every line read from now
    /// on, in place of those of its previous start.
    pub fn hide(&self, values: impl IntoIterator<Item = String>) {
        let mut hidden: Vec<String> = values
            .into_iter()
            .flat_map(with_its_lines)
            .filter(|v| v.trim().len() >= MIN_HIDDEN)
            .collect();
        // The longest first: a secret that contains another is hidden whole.
        hidden.sort_by_key(|v| std::cmp::Reverse(v.len()));
        hidden.dedup();
        if let Ok(mut r) = self.inner.lock() {
            r.hidden = hidden;
        }
    }

    /// `line` with every hidden value replaced by `[redacted]`.
    pub fn redact(&self, line: String) -> String {
        let Ok(r) = self.inner.lock() else {
            return line;
        };
        let mut line = line;
        for value in &r.hidden {
            if line.contains(value.as_str()) {
                line = line.replace(value.as_str(), "[redacted]");
            }
        }
        line
    }

    /// A position in the stream of lines, for [`StderrRing::lines_since`].
    pub fn mark(&self) -> u64 {
        self.inner.lock().map(|r| r.total).unwrap_or(0)
    }

    /// The lines pushed after `mark` that are still kept.
    pub fn lines_since(&self, mark: u64) -> Vec<String> {
        self.inner
            .lock()
            .map(|r| {
                let new = usize::try_from(r.total.saturating_sub(mark)).unwrap_or(usize::MAX);
                let skip = r.lines.len().saturating_sub(new);
                r.lines.iter().skip(skip).cloned().collect()
            })
            .unwrap_or_default()
    }

    /// The lines currently kept, oldest first.
    pub fn lines(&self) -> Vec<String> {
        self.inner
            .lock()
            .map(|r| r.lines.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// How many lines were evicted so far.
    pub fn dropped(&self) -> u64 {
        self.inner.lock().map(|r| r.dropped).unwrap_or(0)
    }
}

/// What to run.
#[derive(Clone)]
pub struct SpawnSpec<'a> {
    pub server: &'a str,
    pub command: &'a str,
    pub args: &'a [String],
    pub cwd: Option<&'a Path>,
    /// Configured variables, already expanded; they override the base environment.
    pub env: &'a BTreeMap<String, String>,
    /// Where the child is recorded so a later start reaps it if this host dies first.
    pub records: Option<&'a ProcessRecords>,
    /// The OS box it runs in (none: unsandboxed).
    pub sandbox: Option<&'a switchboard_sandbox::BoxSpec>,
}

/// Environment values may be secrets from the keychain: only their names are printed.
impl std::fmt::Debug for SpawnSpec<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let env: Vec<String> = self.env.keys().map(|k| format!("{k}=[redacted]")).collect();
        f.debug_struct("SpawnSpec")
            .field("server", &self.server)
            .field("command", &self.command)
            .field("args", &self.args)
            .field("cwd", &self.cwd)
            .field("env", &env)
            .finish()
    }
}

/// A running child in its own process group.
#[derive(Debug)]
pub struct ServerProcess {
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
    pub group: ProcessGroup,
}

/// Owns a child and its process group. Dropping it SIGKILLs the group.
#[derive(Debug)]
pub struct ProcessGroup {
    child: Option<ServerChild>,
    pid: Option<u32>,
    /// The group's record and token, removed once the group is gone.
    record: Option<(ProcessRecords, String)>,
    /// Cancelled once everything the child wrote to stderr is in the ring.
    stderr_read: tokio_util::sync::CancellationToken,
    /// The proxy its sandbox reaches listed hosts through: it lives as long as the group.
    proxy: Option<crate::egress::HostProxy>,
    /// Whether it runs in the OS sandbox.
    sandboxed: bool,
}

/// Starts a server process with a clean environment, in a new process group, with its stderr
/// pumped into `ring` and `tracing`.
pub fn spawn(
    spec: &SpawnSpec<'_>,
    base: &BTreeMap<String, String>,
    ring: &StderrRing,
) -> Result<ServerProcess> {
    // Resolve the program against the child's PATH, not the host's.
    let child_path = spec.env.get("PATH").or_else(|| base.get("PATH"));
    let program = resolve_program(spec.command, child_path.map(String::as_str));
    let os = |(k, v): (&String, &String)| (k.into(), v.into());
    let mut env: BTreeMap<OsString, OsString> = base.iter().chain(spec.env).map(os).collect();
    let token = spec.records.map(|_| records::new_token());
    if let Some(token) = &token {
        env.insert(records::TOKEN_VAR.into(), token.into());
    }
    let mut launch = Launch {
        args: spec.args.to_vec(),
        cwd: spec.cwd.map(Path::to_path_buf),
        sandbox: None,
        env,
        program,
    };
    if let Some(boxed) = spec.sandbox {
        enter_box(&mut launch, spec, boxed, child_path.map(String::as_str))?;
    }
    let started = launch.start().map_err(|e| not_started(spec, &e))?;
    let stderr_read = tokio_util::sync::CancellationToken::new();
    let done = stderr_read.clone().drop_guard();
    let (server, ring) = (spec.server.to_owned(), ring.clone());
    tokio::spawn(async move {
        pump_stderr(server, started.stderr, ring).await;
        drop(done);
    });
    let pid = started.child.id();
    let record = match (spec.records, token, pid) {
        (Some(records), Some(token), Some(pid)) => {
            records.record(&token, spec.server, pid);
            Some((records.clone(), token))
        }
        _ => None,
    };
    Ok(ServerProcess {
        stdin: started.stdin,
        stdout: started.stdout,
        group: ProcessGroup {
            child: Some(started.child),
            pid,
            record,
            stderr_read,
            proxy: None,
            sandboxed: spec.sandbox.is_some(),
        },
    })
}

/// Puts the child in its OS box: the grants for its resolved program, its private `TMPDIR` and
/// runtime caches, its state directory as working directory when none is configured, and the
/// box to enter before exec. Where the box cannot be built the server does not start.
fn enter_box(
    launch: &mut Launch,
    spec: &SpawnSpec<'_>,
    boxed: &switchboard_sandbox::BoxSpec,
    path: Option<&str>,
) -> Result<()> {
    let grants = boxed.grants(switchboard_sandbox::grants::Launch {
        program: &launch.program,
        args: spec.args,
        cwd: spec.cwd,
        path,
    });
    tracing::debug!(server = spec.server, ?grants, "sandbox");
    let support = switchboard_sandbox::Support::detect();
    let prepared = switchboard_sandbox::Prepared::build(spec.server, &grants, support)?;
    (launch.env).insert("TMPDIR".into(), boxed.temp_dir.clone().into_os_string());
    for (name, dir) in &grants.env {
        (launch.env)
            .entry((*name).into())
            .or_insert_with(|| dir.clone().into_os_string());
    }
    if let (None, Some(dir)) = (spec.cwd, &grants.cwd) {
        launch.cwd = Some(dir.clone());
    }
    launch.sandbox = Some(prepared);
    Ok(())
}

/// Finds `program` in `path` when it is a bare name; otherwise returns it unchanged.
fn resolve_program(program: &str, path: Option<&str>) -> std::path::PathBuf {
    if program.contains(std::path::MAIN_SEPARATOR) || program.contains('/') {
        return program.into();
    }
    path.and_then(|path| {
        std::env::split_paths(path)
            .map(|dir| dir.join(program))
            .find(|p| is_executable(p))
    })
    .unwrap_or_else(|| program.into())
}

#[cfg(unix)]
fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p)
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

#[cfg(not(unix))]
fn is_executable(p: &Path) -> bool {
    p.is_file()
}

/// Reads stderr line by line into the ring and `tracing`, bounding line length and the rate of
/// log records so a flooding server cannot bloat the host.
async fn pump_stderr(server: String, stderr: impl AsyncRead + Unpin, ring: StderrRing) {
    let mut reader = BufReader::new(stderr);
    let mut buf = Vec::new();
    let mut window = Instant::now();
    let mut in_window = 0u32;
    let mut suppressed = 0u64;
    loop {
        buf.clear();
        match read_bounded_line(&mut reader, &mut buf, MAX_STDERR_LINE).await {
            Ok(0) => break,
            Ok(_) => {}
            Err(_) => break,
        }
        let line = ring.redact(String::from_utf8_lossy(&buf).trim_end().to_owned());
        if window.elapsed() >= Duration::from_secs(1) {
            if suppressed > 0 {
                tracing::warn!(target: "server_stderr", server, suppressed, "stderr lines not logged (rate limit); all are in the stderr buffer");
            }
            window = Instant::now();
            in_window = 0;
            suppressed = 0;
        }
        in_window += 1;
        if in_window <= 50 {
            tracing::info!(target: "server_stderr", server, "{}", redact_tokens(&line));
        } else {
            suppressed += 1;
        }
        ring.push(line);
    }
}

/// `line` with every word that looks like a credential replaced by `[redacted]`, for the log: a
/// server that prints its token on stderr must not put it in the host's log files. The stderr
/// tab (in memory, the person's own) keeps the line as it was.
pub fn redact_tokens(line: &str) -> std::borrow::Cow<'_, str> {
    let mut out = String::with_capacity(line.len());
    let mut changed = false;
    let mut previous_bearer = false;
    for (i, word) in line.split(' ').enumerate() {
        if i > 0 {
            out.push(' ');
        }
        // `key=value` and `"key": "value"` forms: judge the value.
        let cut = word.rfind(['=', ':']).map_or(0, |i| i + 1);
        let (head, value) = word.split_at(cut);
        let value_core = value.trim_matches(|c: char| "\"',;()[]{}<>".contains(c));
        if previous_bearer || looks_like_token(value_core) {
            out.push_str(head);
            out.push_str(&value.replace(value_core, "[redacted]"));
            changed = true;
        } else {
            out.push_str(word);
        }
        previous_bearer = word.eq_ignore_ascii_case("bearer") || word.eq_ignore_ascii_case("token");
    }
    if changed {
        std::borrow::Cow::Owned(out)
    } else {
        std::borrow::Cow::Borrowed(line)
    }
}

/// Known credential prefixes, JWTs, and long runs of key characters mixing letters and digits.
pub fn looks_like_token(word: &str) -> bool {
    const PREFIXES: [&str; 13] = [
        "sk-",
        "sk_",
        "ghp_",
        "gho_",
        "ghs_",
        "ghu_",
        "github_pat_",
        "glpat-",
        "xoxb-",
        "xoxp-",
        "AKIA",
        "AIza",
        "eyJ",
    ];
    let keyish = |c: char| c.is_ascii_alphanumeric() || "-_+/=.".contains(c);
    if word.len() < 16 || !word.chars().all(keyish) {
        return false;
    }
    let mixed =
        word.chars().any(|c| c.is_ascii_digit()) && word.chars().any(|c| c.is_ascii_alphabetic());
    PREFIXES.iter().any(|p| word.starts_with(p))
        || (word.len() >= 32 && mixed && !word.contains('/'))
}

/// Reads up to a newline, keeping at most `max` bytes of it (the rest of the line is skipped).
/// Returns the number of bytes consumed (0 at end of stream).
async fn read_bounded_line<R: AsyncBufReadExt + Unpin>(
    reader: &mut R,
    buf: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<usize> {
    let mut total = 0;
    loop {
        let (consumed, done) = {
            let available = reader.fill_buf().await?;
            if available.is_empty() {
                return Ok(total);
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            let room = max.saturating_sub(buf.len());
            buf.extend_from_slice(&available[..take.min(room)]);
            (take, newline.is_some())
        };
        reader.consume(consumed);
        total += consumed;
        if done {
            return Ok(total);
        }
    }
}

impl ProcessGroup {
    /// Whether it runs in the OS sandbox.
    pub fn sandboxed(&self) -> bool {
        self.sandboxed
    }

    /// Keeps `proxy` running as long as this group.
    pub fn keep_proxy(&mut self, proxy: crate::egress::HostProxy) {
        self.proxy = Some(proxy);
    }

    /// The child's pid (also its process-group id), while known.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Waits, at most `within`, until all the child wrote to stderr is in the ring (its last
    /// words say why it exited; a grandchild holding the pipe open must not hold us up).
    pub async fn stderr_read(&self, within: Duration) {
        let _ = tokio::time::timeout(within, self.stderr_read.cancelled()).await;
    }

    /// Waits for the child to exit on its own; returns its exit description.
    pub async fn wait(&mut self) -> Option<String> {
        let child = self.child.as_mut()?;
        child.wait().await.ok().map(|s| s.to_string())
    }

    /// The spec's shutdown after stdin has been closed: wait for the child, SIGTERM the group,
    /// wait, SIGKILL the group; then make sure nothing of the group is left.
    pub async fn shutdown(&mut self, step: Duration) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        let exited = tokio::time::timeout(step, child.wait()).await.is_ok();
        if !exited {
            self.signal_group(Signal::Term);
            if tokio::time::timeout(step, child.wait()).await.is_err() {
                self.signal_group(Signal::Kill);
                let _ = child.wait().await;
            }
        }
        // The child is gone; grandchildren in its group may not be.
        if self.group_alive().await {
            self.signal_group(Signal::Term);
            let deadline = Instant::now() + step;
            while self.group_alive().await && Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
            if self.group_alive().await {
                self.signal_group(Signal::Kill);
                // SIGKILL is asynchronous: wait until the kernel has finished the processes.
                let deadline = Instant::now() + step;
                while self.group_alive().await && Instant::now() < deadline {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            }
        }
        self.pid = None;
        if let Some((records, token)) = self.record.take() {
            records.remove(&token);
        }
    }

    /// Whether any of the group is left, asked on a blocking thread: reading `/proc` touches
    /// every process on the machine.
    #[cfg(unix)]
    async fn group_alive(&self) -> bool {
        let Some(pid) = self.pid else {
            return false;
        };
        tokio::task::spawn_blocking(move || group_alive(pid))
            .await
            .unwrap_or(true)
    }

    #[cfg(not(unix))]
    async fn group_alive(&self) -> bool {
        false
    }

    #[cfg(unix)]
    fn signal_group(&self, signal: Signal) {
        if let Some(pid) = self.pid.and_then(|p| libc::pid_t::try_from(p).ok()) {
            let sig = match signal {
                Signal::Term => libc::SIGTERM,
                Signal::Kill => libc::SIGKILL,
            };
            // SAFETY: the group was created by us (process_group(0)) with the child as leader.
            unsafe {
                libc::killpg(pid, sig);
            }
        }
    }

    #[cfg(not(unix))]
    fn signal_group(&self, _signal: Signal) {
        if let Some(pid) = self.child.as_ref().and_then(ServerChild::id) {
            let _ = std::process::Command::new("taskkill")
                .args(["/T", "/F", "/PID", &pid.to_string()])
                .status();
        }
    }
}

/// Whether any process of group `pgid` is still running. Zombies do not count: a killed
/// grandchild stays a zombie until whoever inherited it reaps it, but it holds no resources.
#[cfg(target_os = "linux")]
pub fn group_alive(pgid: u32) -> bool {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return unsafe_group_exists(pgid);
    };
    dir.filter_map(|e| e.ok())
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .any(|stat| {
            // Fields after the parenthesised command: state, ppid, pgrp, ...
            let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
                return false;
            };
            let mut fields = rest.split_whitespace();
            let state = fields.next();
            let pgrp = fields.nth(1).and_then(|f| f.parse::<u32>().ok());
            pgrp == Some(pgid) && state != Some("Z") && state != Some("X")
        })
}

/// Whether any process of group `pgid` exists (zombies included).
#[cfg(all(unix, not(target_os = "linux")))]
pub fn group_alive(pgid: u32) -> bool {
    unsafe_group_exists(pgid)
}

#[cfg(unix)]
fn unsafe_group_exists(pgid: u32) -> bool {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return false;
    };
    // SAFETY: killpg with signal 0 only checks for the group's existence.
    unsafe { libc::killpg(pgid, 0) == 0 }
}

#[derive(Debug, Clone, Copy)]
enum Signal {
    Term,
    Kill,
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        if self.pid.is_some() {
            self.signal_group(Signal::Kill);
        }
        if let Some((records, token)) = self.record.take() {
            records.remove(&token);
        }
    }
}

/// Why server `spec.server`'s command could not be started, and what to check.
fn not_started(spec: &SpawnSpec<'_>, e: &std::io::Error) -> Error {
    let (server, command) = (spec.server, spec.command);
    let why = match e.kind() {
        std::io::ErrorKind::NotFound => format!(
            "the command {command:?} was not found: check that it is installed and on the PATH \
             Switchboard starts servers with, or give its full path"
        ),
        std::io::ErrorKind::PermissionDenied => {
            format!("the command {command:?} may not be run: check that it is executable")
        }
        _ => format!("the command {command:?} could not be run"),
    };
    Error::new(
        ErrorCode::SpawnFailed,
        format!("Server {server:?} could not start: {why}."),
    )
    .with_details(e.to_string())
}

#[cfg(test)]
mod tests {
    /// A file `name` in `dir` holding `text`, that its owner may run, written by another
    /// process. Written from this one, its descriptor open for writing would be inherited by any
    /// child another test starts at that moment and held until that child's exec; running the
    /// file then fails with "text file busy" (ETXTBSY). That made one run in about 500 of
    /// `path_comes_from_the_login_shell` fail.
    #[cfg(unix)]
    pub(crate) fn executable(dir: &std::path::Path, name: &str, text: &str) -> std::path::PathBuf {
        use std::io::Write;
        let path = dir.join(name);
        let mut sh = std::process::Command::new("/bin/sh")
            .args(["-c", "cat > \"$1\" && chmod 755 \"$1\"", "sh"])
            .arg(&path)
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        sh.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
        assert!(sh.wait().unwrap().success());
        path
    }

    #[test]
    fn credentials_on_stderr_never_reach_the_log_verbatim() {
        for (line, secret) in [
            (
                "using key sk-ant-api03-canary1234567890abcdef",
                "sk-ant-api03-canary1234567890abcdef",
            ),
            (
                "GITHUB_TOKEN=ghp_canary1234567890ABCDEFGHIJ",
                "ghp_canary1234567890ABCDEFGHIJ",
            ),
            ("Authorization: Bearer abc.def", "abc.def"),
            (
                r#"{"access_token": "0123456789abcdef0123456789abcdef01"}"#,
                "0123456789abcdef0123456789abcdef01",
            ),
            (
                "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig",
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig",
            ),
        ] {
            let shown = super::redact_tokens(line);
            assert!(!shown.contains(secret), "{line} → {shown}");
            assert!(shown.contains("[redacted]"), "{shown}");
        }
        for plain in [
            "Starting server on port 8080",
            "loaded /usr/lib/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
            "request 42 took 12ms",
        ] {
            assert_eq!(super::redact_tokens(plain), plain);
        }
    }

    use super::*;

    #[test]
    fn a_spawn_spec_prints_env_names_never_values() {
        let env = BTreeMap::from([("API_TOKEN".to_owned(), "canary-value-123".to_owned())]);
        let args = vec!["--flag".to_owned()];
        let spec = SpawnSpec {
            server: "s",
            command: "server",
            args: &args,
            cwd: None,
            env: &env,
            records: None,
            sandbox: None,
        };
        let printed = format!("{spec:?}");
        assert!(printed.contains("API_TOKEN=[redacted]"), "{printed}");
        assert!(!printed.contains("canary-value-123"), "{printed}");
    }

    #[test]
    fn only_allow_listed_variables_are_inherited() {
        let host = BTreeMap::from([
            ("OPENAI_API_KEY", "sk-should-not-leak"),
            ("SWITCHBOARD_TEST_SECRET", "x"),
            ("PATH", "/usr/bin"),
            ("HOME", "/home/u"),
            ("SHELL", "() { :; }; echo pwned"),
        ]);
        let env = allow_listed(|name| host.get(name).map(|v| (*v).to_owned()));
        assert_eq!(
            env,
            BTreeMap::from([
                ("HOME".to_owned(), "/home/u".to_owned()),
                ("PATH".to_owned(), "/usr/bin".to_owned()),
            ])
        );
    }

    #[tokio::test]
    async fn base_env_reads_only_allow_listed_variables() {
        // The process's own environment, read and never written: a test that set a variable
        // would race every test that spawns a process.
        let env = BaseEnv::from_current().vars().await;
        assert!(
            env.keys().all(|k| INHERITED_ENV.contains(&k.as_str())),
            "{:?}",
            env.keys()
        );
        assert!(env.contains_key("PATH"));
    }

    #[cfg(unix)]
    #[test]
    fn path_comes_from_the_login_shell() {
        let dir = tempfile::tempdir().unwrap();
        // Like a login shell whose profile adds nvm's bin dir and chats on stdout.
        let shell = executable(
            dir.path(),
            "fake-login-shell",
            "#!/bin/sh\necho 'Welcome!'\nPATH=/home/u/.nvm/bin:/usr/bin; export PATH\nshift\neval \"$2\"\n",
        );
        assert_eq!(
            path_from_shell(shell.to_str().unwrap()).as_deref(),
            Some("/home/u/.nvm/bin:/usr/bin")
        );
        assert_eq!(path_from_shell("/nonexistent/shell"), None);
    }

    #[test]
    fn ring_is_bounded() {
        let r = StderrRing::new(3);
        for i in 0..5 {
            r.push(i.to_string());
        }
        assert_eq!(r.lines(), ["2", "3", "4"]);
        assert_eq!(r.dropped(), 2);
        let mark = r.mark();
        r.push("5".into());
        assert_eq!(r.lines_since(mark), ["5"]);
        assert_eq!(r.lines_since(0), ["3", "4", "5"]);
    }

    #[tokio::test]
    async fn bounded_line_truncates_and_skips_rest() {
        let data = format!("{}\nshort\n", "x".repeat(100));
        let mut r = BufReader::new(data.as_bytes());
        let mut buf = Vec::new();
        assert_eq!(read_bounded_line(&mut r, &mut buf, 10).await.unwrap(), 101);
        assert_eq!(buf, b"xxxxxxxxxx");
        buf.clear();
        read_bounded_line(&mut r, &mut buf, 10).await.unwrap();
        assert_eq!(buf, b"short\n");
    }

    /// Spawns `command` with `args`, unsandboxed.
    fn spawned(command: &str, args: &[String]) -> ServerProcess {
        let env = BTreeMap::new();
        let spec = SpawnSpec {
            server: "t",
            command,
            args,
            cwd: None,
            env: &env,
            records: None,
            sandbox: None,
        };
        spawn(&spec, &current_vars(), &StderrRing::new(10)).unwrap()
    }

    /// Arguments reach the program as the bytes they are: no shell joins or reads them.
    #[tokio::test]
    async fn arguments_reach_the_server_as_bytes_with_no_shell() {
        use tokio::io::AsyncReadExt;
        let hostile = [
            "a; touch /tmp/switchboard-injected",
            "$(id)",
            "`id`",
            "\"double\" 'single'",
            "line one\nline two",
            "--flag=$HOME",
            "*",
            "",
            "tab\there",
        ];
        let mut args = vec!["[%s]".to_owned()];
        args.extend(hostile.iter().map(|a| a.to_string()));
        let mut p = spawned("printf", &args);
        let mut out = String::new();
        p.stdout.read_to_string(&mut out).await.unwrap();
        let expected: String = hostile.iter().map(|a| format!("[{a}]")).collect();
        assert_eq!(out, expected);
    }

    /// A descriptor of ours opened without close-on-exec (as a C library may) does not reach
    /// the child: it has only its stdio.
    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn the_child_inherits_no_descriptor_of_ours() {
        use std::os::fd::AsRawFd;
        let dir = tempfile::tempdir().unwrap();
        let file = std::fs::File::create(dir.path().join("host.db")).unwrap();
        let socket = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        // SAFETY: dup of descriptors this test owns; the copies lack close-on-exec.
        let leaked = unsafe { [libc::dup(file.as_raw_fd()), libc::dup(socket.as_raw_fd())] };
        assert!(leaked.iter().all(|fd| *fd > 2));
        // `; true`: the shell forks for `ls`, which lists the shell's descriptors, not its own.
        let args = vec!["-c".to_owned(), "ls /proc/$$/fd; true".to_owned()];
        let mut p = spawned("sh", &args);
        let mut out = String::new();
        tokio::io::AsyncReadExt::read_to_string(&mut p.stdout, &mut out)
            .await
            .unwrap();
        // SAFETY: closing the copies made above.
        unsafe {
            for fd in leaked {
                libc::close(fd);
            }
        }
        let fds: Vec<&str> = out.split_whitespace().collect();
        assert_eq!(fds, ["0", "1", "2"], "the child holds {fds:?}");
    }

    #[tokio::test]
    async fn shutdown_kills_the_whole_group() {
        let ring = StderrRing::new(10);
        let env = BTreeMap::new();
        let args = vec![
            "-c".to_owned(),
            "trap '' TERM; sleep 1000 & echo grandchild $! >&2; wait".to_owned(),
        ];
        let spec = SpawnSpec {
            server: "t",
            command: "sh",
            args: &args,
            cwd: None,
            env: &env,
            records: None,
            sandbox: None,
        };
        let mut p = spawn(&spec, &current_vars(), &ring).unwrap();
        let pid = p.group.pid().unwrap();
        // The shell reports its grandchild only after it has set the trap and started it.
        let deadline = Instant::now() + Duration::from_secs(10);
        while !ring.lines().iter().any(|l| l.starts_with("grandchild")) {
            assert!(
                Instant::now() < deadline,
                "the shell never started its grandchild"
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        drop(p.stdin);
        p.group.shutdown(Duration::from_millis(300)).await;
        assert!(!group_alive(pid), "process group {pid} survived shutdown");
    }
}
