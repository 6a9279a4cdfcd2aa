//! Launch trust as the app applies it: a marker file written by the server's command proves
//! whether anything ran.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use super::*;
use crate::app::AppBuilder;
use crate::app::requests::{NoArgs, SetRoots};
use crate::approvals::policy::{PolicyEntry, PolicyKind, Rule};
use crate::audit::AuditQuery;
use crate::paths::Paths;
use crate::process::BaseEnv;
use crate::secrets::MemoryStore;
use crate::servers::ServerStatus;

async fn app(dir: &Path, secrets: Arc<MemoryStore>) -> App {
    let paths = Paths {
        config_file: dir.join("config.json"),
        data_dir: dir.join("data"),
    };
    AppBuilder::new(paths)
        .secrets(secrets)
        .base_env(BaseEnv::from_current())
        .build()
        .await
        .unwrap()
}

fn write_config(dir: &Path, servers: serde_json::Value) {
    let text = json!({ "mcpServers": servers }).to_string();
    std::fs::write(dir.join("config.json"), text).unwrap();
}

/// A server whose command leaves `marker` behind (then fails its handshake).
/// A server that leaves a marker when it runs; its sandbox lets it write the marker's folder (a
/// shell script names no path the sandbox could find).
fn marking(marker: &Path, extra: &str) -> serde_json::Value {
    json!({
        "command": "sh",
        "args": ["-c", format!("touch '{}'; {extra} exit 1", marker.display())],
        "sandbox": {"write": [marker.parent().unwrap()]},
    })
}

fn answer(yes: bool) -> Confirm {
    Box::new(move |_| Box::pin(async move { yes }))
}

fn name(server: &str) -> ServerName {
    ServerName {
        server: server.to_owned(),
    }
}

fn status(app: &App, server: &str) -> ServerStatus {
    app.host().servers().get(server).unwrap().status()
}

async fn appears(path: &Path) -> bool {
    for _ in 0..200 {
        if path.exists() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    false
}

#[tokio::test]
async fn nothing_in_the_file_runs_until_trusted_and_an_edit_on_disk_asks_again() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    write_config(dir.path(), json!({ "s": marking(&marker, "") }));
    let secrets = Arc::new(MemoryStore::default());
    let app1 = app(dir.path(), secrets.clone()).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(status(&app1, "s"), ServerStatus::NeedsTrust);
    let Err(e) = app1.connect_configured("s", &[], None).await else {
        panic!("an untrusted server was dialed")
    };
    assert_eq!(e.code, ErrorCode::NotTrusted, "{e}");
    // Start and Restart say why they do nothing.
    for refused in [
        app1.start_server(name("s")).await,
        app1.restart_server(name("s")).await,
    ] {
        let e = refused.expect_err("an untrusted server is not started");
        assert_eq!(e.code, ErrorCode::NotTrusted, "{e}");
        assert!(e.message.contains("not trusted yet"), "{e}");
    }
    assert!(!app1.trust_server(name("s"), answer(false)).await.unwrap());
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!marker.exists(), "nothing ran before the person trusted it");

    assert!(app1.trust_server(name("s"), answer(true)).await.unwrap());
    assert!(appears(&marker).await, "the trusted definition runs");
    app1.shutdown().await;
    drop(app1);

    // Edited on disk: asks again, runs nothing.
    std::fs::remove_file(&marker).unwrap();
    write_config(
        dir.path(),
        json!({ "s": marking(&marker, "echo changed;") }),
    );
    let app2 = app(dir.path(), secrets.clone()).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(status(&app2, "s"), ServerStatus::NeedsTrust);
    assert_eq!(
        app2.trust_review(&name("s")).unwrap().verdict,
        TrustVerdict::Changed
    );
    assert!(!marker.exists(), "the edited definition did not run");
    app2.shutdown().await;
    drop(app2);

    // Renamed on disk, otherwise as trusted: runs.
    write_config(dir.path(), json!({ "renamed": marking(&marker, "") }));
    let app3 = app(dir.path(), secrets).await;
    assert!(appears(&marker).await, "a rename keeps trust");
    app3.shutdown().await;
}

