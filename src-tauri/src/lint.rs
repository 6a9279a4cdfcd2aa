//! Lints the shell's security configuration, so that an edit that opens the window up fails the
//! tests: tauri.conf.json's content security policy and settings, the capabilities, and the
//! dependencies (no shell plugin anywhere).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(repo().join(path))
        .unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

fn json(path: &str) -> Value {
    serde_json::from_str(&read(Path::new(path))).unwrap()
}

/// A policy's directives and their sources.
fn directives(csp: &str) -> BTreeMap<String, Vec<String>> {
    csp.split(';')
        .filter_map(|d| {
            let mut words = d.split_whitespace();
            let name = words.next()?.to_ascii_lowercase();
            Some((name, words.map(str::to_owned).collect()))
        })
        .collect()
}

/// Problems with a policy: script only from the app, nothing from the network.
/// Where views are framed from: their scheme as WebKit and WKWebView reach it, and as WebView2
/// does.
const VIEW_SOURCES: &[&str] = &["mcp-app:", "http://mcp-app.localhost"];

fn csp_problems(csp: &str, inline_styles: bool) -> Vec<String> {
    let d = directives(csp);
    let mut problems = Vec::new();
    if d.get("default-src").map(Vec::as_slice) != Some(&["'self'".to_owned()][..]) {
        problems.push(format!("default-src must be 'self' alone: {csp}"));
    }
    let script = d.get("script-src").or_else(|| d.get("default-src"));
    for source in script.into_iter().flatten() {
        if source != "'self'" {
            problems.push(format!("script-src allows {source}"));
        }
    }
    if let Some(style) = d.get("style-src")
        && !inline_styles
        && style.iter().any(|s| s.contains("unsafe"))
    {
        problems.push(format!("style-src allows {style:?}"));
    }
    // Frames are the views (MCP Apps), on their own scheme only.
    for source in d.get("frame-src").into_iter().flatten() {
        if !VIEW_SOURCES.contains(&source.as_str()) {
            problems.push(format!("frame-src allows {source}"));
        }
    }
    for (name, sources) in &d {
        for source in sources {
            if name == "frame-src" {
                continue;
            }
            let remote = source == "*"
                || source.starts_with("http:") && !source.starts_with("http://ipc.localhost")
                || source.starts_with("https:")
                || source.contains("://") && !source.starts_with("http://ipc.localhost");
            if remote {
                problems.push(format!("{name} allows the network: {source}"));
            }
        }
    }
    problems
}

/// The shipped policy: present, default-src 'self', scripts only from the app (no inline, no
/// eval), no inline styles (server content cannot lay itself over the window), nothing from the
/// network. The dev server's policy may allow inline styles, which Vite injects, and nothing more.
#[test]
fn the_content_security_policy_keeps_script_and_the_network_out() {
    let conf = json("tauri.conf.json");
    let security = &conf["app"]["security"];
    let csp = security["csp"]
        .as_str()
        .expect("app.security.csp is set, as one string");
    assert_eq!(csp_problems(csp, false), Vec::<String>::new());
    if let Some(dev) = security.get("devCsp") {
        let dev = dev.as_str().expect("devCsp as one string");
        assert_eq!(csp_problems(dev, true), Vec::<String>::new());
    }
    for risky in [
        "dangerousDisableAssetCspModification",
        "dangerousRemoteDomainIpcAccess",
    ] {
        assert!(security.get(risky).is_none(), "{risky} is set");
    }
    assert_ne!(
        security["assetProtocol"]["enable"],
        Value::Bool(true),
        "the asset protocol would let the window read files"
    );
}

#[test]
fn the_window_gets_no_global_api_and_no_remote_page() {
    let conf = json("tauri.conf.json");
    let with_global = &conf["app"]["withGlobalTauri"];
    assert!(
        with_global.is_null() || *with_global == Value::Bool(false),
        "withGlobalTauri"
    );
    let dist = conf["build"]["frontendDist"].as_str().unwrap_or_default();
    assert!(
        !dist.contains("://"),
        "frontendDist must be the built UI, not a URL: {dist}"
    );
    let dev = conf["build"]["devUrl"].as_str().unwrap_or_default();
    if !dev.is_empty() {
        let url = url::Url::parse(dev).unwrap();
        assert!(
            matches!(url.host_str(), Some("localhost" | "127.0.0.1")),
            "devUrl must be on this machine: {dev}"
        );
    }
    for window in conf["app"]["windows"].as_array().into_iter().flatten() {
        let url = window["url"].as_str().unwrap_or_default();
        assert!(!url.contains("://"), "a window opens {url}");
    }
}

/// Every capability (files and any inline in tauri.conf.json): no remote URLs, no shell, and no
/// plugin command the window does not use (dialog, opener and file system are used only from
/// Rust).
#[test]
fn the_capabilities_grant_no_remote_page_and_no_plugin_but_events() {
    let mut capabilities: Vec<Value> = std::fs::read_dir(repo().join("src-tauri/capabilities"))
        .unwrap()
        .map(|entry| {
            let path = entry.unwrap().path();
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        })
        .collect();
    let conf = json("tauri.conf.json");
    capabilities.extend(
        conf["app"]["security"]["capabilities"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|c| c.is_object())
            .cloned(),
    );
    assert!(!capabilities.is_empty());
    for capability in &capabilities {
        assert!(capability.get("remote").is_none(), "{capability}");
        for permission in capability["permissions"].as_array().unwrap() {
            let id = permission
                .as_str()
                .or_else(|| permission["identifier"].as_str())
                .unwrap();
            let plugin = id.split_once(':').map(|(plugin, _)| plugin);
            assert!(
                plugin.is_none() || id.starts_with("core:event:allow-"),
                "the window is granted {id}"
            );
        }
    }
}

/// No shell plugin: not a dependency of any crate (the lockfile has the whole graph) nor of the
/// UI.
#[test]
fn there_is_no_shell_plugin() {
    let lock = read(Path::new("Cargo.lock"));
    assert!(
        !lock.contains("name = \"tauri-plugin-shell\""),
        "Cargo.lock has tauri-plugin-shell"
    );
    for manifest in [
        "Cargo.toml",
        "src-tauri/core/Cargo.toml",
        "src-tauri/cli/Cargo.toml",
        "ui/package.json",
    ] {
        let text = read(Path::new(manifest));
        assert!(
            !text.contains("plugin-shell"),
            "{manifest} has the shell plugin"
        );
    }
}
