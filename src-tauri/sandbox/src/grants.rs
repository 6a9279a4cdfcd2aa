//! What a sandboxed server may read, write and reach. The profile the user sees (extra paths,
//! read-only roots, network) plus what every server needs to run at all: the system's files
//! (minus the secrets in `/etc` that have a name), its own program and install directory, the
//! files of the runtime that program really runs on (found by following symlinks, shebangs and
//! venvs, not by the command's name), that runtime's caches, its roots, and a private state and
//! temp directory. Never the rest of the home directory.

mod runtime;

use std::path::{Path, PathBuf};

use serde::Serialize;
use switchboard_base::config::{NetworkSetting, SandboxProfile};
use ts_rs::TS;

pub use runtime::Runtime;

/// Everything the box is built from, decided by the host before the server starts.
#[derive(Debug, Clone, PartialEq)]
pub struct BoxSpec {
    pub profile: SandboxProfile,
    /// The server's roots (writable unless listed in the profile's `readOnlyRoots`).
    pub roots: Vec<PathBuf>,
    /// The server's own state directory (read and write).
    pub state_dir: PathBuf,
    /// Its private temp directory (read and write; its `TMPDIR`).
    pub temp_dir: PathBuf,
    /// Where its runtime keeps its caches (npm's, uv's): its own, never the user's shared ones,
    /// whose packages the user's unboxed programs run later.
    pub cache_dir: PathBuf,
    /// The user's home directory, never granted as a whole.
    pub home: Option<PathBuf>,
    /// Paths no automatic grant may contain: Switchboard's config file and data directory.
    pub protected: Vec<PathBuf>,
    /// Where installed MCP Bundles are unpacked (inside the data directory): a grant inside one
    /// bundle's folder (`<bundles>/<name>/<version>/…`) is allowed, none above it.
    pub bundles: Option<PathBuf>,
    /// The loopback port of the proxy the server reaches listed hosts through.
    pub proxy_port: Option<u16>,
}

/// Where the boxes live and what no box may contain: the host's own files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoxPlace {
    /// The directory holding each server's state and temp directories.
    pub dir: PathBuf,
    /// The user's home directory.
    pub home: Option<PathBuf>,
    /// Switchboard's config file and data directory.
    pub protected: Vec<PathBuf>,
    /// Where installed MCP Bundles are unpacked, inside the data directory.
    pub bundles: Option<PathBuf>,
}

impl BoxPlace {
    /// The spec for server `server` with `profile` and `roots`: its state directory kept, its
    /// temp directory emptied (what one run left there is not the next run's business).
    pub fn spec(
        &self,
        server: &str,
        profile: SandboxProfile,
        roots: Vec<PathBuf>,
    ) -> std::io::Result<BoxSpec> {
        let own = self.own_dir(server);
        let (state_dir, temp_dir) = (own.join("state"), own.join("tmp"));
        // Emptied only when something is in it: most starts find it empty.
        let left = std::fs::read_dir(&temp_dir).map(|mut d| d.next().is_some());
        if matches!(left, Ok(true)) {
            std::fs::remove_dir_all(&temp_dir)?;
        }
        std::fs::create_dir_all(&state_dir)?;
        if !matches!(left, Ok(false)) {
            std::fs::create_dir_all(&temp_dir)?;
        }
        Ok(BoxSpec {
            profile,
            roots,
            state_dir,
            temp_dir,
            cache_dir: own.join("cache"),
            // Compared with real paths (every automatic grant is one), as named and as resolved:
            // a home or data directory reached through a symlink is still the same folder.
            home: self.home.as_deref().map(real_or_same),
            protected: self
                .protected
                .iter()
                .flat_map(|p| [p.clone(), real_or_same(p)])
                .collect(),
            bundles: self.bundles.clone(),
            proxy_port: None,
        })
    }

    /// Server `server`'s state directory.
    pub fn state_dir(&self, server: &str) -> PathBuf {
        self.own_dir(server).join("state")
    }

    /// The directory holding server `server`'s state, cache and temp directories.
    fn own_dir(&self, server: &str) -> PathBuf {
        self.dir.join(directory_name(server))
    }
}

/// A directory name for a server name: its safe characters, to be read by people, and 128 bits
/// of its SHA-256, so that no two names share one: a server that could pick a name sharing
/// another's directory would get its state and plant code in its caches.
fn directory_name(server: &str) -> String {
    use sha2::Digest;
    use std::fmt::Write;
    let digest = sha2::Sha256::digest(server.as_bytes());
    let mut name = safe_characters(server);
    name.push('-');
    for byte in &digest[..16] {
        let _ = write!(name, "{byte:02x}");
    }
    name
}