#[tokio::test]
async fn a_definition_cannot_read_a_provider_key() {
    let dir = tempfile::tempdir().unwrap();
    let leaked = dir.path().join("leaked");
    let secrets = Arc::new(MemoryStore::default());
    secrets.set("provider:anthropic", "sk-ant-canary").unwrap();
    write_config(
        dir.path(),
        json!({"s": {
            "command": "sh",
            "args": ["-c", format!("echo \"$KEY\" > '{}'; exit 1", leaked.display())],
            "env": {"KEY": "${secret:provider:anthropic}"}
        }}),
    );
    let app = app(dir.path(), secrets).await;
    assert!(app.trust_server(name("s"), answer(true)).await.unwrap());
    let handle = app.host().servers().get("s").unwrap();
    let error = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            match handle.status() {
                ServerStatus::Restarting { error, .. } | ServerStatus::Failed { error } => {
                    return error;
                }
                _ => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(error.code, ErrorCode::Denied, "{error}");
    assert!(error.message.contains("provider:anthropic"), "{error}");
    assert!(!error.message.contains("canary"), "{error}");
    assert!(!leaked.exists(), "the child never started with the key");
    app.shutdown().await;
}

#[tokio::test]
async fn the_persons_own_edits_ask_first_keep_rules_and_move_secrets_to_the_keychain() {
    let dir = tempfile::tempdir().unwrap();
    let secrets = Arc::new(MemoryStore::default());
    let app = app(dir.path(), secrets.clone()).await;
    let mut config = ServerConfig::stdio("sh", vec!["-c".into(), "exit 1".into()]);
    config.env.insert("API_KEY".into(), "plain-canary".into());
    let save = |name: &str, config: &ServerConfig, previous: Option<&str>| SaveServer {
        name: name.into(),
        config: config.clone(),
        previous_name: previous.map(str::to_owned),
    };
    let shown: Arc<std::sync::Mutex<Vec<LaunchReview>>> = Arc::default();
    let record = |yes: bool| -> Confirm {
        let shown = shown.clone();
        Box::new(move |review| {
            shown.lock().unwrap().push(review);
            Box::pin(async move { yes })
        })
    };

    let e = app
        .save_server(save("s", &config, None), record(false))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Denied, "{e}");
    assert!(
        app.list_servers(NoArgs {}).await.unwrap().is_empty(),
        "nothing saved"
    );

    app.save_server(save("s", &config, None), record(true))
        .await
        .unwrap();
    let review = shown.lock().unwrap().last().cloned().unwrap();
    assert_eq!(
        review.env[0].value, "${secret:server/s/env/API_KEY}",
        "the dialog shows no secret"
    );
    let file = std::fs::read_to_string(dir.path().join("config.json")).unwrap();
    assert!(!file.contains("plain-canary"), "{file}");
    assert_eq!(
        secrets.get("server/s/env/API_KEY").unwrap().as_deref(),
        Some("plain-canary")
    );
    app.set_policy(PolicyEntry {
        server: "s".into(),
        kind: PolicyKind::Sampling,
        tool: None,
        rule: Rule::Deny,
        warning: None,
    })
    .await
    .unwrap();

    // Only a setting changed: nothing to ask. A rename: nothing to ask, the secret follows.
    let mut saved = app.configured_server("s").unwrap();
    saved.request_timeout_secs = Some(30);
    let asked = shown.lock().unwrap().len();
    app.save_server(save("s", &saved, Some("s")), record(false))
        .await
        .unwrap();
    app.save_server(save("t", &saved, Some("s")), record(false))
        .await
        .unwrap();
    assert_eq!(shown.lock().unwrap().len(), asked, "nothing new to trust");
    let renamed = app.configured_server("t").unwrap();
    assert_eq!(renamed.env["API_KEY"], "${secret:server/t/env/API_KEY}");
    assert_eq!(
        secrets.get("server/t/env/API_KEY").unwrap().as_deref(),
        Some("plain-canary")
    );

    // The person's own change to what runs: asked, and the rules stay.
    let mut changed = renamed.clone();
    changed.args.push("extra".into());
    app.save_server(save("t", &changed, Some("t")), record(true))
        .await
        .unwrap();
    assert_eq!(shown.lock().unwrap().len(), asked + 1);
    let policies = app.list_policies(NoArgs {}).await.unwrap();
    assert_eq!(policies.len(), 1);
    assert_eq!(policies[0].server, "t");
    app.shutdown().await;
}

