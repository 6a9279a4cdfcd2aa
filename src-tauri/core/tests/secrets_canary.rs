//! A canary through every flow that handles a secret, then a search for it: a provider key saved
//! and used for sampling, a secret env value typed into the server form (and the server run with
//! it), a config with a secret imported (and run), a password and a token typed into an
//! elicitation form. Afterwards `config.json`, every file of the data directory (the database and
//! its WAL, before any checkpoint) and the trace-level log hold no canary; only the OS keychain
//! does, and each secret reached where it was meant to go (the servers check a SHA-256 of it, the
//! provider checks its key). Runs in its own test binary, whose one global log is this test's.
//! Needs the D-Bus session with gnome-keyring that scripts/test.sh starts.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use switchboard_base::config::ServerConfig;
use switchboard_base::paths::Paths;
use switchboard_base::secrets::{Keychain, SecretStore};
use switchboard_core::app::requests::{
    CallTool, DecideReview, ImportApply, NoArgs, SaveProvider, SaveServer, ServerName,
};
use switchboard_core::app::{App, AppBuilder, Confirm};
use switchboard_core::servers::ServerStatus;
use switchboard_policy::approvals::{ReviewKind, Verdict};
use switchboard_policy::providers::settings::ProviderSettings;
use switchboard_policy::providers::{ModelRating, ProviderKind, Sensitive};
use switchboard_protocol::process::BaseEnv;

/// Every secret below starts with this; nothing else does.
const CANARY: &str = "sb-canary-7c1e";

fn secret(what: &str) -> String {
    format!("{CANARY}-{what}")
}

fn sha(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The app's log at trace level, with the app's directives, into `file`.
fn trace_into(file: &Path) {
    let writer = Mutex::new(std::fs::File::create(file).unwrap());
    tracing_subscriber::fmt()
        .with_env_filter(switchboard_base::logging::filter("trace").unwrap())
        .with_ansi(false)
        .with_writer(writer)
        .init();
}

/// An OpenAI-compatible provider on loopback that answers with a recorded stream when the
/// request carries `key`, and remembers whether each one did.
fn provider(key: String) -> (String, Arc<Mutex<Vec<bool>>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}/v1", listener.local_addr().unwrap());
    let keyed = Arc::new(Mutex::new(Vec::new()));
    let seen = keyed.clone();
    // A plain thread: nothing here logs, so the trace log is the app's alone.
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let head = read_request(&mut stream);
            let ok = head
                .lines()
                .any(|l| l.eq_ignore_ascii_case(&format!("authorization: Bearer {key}")));
            seen.lock().unwrap().push(ok);
            let (status, body) = match ok {
                true => ("200 OK", include_str!("providers/openai_text.sse")),
                false => ("401 Unauthorized", "{}"),
            };
            let reply = format!(
                "HTTP/1.1 {status}\r\ncontent-type: text/event-stream\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = stream.write_all(reply.as_bytes());
        }
    });
    (base, keyed)
}

/// Reads one HTTP request whole; returns its head.
fn read_request(stream: &mut std::net::TcpStream) -> String {
    let mut data = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        let n = stream.read(&mut chunk).unwrap_or(0);
        data.extend_from_slice(&chunk[..n]);
        let text = String::from_utf8_lossy(&data).into_owned();
        if let Some(end) = text.find("\r\n\r\n") {
            let length = text[..end]
                .lines()
                .find_map(|l| {
                    let (k, v) = l.split_once(':')?;
                    k.eq_ignore_ascii_case("content-length")
                        .then(|| v.trim().parse::<usize>().ok())?
                })
                .unwrap_or(0);
            if n == 0 || data.len() >= end + 4 + length {
                return text[..end].to_owned();
            }
        } else if n == 0 {
            return text;
        }
    }
}

/// The vault server's definition, checking `var` against `value`.
fn vault(dir: &Path, var: &str, value: &str) -> ServerConfig {
    let script = dir.join("vault_server.py");
    std::fs::write(&script, include_str!("secrets_canary/vault_server.py")).unwrap();
    let expect = json!({
        "env": [var, sha(value)],
        "password": sha(&secret("password")),
        "token": sha(&secret("token")),
    });
    let args = vec![script.display().to_string(), expect.to_string()];
    let mut config = ServerConfig::stdio("python3", args);
    config.env.insert(var.into(), value.into());
    config
}

fn yes() -> Confirm {
    Box::new(|_| Box::pin(async { true }))
}