/// The first 48 of `server`'s characters, those not safe in a file name made `_`.
fn safe_characters(server: &str) -> String {
    server
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(48)
        .collect()
}

/// A sandboxed server's network.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case", tag = "kind")]
#[ts(export)]
pub enum Network {
    /// Any host.
    On,
    /// None at all, loopback included.
    Off,
    /// Only Switchboard's loopback proxy, which lets through the listed hosts.
    Proxy { port: u16 },
}

/// What the kernel is told: paths it may read (and run programs from), named or found and
/// checked, paths it may also write, and its network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grants {
    pub read: Vec<PathBuf>,
    /// Paths it may read that were found automatically and checked as real paths: each is
    /// opened refusing every symlink, so that one swapped in after the check (by another box
    /// that may write the folder above) grants nothing.
    pub checked: Vec<PathBuf>,
    pub write: Vec<PathBuf>,
    pub network: Network,
    /// The working directory the server gets when its config names none (its state directory).
    pub cwd: Option<PathBuf>,
    /// Variables that point its runtime at the box's own caches (`NPM_CONFIG_CACHE`, …), set
    /// unless the server's config sets them.
    pub env: Vec<(&'static str, PathBuf)>,
}

/// System paths every server may read and run programs from.
const SYSTEM: &[&str] = &[
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/opt",
    "/nix/store",
    "/snap",
    "/proc",
    "/sys",
];

/// Folders of the home directory holding the keyring's files and other programs' settings and
/// tokens: no automatic grant contains one. The prefix of a program in `~/.local/bin`, for one,
/// is `~/.local` once `~/.local/lib` exists.
const HOME_SECRETS: &[&str] = &[
    ".local/share/keyrings",
    ".config",
    ".ssh",
    ".gnupg",
    ".aws",
    ".mozilla",
    ".thunderbird",
    ".password-store",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".pki",
    ".var/app",
];

/// Devices every server may read and write.
const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
];

/// What of `/etc` runtimes read (the loader, name service, time, locale, certificates, MIME,
/// their own settings). A list rather than `/etc` without its secrets: Landlock can only allow,
/// so the latter is one rule per entry of `/etc` (about 150), each costing every start a few
/// microseconds. None of these holds a secret; a server that needs another file of `/etc` gets it
/// through its profile's read list.
const ETC: &[&str] = &[
    "/etc/alternatives",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/timezone",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/hosts",
    "/etc/host.conf",
    "/etc/hostname",
    "/etc/resolv.conf",
    "/etc/gai.conf",
    "/etc/services",
    "/etc/protocols",
    "/etc/ssl/certs",
    "/etc/ssl/openssl.cnf",
    "/etc/ca-certificates",
    "/etc/ca-certificates.conf",
    "/etc/pki/tls/certs",
    "/etc/pki/ca-trust",
    "/etc/crypto-policies",
    "/etc/mime.types",
    "/etc/os-release",
    "/etc/lsb-release",
    "/etc/debian_version",
    "/etc/machine-id",
    "/etc/locale.alias",
    "/etc/locale.conf",
    "/etc/default/locale",
    "/etc/environment",
    "/etc/npmrc",
    "/etc/pip.conf",
    "/etc/gitconfig",
    "/etc/magic",
    "/etc/fonts",
    "/etc/xdg",
    "/etc/inputrc",
    "/etc/terminfo",
];

/// The folders among [`ETC`]; every other entry there, and every one of [`DEVICES`], is a file.
const ETC_FOLDERS: &[&str] = &[
    "/etc/alternatives",
    "/etc/ld.so.conf.d",
    "/etc/ssl/certs",
    "/etc/ca-certificates",
    "/etc/pki/tls/certs",
    "/etc/pki/ca-trust",
    "/etc/crypto-policies",
    "/etc/fonts",
    "/etc/xdg",
    "/etc/terminfo",
];

/// Whether `path` is one of the system's files every server may use (a device, a file of
/// `/etc`): its rule is made with the rights of files at once, rather than after the kernel has
/// refused the rights of folders on it, which cost every boxed start one system call a file.
/// Were one a folder on some system, it would get only the rights of files: less, never more.
pub fn is_system_file(path: &Path) -> bool {
    let Some(path) = path.to_str() else {
        return false;
    };
    DEVICES.contains(&path) || (ETC.contains(&path) && !ETC_FOLDERS.contains(&path))
}