#[tokio::test]
async fn trusting_a_definition_changed_outside_the_app_resets_its_rules() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    write_config(dir.path(), json!({ "s": marking(&marker, "") }));
    let secrets = Arc::new(MemoryStore::default());
    let app1 = app(dir.path(), secrets.clone()).await;
    assert!(app1.trust_server(name("s"), answer(true)).await.unwrap());
    app1.set_policy(PolicyEntry {
        server: "s".into(),
        kind: PolicyKind::Sampling,
        tool: None,
        rule: Rule::AlwaysAllow,
        warning: None,
    })
    .await
    .unwrap();
    app1.shutdown().await;
    drop(app1);

    write_config(dir.path(), json!({ "s": marking(&marker, "echo other;") }));
    let app2 = app(dir.path(), secrets).await;
    assert_eq!(app2.list_policies(NoArgs {}).await.unwrap().len(), 1);
    assert!(app2.trust_server(name("s"), answer(true)).await.unwrap());
    assert!(
        app2.list_policies(NoArgs {}).await.unwrap().is_empty(),
        "an allow rule made for another definition does not carry over"
    );
    app2.shutdown().await;
}

#[tokio::test]
async fn an_import_applies_only_the_file_previewed_and_runs_nothing_untrusted() {
    use crate::app::requests::ImportApply;
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    let file = dir.path().join("claude_desktop_config.json");
    let write = |extra: &str| {
        let text = json!({ "mcpServers": { "s": marking(&marker, extra) } }).to_string();
        std::fs::write(&file, text).unwrap();
    };
    write("");
    let app = app(dir.path(), Arc::new(MemoryStore::default())).await;
    let plan = app.import_preview(file.clone()).await.unwrap();
    // Changed between the preview and the click.
    write("echo swapped;");
    let apply = |digest: String| ImportApply {
        inputs: Default::default(),
        source_digest: digest,
    };
    let e = app
        .import_apply(file.clone(), apply(plan.source_digest))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::ApprovalMismatch, "{e}");
    assert!(
        app.list_servers(NoArgs {}).await.unwrap().is_empty(),
        "nothing imported"
    );

    let again = app.import_preview(file.clone()).await.unwrap();
    app.import_apply(file.clone(), apply(again.source_digest))
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(status(&app, "s"), ServerStatus::NeedsTrust);
    assert!(!marker.exists(), "an imported server waits for trust");
    app.shutdown().await;
}

/// A server trusted before sandboxing runs as it did, unsandboxed, until the person presses
/// "Sandbox it": then it runs in the box without being asked to trust it again. The script writes
/// its marker where only an unsandboxed process may, and otherwise into its working directory
/// (in the box, its state directory).
#[tokio::test]
async fn a_server_trusted_before_sandboxing_runs_unboxed_until_sandboxed_in_one_click() {
    let dir = tempfile::tempdir().unwrap();
    let unboxed = dir.path().join("ran-unboxed");
    let script = format!(
        // Writing, not `touch`: Landlock refuses opening a file to write, not setting its times.
        "(echo x > '{}') 2>/dev/null || echo x > ran-in-the-box; exit 1",
        unboxed.display()
    );
    write_config(
        dir.path(),
        json!({"s": {"command": "sh", "args": ["-c", script]}}),
    );
    let secrets = Arc::new(MemoryStore::default());
    let app1 = app(dir.path(), secrets.clone()).await;
    assert!(app1.trust_server(name("s"), answer(true)).await.unwrap());
    app1.shutdown().await;
    drop(app1);
    // What migration 0009 wrote for each name bound before it.
    let store = crate::store::Store::open(&dir.path().join("data")).unwrap();
    store
        .with(|c| {
            c.execute(
                "INSERT INTO unsandboxed_launches (server, digest) SELECT server, digest FROM server_launches",
                [],
            )
            .map(drop)
        })
        .unwrap();
    drop(store);

    let app2 = app(dir.path(), secrets).await;
    let view = |app: &App| {
        app.0
            .host
            .views(0)
            .unwrap()
            .into_iter()
            .find(|v| v.name == "s")
            .unwrap()
    };
    assert_eq!(
        view(&app2).sandbox,
        crate::trust::SandboxState::TrustedBefore
    );
    assert!(appears(&unboxed).await, "it runs as it did");

    app2.sandbox_server(name("s")).await.unwrap();
    assert_eq!(view(&app2).sandbox, crate::trust::SandboxState::Sandboxed);
    assert_ne!(status(&app2, "s"), ServerStatus::NeedsTrust);
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("config.json")).unwrap())
            .unwrap();
    assert_eq!(config["mcpServers"]["s"]["sandbox"], json!(true));
    let state = switchboard_sandbox::BoxPlace {
        dir: dir.path().join("data/boxes"),
        home: None,
        protected: vec![],
        bundles: None,
    }
    .state_dir("s");
    assert!(
        appears(&state.join("ran-in-the-box")).await,
        "it runs in the box: {:?} {:?}",
        view(&app2).status,
        app2.0.host.servers().get("s").unwrap().stderr()
    );
    app2.shutdown().await;
}