async fn running(app: &App, server: &str) {
    for _ in 0..400 {
        let status = app.host().servers().get(server).map(|h| h.status());
        if let Ok(ServerStatus::Running { .. }) = status {
            return;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("{server} is not running");
}

/// Calls `tool` on `server` while answering each review it raises with `answer`.
async fn call(
    app: &App,
    server: &str,
    tool: &str,
    answer: fn(ReviewKind, &Value) -> Value,
) -> String {
    let args = CallTool {
        server: server.into(),
        name: tool.into(),
        args: json!({}),
        call_id: format!("{server}-{tool}"),
    };
    let caller = app.clone();
    let mut result = tokio::spawn(async move { caller.call_tool(args, |_| true).await });
    let outcome = loop {
        tokio::select! {
            done = &mut result => break done.unwrap().unwrap(),
            () = tokio::time::sleep(Duration::from_millis(20)) => {}
        }
        for review in app.pending_reviews(NoArgs {}).await.unwrap() {
            let content = answer(review.kind, &review.content);
            let verdict = Verdict::Approve {
                content,
                remember: None,
            };
            let decision = DecideReview {
                id: review.id,
                digest: review.digest,
                verdict,
            };
            app.decide_review(decision).await.unwrap();
        }
    };
    let result = serde_json::to_value(outcome).unwrap();
    result["content"][0]["text"].as_str().unwrap().to_owned()
}

/// Fills the login form with the secrets; approves anything else as shown.
fn fill_in(kind: ReviewKind, content: &Value) -> Value {
    let mut content = content.clone();
    if kind == ReviewKind::Elicitation {
        content["values"] = json!({
            "user": "ada-visible",
            "password": secret("password"),
            "apiToken": secret("token"),
        });
    }
    content
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// Where in `path` `needle` is, with some of what surrounds it.
fn found(path: &Path, needle: &str) -> Option<String> {
    let bytes = std::fs::read(path).unwrap();
    let at = bytes
        .windows(needle.len())
        .position(|w| w == needle.as_bytes())?;
    let around = &bytes[at.saturating_sub(200)..(at + 200).min(bytes.len())];
    Some(String::from_utf8_lossy(around).into_owned())
}

fn contains(path: &Path, needle: &str) -> bool {
    found(path, needle).is_some()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_canary_secret_reaches_no_file_and_no_log_line() {
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
        panic!(
            "no D-Bus session: run the tests through scripts/test.sh (dbus-run-session + gnome-keyring)"
        );
    }
    let home = tempfile::tempdir().unwrap();
    // Where the person's other files are (the config imported, the server's script): not ours.
    let elsewhere = tempfile::tempdir().unwrap();
    trace_into(&home.path().join("trace.log"));
    let keychain = Arc::new(Keychain::with_service(format!(
        "switchboard-canary-{}",
        std::process::id()
    )));
    let paths = Paths {
        config_file: home.path().join("config.json"),
        data_dir: home.path().join("data"),
    };
    let app = AppBuilder::new(paths)
        .secrets(keychain.clone())
        .base_env(BaseEnv::from_current())
        .build()
        .await
        .unwrap();

    // A provider key, saved on the Models screen and sent with a sampling request.
    let (base, keyed) = provider(secret("provider"));
    let settings = ProviderSettings {
        id: "mock".into(),
        kind: ProviderKind::Openai,
        base_url: Some(base),
        models: vec![ModelRating {
            provider: "mock".into(),
            model: "gpt-4o-mini".into(),
            cost: 0.5,
            speed: 0.5,
            intelligence: 0.5,
            input_price: None,
            output_price: None,
        }],
        has_key: false,
    };
    let api_key = Some(Sensitive::new(secret("provider")));
    app.save_provider(SaveProvider { settings, api_key })
        .await
        .unwrap();

    // A secret env value typed into the server form.
    let config = vault(elsewhere.path(), "API_KEY", &secret("env"));
    let save = SaveServer {
        name: "vault".into(),
        config,
        previous_name: None,
    };
    app.save_server(save, yes()).await.unwrap();
    running(&app, "vault").await;
    assert_eq!(call(&app, "vault", "check_env", fill_in).await, "env ok");
    // A password and a token typed into the server's form.
    assert_eq!(
        call(&app, "vault", "login", fill_in).await,
        "login ok for ada-visible"
    );
    // Sampling through the provider with the key.
    let answer = call(&app, "vault", "ask", fill_in).await;
    assert!(answer.contains("Paris"), "{answer}");
    assert_eq!(*keyed.lock().unwrap(), [true], "the provider got its key");

    // A config with a secret, imported from another host, trusted and run.
    let imported = vault(elsewhere.path(), "GITHUB_TOKEN", &secret("import"));
    let source = elsewhere.path().join("claude_desktop_config.json");
    let text = json!({"mcpServers": {"imported": imported}}).to_string();
    std::fs::write(&source, text).unwrap();
    let plan = app.import_preview(source.clone()).await.unwrap();
    let apply = ImportApply {
        inputs: Default::default(),
        source_digest: plan.source_digest,
    };
    app.import_apply(source, apply).await.unwrap();
    let name = ServerName {
        server: "imported".into(),
    };
    assert!(app.trust_server(name, yes()).await.unwrap());
    running(&app, "imported").await;
    assert_eq!(call(&app, "imported", "check_env", fill_in).await, "env ok");

    // The search, while the app still holds the database open (nothing checkpointed).
    let files = files_under(home.path());
    let wal = files
        .iter()
        .find(|p| p.to_string_lossy().ends_with("-wal"))
        .expect("the database's WAL");
    assert!(
        contains(wal, "ada-visible") && contains(wal, "Sign in to the archive"),
        "the audit rows are in the WAL, so the search would see a secret there"
    );
    let trace = home.path().join("trace.log");
    assert!(contains(&trace, " TRACE "), "the log is at trace level");
    assert!(files.contains(&home.path().join("config.json")));
    for file in &files {
        if let Some(around) = found(file, CANARY) {
            panic!("a secret reached {}: …{around}…", file.display());
        }
    }

    // The keychain has each one.
    for (entry, what) in [
        ("provider:mock", "provider"),
        ("server/vault/env/API_KEY", "env"),
        ("server/imported/env/GITHUB_TOKEN", "import"),
    ] {
        assert_eq!(keychain.get(entry).unwrap(), Some(secret(what)), "{entry}");
        keychain.delete(entry).unwrap();
    }
    app.shutdown().await;
}