/// How the server's program is started.
#[derive(Debug, Clone, Copy)]
pub struct Launch<'a> {
    /// The program as resolved against the child's PATH (not yet following symlinks).
    pub program: &'a Path,
    pub args: &'a [String],
    pub cwd: Option<&'a Path>,
    /// The child's PATH, for a shebang's `env NAME`.
    pub path: Option<&'a str>,
}

impl BoxSpec {
    /// The grants for starting `launch` in this box.
    pub fn grants(&self, launch: Launch<'_>) -> Grants {
        let runtime = Runtime::of(launch.program, launch.path);
        let mut read = system_reads();
        read.extend(self.profile.read.iter().cloned());
        let (read_only_roots, writable_roots): (Vec<_>, Vec<_>) = self
            .roots
            .iter()
            .cloned()
            .partition(|r| self.profile.read_only_roots.contains(r));
        read.extend(read_only_roots);
        let mut write: Vec<PathBuf> = DEVICES.iter().map(PathBuf::from).collect();
        write.extend(writable_roots);
        write.extend([self.state_dir.clone(), self.temp_dir.clone()]);
        let env = runtime.caches(&self.cache_dir);
        write.extend(env.iter().map(|(_, dir)| dir.clone()));
        write.extend(self.profile.write.iter().cloned());
        Grants {
            read: dedup(read),
            checked: dedup(self.found(launch, &runtime)),
            write: dedup(write),
            network: self.network(),
            cwd: launch.cwd.is_none().then(|| self.state_dir.clone()),
            env,
        }
    }

    /// What the box reads that was found rather than named by the person: the program and its
    /// runtime, what the arguments and working folder name, and for uv the person's installs;
    /// each a real path that passed [`BoxSpec::automatic`].
    fn found(&self, launch: Launch<'_>, runtime: &Runtime) -> Vec<PathBuf> {
        let mut found = Vec::new();
        for file in runtime.files() {
            found.extend(self.installed(&file));
        }
        found.extend(self.automatic(runtime.venvs()));
        for path in argument_paths(launch) {
            if path.is_file() {
                found.extend(self.installed(&path));
            } else if !in_system(&path) {
                found.extend(self.automatic([path]));
            }
        }
        if let Some(cwd) = launch.cwd {
            found.extend(self.automatic([cwd.to_path_buf()]));
        }
        if let Some(home) = &self.home {
            found.extend(self.automatic(runtime.shared_reads(home)));
        }
        found
    }

    fn network(&self) -> Network {
        match (&self.profile.network, self.proxy_port) {
            (NetworkSetting::Enabled(true), _) => Network::On,
            (NetworkSetting::Enabled(false), _) => Network::Off,
            (NetworkSetting::Hosts(_), Some(port)) => Network::Proxy { port },
            // Hosts listed but no proxy running: nothing gets through.
            (NetworkSetting::Hosts(_), None) => Network::Off,
        }
    }

    /// Of `paths` found automatically, those that exist, as real paths (the kernel follows `..`
    /// and symlinks when the rule is made, so the checks look at what it will open; a relative
    /// path would be the host's own working directory), that are no folder all users share
    /// ([`is_shared_folder`]), that do not contain the home directory (a script in `~` must not
    /// open all of `~`), neither contain nor lie in one of its secret folders, and neither
    /// contain nor lie in a protected path (an argument naming the host's database does not open
    /// it), unless they lie inside one installed bundle's folder.
    fn automatic(&self, paths: impl IntoIterator<Item = PathBuf>) -> Vec<PathBuf> {
        paths
            .into_iter()
            .filter(|p| p.is_absolute())
            .filter_map(|p| std::fs::canonicalize(p).ok())
            .filter(|p| !is_shared_folder(p))
            .filter(|p| {
                !self
                    .home
                    .as_ref()
                    .is_some_and(|h| holds_home_or_secrets(p, h))
            })
            .filter(|p| {
                self.in_one_bundle(p)
                    || !self
                        .protected
                        .iter()
                        .any(|g| g.starts_with(p) || p.starts_with(g))
            })
            .collect()
    }