#[tokio::test]
async fn an_edit_to_the_env_file_is_refused_until_trusted_again() {
    let dir = tempfile::tempdir().unwrap();
    let (marker, env) = (dir.path().join("ran"), dir.path().join("server.env"));
    std::fs::write(&env, "LOG_LEVEL=debug\n").unwrap();
    let mut server = marking(&marker, "");
    server["envFile"] = json!(env);
    write_config(dir.path(), json!({ "s": server }));
    let app = app(dir.path(), Arc::new(MemoryStore::default())).await;
    assert!(app.trust_server(name("s"), answer(true)).await.unwrap());
    assert!(appears(&marker).await, "the trusted definition runs");
    app.stop_server(name("s")).await.unwrap();
    std::fs::remove_file(&marker).unwrap();

    // Nothing in the config changed; the file now preloads a library into the server.
    std::fs::write(&env, "LOG_LEVEL=debug\nLD_PRELOAD=/tmp/evil.so\n").unwrap();
    let e = app.start_server(name("s")).await.expect_err("refused");
    assert_eq!(e.code, ErrorCode::NotTrusted, "{e}");
    let review = app.trust_review(&name("s")).unwrap();
    assert!(
        review.text().contains("LD_PRELOAD=\"/tmp/evil.so\""),
        "{}",
        review.text()
    );
    assert!(!marker.exists(), "the edited file ran nothing");

    assert!(app.trust_server(name("s"), answer(true)).await.unwrap());
    assert!(appears(&marker).await, "trusted again, it runs");
    app.shutdown().await;
}

/// Saving a server trusts the env file as the dialog showed it: a line added to the file while
/// the dialog is open is not trusted along with it, and the server does not start with it.
#[tokio::test]
async fn a_saved_server_is_trusted_with_its_env_file_as_shown() {
    let dir = tempfile::tempdir().unwrap();
    let (marker, env) = (dir.path().join("ran"), dir.path().join("server.env"));
    std::fs::write(&env, "LOG_LEVEL=debug\n").unwrap();
    write_config(dir.path(), json!({}));
    let app = app(dir.path(), Arc::new(MemoryStore::default())).await;
    let mut config: ServerConfig = serde_json::from_value(marking(&marker, "")).unwrap();
    config.env_file = Some(env.clone());
    let (file, shown) = (env.clone(), Arc::new(std::sync::Mutex::new(String::new())));
    let seen = shown.clone();
    let confirm: Confirm = Box::new(move |review| {
        *seen.lock().unwrap() = review.text();
        // Behind the dialog, the file gains a line.
        std::fs::write(&file, "LOG_LEVEL=debug\nLD_PRELOAD=/tmp/evil.so\n").unwrap();
        Box::pin(async move { true })
    });
    let save = SaveServer {
        name: "s".into(),
        config,
        previous_name: None,
    };
    app.save_server(save, confirm).await.unwrap();
    assert!(
        !shown.lock().unwrap().contains("LD_PRELOAD"),
        "the dialog showed the first reading"
    );
    // Saved, it starts: the supervisor finds the file as it is now untrusted.
    let mut state = status(&app, "s");
    for _ in 0..1000 {
        if !matches!(state, ServerStatus::Starting { .. }) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
        state = status(&app, "s");
    }
    assert_eq!(state, ServerStatus::NeedsTrust);
    assert!(!marker.exists(), "the unseen line ran nothing");
    app.shutdown().await;
}

