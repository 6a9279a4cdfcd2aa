//! The core's shape. It is five crates in layers (base ← sandbox ← protocol ← policy ← core); the compiler
//! keeps a crate from naming one above it, and these tests keep what the compiler cannot: which
//! crate may depend on which, that none depends on Tauri, and that inside each crate no module
//! imports a module that imports it back. Types that many modules share live below them (the
//! events and what they carry under `events`, limits in `config`, models in `providers`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Top-level module → the top-level modules its code (not its comments) refers to.
/// The package's directory as `cargo test` gives it at run time: a test binary built in another
/// clone (a shared target directory) must read this clone's files.
fn package_dir() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
}

fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let path_ref = regex::Regex::new(r"crate::([a-z_]+)").unwrap();
    let grouped = regex::Regex::new(r"crate::\{([^}]*)\}").unwrap();
    let inner = regex::Regex::new(r"([a-z_]+)::").unwrap();
    for file in rust_files(src) {
        let relative = file.strip_prefix(src).unwrap();
        let first = relative.components().next().unwrap();
        let module = first
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_owned();
        let code: String = std::fs::read_to_string(&file)
            .unwrap()
            .lines()
            .map(|l| l.split("//").next().unwrap_or(""))
            .collect::<Vec<_>>()
            .join("\n");
        let deps = graph.entry(module.clone()).or_default();
        for c in path_ref.captures_iter(&code) {
            deps.insert(c[1].to_owned());
        }
        for c in grouped.captures_iter(&code) {
            for m in inner.captures_iter(&c[1]) {
                deps.insert(m[1].to_owned());
            }
        }
        deps.remove(&module);
        // `crate::Error` and friends are re-exports from `error`, the bottom of the graph.
        deps.retain(|d| graph_module(d));
    }
    graph
}

fn graph_module(name: &str) -> bool {
    name.chars().next().is_some_and(|c| c.is_ascii_lowercase())
}

fn rust_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// A cycle through `start`, if there is one.
fn cycle_through(graph: &BTreeMap<String, BTreeSet<String>>, start: &str) -> Option<Vec<String>> {
    let mut stack = vec![(start.to_owned(), vec![start.to_owned()])];
    let mut seen = BTreeSet::new();
    while let Some((node, path)) = stack.pop() {
        for next in graph.get(&node).into_iter().flatten() {
            if next == start {
                let mut cycle = path.clone();
                cycle.push(start.to_owned());
                return Some(cycle);
            }
            if seen.insert(next.clone()) {
                let mut longer = path.clone();
                longer.push(next.clone());
                stack.push((next.clone(), longer));
            }
        }
    }
    None
}

/// The core's crates, bottom first, with the crates of the workspace each may depend on.
const LAYERS: [(&str, &[&str]); 6] = [
    ("base", &[]),
    ("sandbox", &["switchboard-base"]),
    ("gallery", &["switchboard-base"]),
    ("protocol", &["switchboard-base", "switchboard-sandbox"]),
    ("policy", &["switchboard-base", "switchboard-protocol"]),
    (
        "core",
        &[
            "switchboard-base",
            "switchboard-sandbox",
            "switchboard-gallery",
            "switchboard-protocol",
            "switchboard-policy",
        ],
    ),
];

/// The directory of one of the core's crates (`base`, `sandbox`, `protocol`, `policy`, `core`).
fn crate_dir(name: &str) -> PathBuf {
    package_dir().join("..").join(name)
}

#[test]
fn no_module_imports_a_module_that_imports_it_back() {
    for (name, _) in LAYERS {
        let graph = module_graph(&crate_dir(name).join("src"));
        assert!(
            graph.len() > 3,
            "the modules of {name} were found: {graph:?}"
        );
        let cycles: Vec<String> = graph
            .keys()
            .filter_map(|m| cycle_through(&graph, m))
            .map(|c| c.join(" → "))
            .collect();
        assert!(
            cycles.is_empty(),
            "import cycles in {name}:\n{}",
            cycles.join("\n")
        );
    }
}

/// The workspace crates a manifest's `[dependencies]` (not its dev-dependencies) name.
fn workspace_dependencies(manifest: &str) -> Vec<String> {
    let mut section = "";
    let mut named = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line;
        } else if section == "[dependencies]" && line.starts_with("switchboard") {
            named.push(line.split([' ', '=']).next().unwrap_or("").to_owned());
        }
    }
    named
}

/// A crate names only crates below it, so a type cannot drift up a layer by accident: moving
/// `Approver` back into the policy layer, say, would make the protocol depend on it.
#[test]
fn each_crate_depends_only_on_the_crates_below_it() {
    for (name, allowed) in LAYERS {
        let manifest = std::fs::read_to_string(crate_dir(name).join("Cargo.toml")).unwrap();
        let named = workspace_dependencies(&manifest);
        let above: Vec<&String> = named
            .iter()
            .filter(|d| !allowed.contains(&d.as_str()))
            .collect();
        assert!(above.is_empty(), "switchboard-{name} depends on {above:?}");
    }
}

#[test]
fn no_crate_of_the_core_depends_on_tauri() {
    for (name, _) in LAYERS {
        let manifest = std::fs::read_to_string(crate_dir(name).join("Cargo.toml")).unwrap();
        let named = manifest
            .lines()
            .any(|l| l.trim_start().trim_start_matches('"').starts_with("tauri"));
        assert!(!named, "switchboard-{name} must never depend on Tauri");
    }
}

/// The shell and the CLI use the app facade only: every path into the core they write goes
/// through `switchboard_core::app` (or names the error types), and neither reaches the host, the
/// door or the servers' context behind the facade.
#[test]
fn the_shell_and_the_cli_use_only_the_app_facade() {
    let root = package_dir().join("..");
    let path = regex::Regex::new(r"switchboard_core::(\{[^}]*\}|[A-Za-z_]+)").unwrap();
    let allowed = |p: &str| {
        // The command table's macros, exported at the crate's root as macros are.
        matches!(p, "app" | "command_names" | "plain_commands")
            || p.trim_matches(['{', '}'])
                .split(',')
                .all(|t| matches!(t.trim(), "Error" | "ErrorCode" | "Result" | ""))
    };
    let mut reached = Vec::new();
    for dir in ["src", "cli/src"] {
        for file in rust_files(&root.join(dir)) {
            let code = std::fs::read_to_string(&file).unwrap();
            for c in path.captures_iter(&code) {
                if !allowed(&c[1]) {
                    reached.push(format!("{}: switchboard_core::{}", file.display(), &c[1]));
                }
            }
            for behind in [".host()", ".door()", ".context()"] {
                if code.contains(behind) {
                    reached.push(format!("{}: {behind}", file.display()));
                }
            }
        }
    }
    assert!(
        reached.is_empty(),
        "past the facade:\n{}",
        reached.join("\n")
    );
}
