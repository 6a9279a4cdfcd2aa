//! The core's shape: no module imports a module that imports it back, and the protocol layer
//! reaches nothing of the policy layer above it. Types that many modules
//! share live below them (the events and what they carry under `events`, limits in `config`,
//! models in `providers`), so the dependency graph between top-level modules has no cycle.

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

#[test]
fn no_core_module_imports_a_module_that_imports_it_back() {
    let src = package_dir().join("src");
    let graph = module_graph(&src);
    assert!(graph.len() > 10, "the modules were found: {graph:?}");
    let cycles: Vec<String> = graph
        .keys()
        .filter_map(|m| cycle_through(&graph, m))
        .map(|c| c.join(" → "))
        .collect();
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

/// Every module `start` reaches through its imports.
fn reached_from(graph: &BTreeMap<String, BTreeSet<String>>, start: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![start.to_owned()];
    while let Some(node) = stack.pop() {
        for next in graph.get(&node).into_iter().flatten() {
            if graph.contains_key(next) && seen.insert(next.clone()) {
                stack.push(next.clone());
            }
        }
    }
    seen
}

/// The protocol layer sits below the policy layer: speaking MCP to a server needs nothing of
/// approvals, providers, sampling, limits, elicitation forms, the audit log or pins (the handler
/// owns the `Approver` port they implement; digests and ids live in `canonical`).
#[test]
fn the_protocol_layer_reaches_nothing_of_the_policy_layer() {
    let graph = module_graph(&package_dir().join("src"));
    let policy = [
        "approvals",
        "providers",
        "sampling",
        "rate",
        "elicitation",
        "audit",
        "pins",
        "trust",
        "chat",
        "app",
        "host",
        "servers",
    ];
    let protocol = [
        "connection",
        "handler",
        "transport",
        "tasks",
        "apps",
        "process",
        "auth",
    ];
    reaches_none(&graph, &protocol, &policy);
    // The base reaches neither layer above it.
    let base = [
        "config",
        "secrets",
        "store",
        "events",
        "error",
        "canonical",
        "visible",
        "paths",
    ];
    let above: Vec<&str> = policy.iter().chain(protocol.iter()).copied().collect();
    reaches_none(&graph, &base, &above);
}

/// Fails naming each of `modules` that reaches one of `forbidden`.
fn reaches_none(graph: &BTreeMap<String, BTreeSet<String>>, modules: &[&str], forbidden: &[&str]) {
    for module in modules {
        let reached = reached_from(graph, module);
        let above: Vec<&str> = forbidden
            .iter()
            .copied()
            .filter(|p| reached.contains(*p))
            .collect();
        assert!(above.is_empty(), "{module} reaches {above:?}");
    }
}

#[test]
fn the_core_does_not_depend_on_tauri() {
    let manifest = std::fs::read_to_string(package_dir().join("Cargo.toml")).unwrap();
    let named = manifest
        .lines()
        .any(|l| l.trim_start().trim_start_matches('"').starts_with("tauri"));
    assert!(!named, "switchboard-core must never depend on Tauri");
}