#[tokio::test]
async fn a_trusted_servers_new_roots_are_asked_for_and_kept_only_if_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    write_config(dir.path(), json!({ "s": marking(&marker, "") }));
    let app = app(dir.path(), Arc::new(MemoryStore::default())).await;
    assert!(app.trust_server(name("s"), answer(true)).await.unwrap());
    let home = dir.path().display().to_string();
    let roots = |server: &str| SetRoots {
        server: Some(server.to_owned()),
        paths: Some(vec![home.clone()]),
    };
    let e = app.set_roots(roots("s"), answer(false)).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::Denied, "{e}");
    assert_eq!(app.configured_server("s").unwrap().roots, None);
    assert_eq!(
        app.trust_review(&name("s")).unwrap().verdict,
        TrustVerdict::Trusted
    );

    assert!(appears(&marker).await, "it ran before");
    std::fs::remove_file(&marker).unwrap();
    app.set_roots(roots("s"), answer(true)).await.unwrap();
    assert_eq!(
        app.configured_server("s").unwrap().roots,
        Some(vec![dir.path().to_path_buf()])
    );
    assert_eq!(
        app.trust_review(&name("s")).unwrap().verdict,
        TrustVerdict::Trusted
    );
    // It runs with them: started again, never held for trust.
    assert!(appears(&marker).await, "it did not run with its new roots");
    assert_ne!(status(&app, "s"), ServerStatus::NeedsTrust);
    app.shutdown().await;
}

/// Everything written to a `tracing` log while it is set on this thread.
#[derive(Clone, Default)]
struct Captured(Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn a_server_that_prints_its_secrets_puts_them_in_no_error_log_or_audit_row() {
    let log = Captured::default();
    let writer = log.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .finish();
    let _logging = tracing::subscriber::set_default(subscriber);
    let dir = tempfile::tempdir().unwrap();
    let (marker, env) = (dir.path().join("ran"), dir.path().join("server.env"));
    let (keychain_secret, file_secret) = ("k3ych41n-value-of-the-server", "f1le-secret-Zq9");
    std::fs::write(&env, format!("DB_PASSWORD={file_secret}\n")).unwrap();
    let mut server = marking(
        &marker,
        r#"echo "using key $API_KEY" >&2; echo "db $DB_PASSWORD" >&2; echo "$API_KEY" >&2;"#,
    );
    server["env"] = json!({ "API_KEY": "${secret:server/s/API_KEY}" });
    server["envFile"] = json!(env);
    write_config(dir.path(), json!({ "s": server }));
    let secrets = Arc::new(MemoryStore::default());
    secrets.set("server/s/API_KEY", keychain_secret).unwrap();
    let app = app(dir.path(), secrets).await;
    assert!(app.trust_server(name("s"), answer(true)).await.unwrap());

    let error = failed_with(&app, "s").await;
    let view = app.host().servers().get("s").unwrap().view(20);
    let audit = app.search_audit(AuditQuery::default()).await.unwrap();
    let everything = format!(
        "{error:?}\n{:?}\n{}\n{audit:?}",
        view.stderr_tail,
        String::from_utf8_lossy(&log.0.lock().unwrap())
    );
    assert!(
        view.stderr_tail.iter().any(|l| l == "using key [redacted]"),
        "{everything}"
    );
    assert!(
        view.stderr_tail.iter().any(|l| l == "db [redacted]"),
        "{everything}"
    );
    for secret in [keychain_secret, file_secret] {
        assert!(
            !everything.contains(secret),
            "{secret} leaked:\n{everything}"
        );
    }
    app.shutdown().await;
}

/// The error a server failed with (waiting to restart, or given up).
async fn failed_with(app: &App, server: &str) -> crate::Error {
    for _ in 0..400 {
        match status(app, server) {
            ServerStatus::Restarting { error, .. } | ServerStatus::Failed { error } => {
                return error;
            }
            _ => tokio::time::sleep(Duration::from_millis(25)).await,
        }
    }
    panic!("{server} did not fail: {:?}", status(app, server))
}