    /// What a box reads for a program or script it runs (`file`, symlinks followed): where it is
    /// installed (its modules and libraries sit around it), or the file alone where that folder
    /// may not be granted (the home directory). Nothing when a system folder every box reads
    /// holds it: a rule beneath one adds nothing, and costs every start an `open` and two calls.
    fn installed(&self, file: &Path) -> Vec<PathBuf> {
        if in_system(file) {
            return Vec::new();
        }
        let dir = self.automatic([runtime::install_dir(file)]);
        if dir.is_empty() {
            self.automatic([file.to_path_buf()])
        } else {
            dir
        }
    }

    /// Whether `p` is a bundle's folder (`<bundles>/<name>/<version>`) or inside one.
    fn in_one_bundle(&self, p: &Path) -> bool {
        let Some(rest) = self.bundles.as_ref().and_then(|b| p.strip_prefix(b).ok()) else {
            return false;
        };
        let parts: Vec<_> = rest.components().collect();
        parts.len() >= 2
            && parts
                .iter()
                .all(|c| matches!(c, std::path::Component::Normal(_)))
    }
}

/// Whether `p` is or contains the home directory `home`, or contains or lies in one of its
/// [`HOME_SECRETS`] (a bundle's argument `${HOME}/.config/gh/hosts.yml` included: a person can
/// still grant it in the server's sandbox settings).
fn holds_home_or_secrets(p: &Path, home: &Path) -> bool {
    home.starts_with(p)
        || (p.starts_with(home)
            && HOME_SECRETS.iter().any(|s| {
                let secret = home.join(s);
                secret.starts_with(p) || p.starts_with(&secret)
            }))
}

/// Whether `p` is a folder every user may write in, sticky as `/tmp`, `/var/tmp` and `/dev/shm`
/// are: other programs' temp files are there (Kerberos tickets in `/tmp/krb5cc_*`, for one), so
/// a program or working folder in one gets itself, not the folder.
#[cfg(unix)]
fn is_shared_folder(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    const STICKY_AND_WRITABLE_BY_ALL: u32 = 0o1002;
    std::fs::metadata(p).is_ok_and(|m| {
        m.is_dir()
            && m.permissions().mode() & STICKY_AND_WRITABLE_BY_ALL == STICKY_AND_WRITABLE_BY_ALL
    })
}

#[cfg(not(unix))]
fn is_shared_folder(_: &Path) -> bool {
    false
}

/// `p` with its symlinks followed where it exists; else its parent's, with its own name.
fn real_or_same(p: &Path) -> PathBuf {
    if let Ok(real) = std::fs::canonicalize(p) {
        return real;
    }
    match (p.parent().map(std::fs::canonicalize), p.file_name()) {
        (Some(Ok(parent)), Some(name)) => parent.join(name),
        _ => p.to_path_buf(),
    }
}

/// The system paths and what runtimes read of `/etc`. Missing ones are skipped when the rules
/// are made (no `stat` each here: a start should cost the box as little as it can).
fn system_reads() -> Vec<PathBuf> {
    SYSTEM.iter().chain(ETC).map(PathBuf::from).collect()
}

/// Whether `path` lies in one of the system folders every box reads, compared by its words: the
/// caller has followed its symlinks (a path without any lies beneath the folder its words name;
/// one that does not resolve is never granted anyway).
fn in_system(path: &Path) -> bool {
    SYSTEM.iter().any(|folder| path.starts_with(folder))
}

/// Paths named by the arguments that exist, absolute or relative to the working directory, their
/// symlinks followed: a script or a program (`node …/dist/index.js`, `taskset 1 server`), or a
/// folder.
fn argument_paths(launch: Launch<'_>) -> Vec<PathBuf> {
    launch
        .args
        .iter()
        .filter(|a| !a.starts_with('-') && (a.contains('/') || a.contains('.')))
        .map(|a| match launch.cwd {
            Some(cwd) => cwd.join(a),
            None => PathBuf::from(a),
        })
        .filter(|p| p.is_absolute())
        .filter_map(|p| std::fs::canonicalize(p).ok())
        .collect()
}

/// `paths` without repeats, first ones kept. Compared as bytes against what is kept, not through
/// a set of clones: a box has about sixty paths, and cloning and hashing each showed up in the
/// profile of a boxed start (about 35 µs of it on the development VM).
fn dedup(paths: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut kept: Vec<PathBuf> = Vec::with_capacity(paths.len());
    for path in paths {
        if !kept.iter().any(|k| k.as_os_str() == path.as_os_str()) {
            kept.push(path);
        }
    }
    kept
}

#[cfg(test)]
mod tests;
