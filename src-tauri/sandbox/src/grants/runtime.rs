//! The runtime a server's program really runs on, found from the resolved command: symlinks
//! followed (`npx` → `npx-cli.js`), shebangs read (`#!/usr/bin/env node`), venvs recognised by
//! their `pyvenv.cfg`, version managers by their directory. A program named `node` that is a
//! shell script gets what a shell script needs, not what Node needs.

use std::path::{Path, PathBuf};

/// Version managers whose whole directory a program inside them needs (their shims re-exec
/// through it).
const VERSION_MANAGERS: &[&str] = &[
    ".pyenv",
    ".nvm",
    ".volta",
    ".asdf",
    ".rbenv",
    ".fnm",
    ".bun",
    ".deno",
    ".local/share/fnm",
    ".local/share/mise",
];

/// What kind of runtime a program runs on, for its caches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Node,
    Python,
    Uv,
    Other,
}

/// A program and what it runs on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Runtime {
    /// The program, symlinks followed.
    pub program: PathBuf,
    /// The interpreter its shebang names, symlinks followed.
    pub interpreter: Option<PathBuf>,
    /// The venv it belongs to, and the Python installation that venv was made from.
    pub venv: Option<(PathBuf, Option<PathBuf>)>,
    pub kind: Kind,
    /// For `uv`/`uvx`: the Python it would find first on PATH.
    pub python: Option<Box<Runtime>>,
}

impl Runtime {
    /// The runtime of `program` (resolved against PATH, symlinks not yet followed).
    pub fn of(program: &Path, path: Option<&str>) -> Self {
        let canonical = std::fs::canonicalize(program).unwrap_or_else(|_| program.to_path_buf());
        let named = interpreter_of(&canonical, path);
        let interpreter = named.as_deref().map(canonical_or_same);
        let venv = [Some(program), named.as_deref()]
            .into_iter()
            .flatten()
            .find_map(venv_of);
        let kind = [Some(canonical.as_path()), interpreter.as_deref()]
            .into_iter()
            .flatten()
            .map(kind_of)
            .find(|k| *k != Kind::Other)
            .unwrap_or(Kind::Other);
        let python = (kind == Kind::Uv)
            .then(|| find_in_path("python3", path))
            .flatten()
            .map(|p| Box::new(Runtime::of(&p, path)));
        Runtime {
            program: canonical,
            interpreter,
            venv,
            kind,
            python,
        }
    }

    /// The files it runs: the program and its interpreter (symlinks followed), and for `uv` those
    /// of the Python it would find. What a box reads for each is where it is installed
    /// ([`crate::BoxSpec::grants`]).
    pub fn files(&self) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = [Some(&self.program), self.interpreter.as_ref()]
            .into_iter()
            .flatten()
            .cloned()
            .collect();
        if let Some(python) = &self.python {
            out.extend(python.files());
        }
        out
    }

    /// Its venv and the Python installation behind it, and for `uv` those of the Python it would
    /// find.
    pub fn venvs(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        if let Some((venv, home)) = &self.venv {
            out.push(venv.clone());
            out.extend(home.clone());
        }
        if let Some(python) = &self.python {
            out.extend(python.venvs());
        }
        out
    }

    /// The variables that point it at caches of its own in `cache_dir`, and those folders,
    /// created (a folder that does not exist cannot be granted). Never the user's shared caches
    /// (`~/.npm`, `~/.cache/uv`): the packages there are code the user's unboxed programs run
    /// later, so a box that may write them may plant what runs outside it.
    pub fn caches(&self, cache_dir: &Path) -> Vec<(&'static str, PathBuf)> {
        let caches: &[(&str, &str)] = match self.kind {
            Kind::Node => &[("NPM_CONFIG_CACHE", "npm")],
            // `uvx` makes its tools folder even to run a tool it has not installed; the
            // person's holds tools their own shell runs.
            Kind::Uv => &[("UV_CACHE_DIR", "uv"), ("UV_TOOL_DIR", "uv-tools")],
            Kind::Python | Kind::Other => &[],
        };
        caches
            .iter()
            .map(|(name, dir)| (*name, cache_dir.join(dir)))
            .inspect(|(_, d)| {
                if let Err(e) = std::fs::create_dir_all(d) {
                    tracing::debug!("cannot create {}: {e}", d.display());
                }
            })
            .collect()
    }

    /// What it reads of the user's own installs under `home`: for `uv`, the Pythons and tools it
    /// installed (`~/.local/share/uv`), read only.
    pub fn shared_reads(&self, home: &Path) -> Vec<PathBuf> {
        match self.kind {
            Kind::Uv => vec![home.join(".local/share/uv")],
            Kind::Node | Kind::Python | Kind::Other => Vec::new(),
        }
    }
}

fn canonical_or_same(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// The interpreter a script's shebang names (`env NAME` looked up on `path`).
fn interpreter_of(script: &Path, path: Option<&str>) -> Option<PathBuf> {
    let mut head = [0u8; 256];
    let n = std::io::Read::read(&mut std::fs::File::open(script).ok()?, &mut head).ok()?;
    let line = head[..n].strip_prefix(b"#!")?;
    let line = String::from_utf8_lossy(line.split(|b| *b == b'\n').next()?).into_owned();
    let mut words = line.split_whitespace();
    let first = PathBuf::from(words.next()?);
    if first.file_name().is_some_and(|n| n == "env") {
        return env_command(words).and_then(|name| find_in_path(name, path));
    }
    Some(first)
}

/// The program `env`'s words run: the first that is neither a setting (`NAME=value`) nor one of
/// the options that take no value (`-S`, `-i`). Any other option may take the next word as its
/// value (`-u NAME`, `-C DIR`), so a script could have a path it names there taken for its
/// interpreter and granted: then no interpreter is known. So is a name with a `/` in it, which
/// `env` does not look up on `PATH`.
fn env_command<'a>(words: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    for word in words {
        match word {
            "-S" | "-i" | "--split-string" | "--ignore-environment" => {}
            w if w.starts_with('-') => return None,
            w if w.contains('=') => {}
            w if w.contains('/') => return None,
            w => return Some(w),
        }
    }
    None
}

/// `name` found on `path`.
fn find_in_path(name: &str, path: Option<&str>) -> Option<PathBuf> {
    std::env::split_paths(path?)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// The venv `program` sits in (`<venv>/bin/python`), and the `home` its `pyvenv.cfg` names.
fn venv_of(program: &Path) -> Option<(PathBuf, Option<PathBuf>)> {
    let venv = program.parent()?.parent()?;
    let cfg = std::fs::read_to_string(venv.join("pyvenv.cfg")).ok()?;
    let home = cfg
        .lines()
        .filter_map(|l| l.split_once('='))
        .find(|(k, _)| k.trim() == "home")
        .map(|(_, v)| PathBuf::from(v.trim()))
        .map(|bin| canonical_or_same(&bin))
        .map(|bin| bin.parent().map_or(bin.clone(), Path::to_path_buf));
    Some((venv.to_path_buf(), home))
}

fn kind_of(p: &Path) -> Kind {
    let name = p
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match name.as_str() {
        "node" | "nodejs" | "bun" | "deno" => Kind::Node,
        "uv" | "uvx" => Kind::Uv,
        n if n.starts_with("python") => Kind::Python,
        _ => Kind::Other,
    }
}

/// Where a program is installed: its version manager's directory, the outermost
/// `node_modules` it is in (its dependencies are siblings), the prefix of a `bin/` that has a
/// `lib/` beside it, or else its own directory.
pub(super) fn install_dir(file: &Path) -> PathBuf {
    if let Some(manager) = version_manager(file) {
        return manager;
    }
    let mut outermost_modules = None;
    for ancestor in file.ancestors() {
        if ancestor.file_name().is_some_and(|n| n == "node_modules") {
            outermost_modules = Some(ancestor.to_path_buf());
        }
    }
    if let Some(modules) = outermost_modules {
        return modules;
    }
    let dir = file.parent().unwrap_or(file);
    match dir.parent() {
        Some(prefix)
            if dir.file_name().is_some_and(|n| n == "bin") && prefix.join("lib").is_dir() =>
        {
            prefix.to_path_buf()
        }
        _ => dir.to_path_buf(),
    }
}

/// The version manager directory `file` is in, if any (`~/.pyenv`, `~/.nvm`, …).
fn version_manager(file: &Path) -> Option<PathBuf> {
    file.ancestors().find_map(|dir| {
        VERSION_MANAGERS
            .iter()
            .find(|m| dir.ends_with(m))
            .map(|_| dir.to_path_buf())
    })
}
