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
    let e = app
        .set_roots(roots("s"), answer(false), no_roots_asked())
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Denied, "{e}");
    assert_eq!(app.configured_server("s").unwrap().roots, None);
    assert_eq!(
        app.trust_review(&name("s")).unwrap().verdict,
        TrustVerdict::Trusted
    );

    assert!(appears(&marker).await, "it ran before");
    std::fs::remove_file(&marker).unwrap();
    app.set_roots(roots("s"), answer(true), no_roots_asked())
        .await
        .unwrap();
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

/// A config file with global roots `roots` and servers `servers`.
fn write_config_with_roots(dir: &Path, roots: &[&Path], servers: serde_json::Value) {
    let text = json!({ "roots": roots, "mcpServers": servers }).to_string();
    std::fs::write(dir.join("config.json"), text).unwrap();
}

/// The global roots are what every local server without roots of its own may write: a script
/// that adds a folder to them in the file gets no server started with it unasked.
#[tokio::test]
async fn a_hand_edit_of_the_global_roots_is_refused_until_trusted_again() {
    let dir = tempfile::tempdir().unwrap();
    let (marker, projects, secrets_dir) = (
        dir.path().join("ran"),
        dir.path().join("projects"),
        dir.path().join("secrets"),
    );
    std::fs::create_dir_all(&projects).unwrap();
    std::fs::create_dir_all(&secrets_dir).unwrap();
    let servers = json!({ "s": marking(&marker, "") });
    write_config_with_roots(dir.path(), &[&projects], servers.clone());
    let secrets = Arc::new(MemoryStore::default());
    let app1 = app(dir.path(), secrets.clone()).await;
    assert!(app1.trust_server(name("s"), answer(true)).await.unwrap());
    assert!(appears(&marker).await, "the trusted definition runs");
    app1.set_policy(PolicyEntry {
        server: "s".into(),
        kind: PolicyKind::Sampling,
        tool: None,
        rule: Rule::Deny,
        warning: None,
    })
    .await
    .unwrap();
    app1.shutdown().await;
    drop(app1);

    std::fs::remove_file(&marker).unwrap();
    write_config_with_roots(dir.path(), &[&projects, &secrets_dir], servers);
    let app2 = app(dir.path(), secrets).await;
    let e = app2.start_server(name("s")).await.expect_err("refused");
    assert_eq!(e.code, ErrorCode::NotTrusted, "{e}");
    let review = app2.trust_review(&name("s")).unwrap();
    assert_eq!(review.verdict, TrustVerdict::Changed);
    let text = review.text();
    assert!(
        text.contains("Roots (the global ones)") && text.contains(&*secrets_dir.to_string_lossy()),
        "{text}"
    );
    assert!(
        text.contains("Its standing rules and pinned tools are kept"),
        "{text}"
    );
    assert!(!marker.exists(), "nothing ran with the widened roots");
    assert!(app2.trust_server(name("s"), answer(true)).await.unwrap());
    assert!(appears(&marker).await, "trusted again, it runs");
    assert_eq!(
        app2.list_policies(NoArgs {}).await.unwrap().len(),
        1,
        "the same program with other roots keeps the person's rules"
    );
    app2.shutdown().await;
}

/// Whatever changes the roots a supervisor hands a server, its next start is judged with them:
/// the supervisor checks trust against the roots the box gets, not those it was defined with.
#[tokio::test]
async fn a_start_is_judged_with_the_roots_its_box_gets() {
    let dir = tempfile::tempdir().unwrap();
    let (marker, projects) = (dir.path().join("ran"), dir.path().join("projects"));
    std::fs::create_dir_all(&projects).unwrap();
    write_config_with_roots(
        dir.path(),
        &[&projects],
        json!({ "s": marking(&marker, "") }),
    );
    let app = app(dir.path(), Arc::new(MemoryStore::default())).await;
    assert!(app.trust_server(name("s"), answer(true)).await.unwrap());
    assert!(appears(&marker).await, "the trusted definition runs");
    let handle = app.host().servers().get("s").unwrap();
    // Below the app's asking: only the roots handed out change, not the definition it holds.
    handle.update_roots(&[projects.clone(), dir.path().to_path_buf()]);
    handle.stop().await.unwrap();
    std::fs::remove_file(&marker).unwrap();
    handle.start().await.unwrap();
    let mut state = status(&app, "s");
    for _ in 0..1000 {
        if state == ServerStatus::NeedsTrust {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
        state = status(&app, "s");
    }
    assert_eq!(state, ServerStatus::NeedsTrust);
    assert!(
        !marker.exists(),
        "nothing ran with roots it was not trusted with"
    );
    app.shutdown().await;
}

/// A server saved from the window is shown, trusted and run with the global roots it inherits.
#[tokio::test]
async fn a_server_saved_while_global_roots_are_set_is_trusted_with_them() {
    let dir = tempfile::tempdir().unwrap();
    let (marker, projects) = (dir.path().join("ran"), dir.path().join("projects"));
    std::fs::create_dir_all(&projects).unwrap();
    write_config_with_roots(dir.path(), &[&projects], json!({}));
    let app = app(dir.path(), Arc::new(MemoryStore::default())).await;
    let shown = Arc::new(std::sync::Mutex::new(String::new()));
    let seen = shown.clone();
    let confirm: Confirm = Box::new(move |review| {
        *seen.lock().unwrap() = review.text();
        Box::pin(async move { true })
    });
    let save = SaveServer {
        name: "s".into(),
        config: serde_json::from_value(marking(&marker, "")).unwrap(),
        previous_name: None,
    };
    app.save_server(save, confirm).await.unwrap();
    let text = shown.lock().unwrap().clone();
    assert!(text.contains("Roots (the global ones)"), "{text}");
    assert!(appears(&marker).await, "it runs as it was trusted");
    assert_eq!(
        app.trust_review(&name("s")).unwrap().verdict,
        TrustVerdict::Trusted
    );
    app.shutdown().await;
}

/// Roots that could not be saved (the file broken in an editor meanwhile) leave every server
/// trusted with, and bound to, the roots it still runs with.
#[tokio::test]
async fn roots_not_saved_leave_every_server_trusted_as_it_runs() {
    let dir = tempfile::tempdir().unwrap();
    let projects = dir.path().join("projects");
    std::fs::create_dir_all(&projects).unwrap();
    let servers = json!({ "a": marking(&dir.path().join("a-ran"), "") });
    write_config_with_roots(dir.path(), &[&projects], servers);
    let app = app(dir.path(), Arc::new(MemoryStore::default())).await;
    assert!(app.trust_server(name("a"), answer(true)).await.unwrap());
    let file = dir.path().join("config.json");
    let kept = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, "{\n  \"mcpServers\": {\n").unwrap();
    for paths in [vec![], vec![projects.clone(), dir.path().to_path_buf()]] {
        let global = SetRoots {
            server: None,
            paths: Some(paths.iter().map(|p| p.display().to_string()).collect()),
        };
        let yes: ConfirmRoots = Box::new(|_| Box::pin(async { true }));
        app.set_roots(global, answer(false), yes)
            .await
            .expect_err("nothing can be saved over a broken file");
        let verdict = app.trust_review(&name("a")).unwrap().verdict;
        assert_eq!(
            verdict,
            TrustVerdict::Trusted,
            "as it runs, after {paths:?}"
        );
    }
    std::fs::write(&file, kept).unwrap();
    app.shutdown().await;
}

/// An entry of the file that is not valid (here a name with the keychain's separator) costs no
/// other server: the others run, it is listed with why, nothing runs it, and Remove takes it out
/// of the file while an edit of another server keeps it as written.
#[tokio::test]
async fn one_invalid_entry_costs_no_other_server_and_is_kept_until_removed() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("ran");
    write_config(
        dir.path(),
        json!({ "good": marking(&marker, ""), "vault/env": {"command": "sh"} }),
    );
    let app = app(dir.path(), Arc::new(MemoryStore::default())).await;
    assert!(app.trust_server(name("good"), answer(true)).await.unwrap());
    assert!(appears(&marker).await, "the valid server runs");
    let views = app.list_servers(NoArgs {}).await.unwrap();
    let bad = views
        .iter()
        .find(|v| v.name == "vault/env")
        .expect("listed");
    let ServerStatus::Invalid { error } = &bad.status else {
        panic!("{:?}", bad.status)
    };
    assert!(error.message.contains("must not contain"), "{error}");
    let e = app.trust_review(&name("vault/env")).unwrap_err();
    assert!(e.message.contains("is not valid"), "{e}");

    let mut edited = app.configured_server("good").unwrap();
    edited.request_timeout_secs = Some(30);
    let save = SaveServer {
        name: "good".into(),
        config: edited,
        previous_name: Some("good".into()),
    };
    app.save_server(save, answer(true)).await.unwrap();
    let file = std::fs::read_to_string(dir.path().join("config.json")).unwrap();
    assert!(file.contains("vault/env"), "kept as written: {file}");

    app.remove_server(name("vault/env")).await.unwrap();
    let file = std::fs::read_to_string(dir.path().join("config.json")).unwrap();
    assert!(
        !file.contains("vault/env") && file.contains("good"),
        "{file}"
    );
    app.shutdown().await;
}

/// A `ConfirmRoots` for a change that must not ask about global roots.
fn no_roots_asked() -> ConfirmRoots {
    Box::new(|review| panic!("asked about global roots: {review:?}"))
}

/// Setting the global roots in the app shows them once with every trusted local server that
/// inherits them, and changes nothing unless the person trusts those servers with them; roots
/// only taken away ask nothing.
#[tokio::test]
async fn setting_the_global_roots_asks_once_for_the_local_servers_that_inherit_them() {
    let dir = tempfile::tempdir().unwrap();
    let marks = [dir.path().join("a-ran"), dir.path().join("b-ran")];
    let mut own = marking(&dir.path().join("own-ran"), "");
    own["roots"] = json!([dir.path()]);
    write_config(
        dir.path(),
        json!({
            "a": marking(&marks[0], ""),
            "b": marking(&marks[1], ""),
            "own": own,
            "untrusted": marking(&dir.path().join("untrusted-ran"), ""),
            "remote": {"url": "http://127.0.0.1:9/mcp"},
        }),
    );
    let app = app(dir.path(), Arc::new(MemoryStore::default())).await;
    for server in ["a", "b", "own", "remote"] {
        assert!(app.trust_server(name(server), answer(true)).await.unwrap());
    }
    let shown = Arc::new(std::sync::Mutex::new(Vec::new()));
    let asking = |yes: bool| -> ConfirmRoots {
        let shown = shown.clone();
        Box::new(move |review| {
            shown.lock().unwrap().push(review);
            Box::pin(async move { yes })
        })
    };
    let global = |paths: Vec<&Path>| SetRoots {
        server: None,
        paths: Some(paths.iter().map(|p| p.display().to_string()).collect()),
    };
    let refused = answer(false);
    let e = app
        .set_roots(global(vec![dir.path()]), refused, asking(false))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Denied, "{e}");
    assert!(app.host().config().unwrap().roots.is_empty(), "unchanged");
    for server in ["a", "b"] {
        let verdict = app.trust_review(&name(server)).unwrap().verdict;
        assert_eq!(verdict, TrustVerdict::Trusted, "{server} as it was");
    }
    let review = shown.lock().unwrap().pop().unwrap();
    let names: Vec<&str> = review.servers.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["a", "b"], "not its own roots, not remote");
    let text = review.text();
    assert!(
        text.contains(&format!("\"{}\"", dir.path().display())) && text.contains("\"b\""),
        "{text}"
    );

    for mark in &marks {
        assert!(appears(mark).await);
    }
    app.set_roots(global(vec![dir.path()]), answer(false), asking(true))
        .await
        .unwrap();
    assert_eq!(shown.lock().unwrap().len(), 1);
    assert_eq!(app.host().config().unwrap().roots, [dir.path()]);
    for server in ["a", "b"] {
        let verdict = app.trust_review(&name(server)).unwrap().verdict;
        assert_eq!(verdict, TrustVerdict::Trusted, "{server} trusted with them");
    }
    let untrusted = app.trust_review(&name("untrusted")).unwrap().verdict;
    assert_eq!(
        untrusted,
        TrustVerdict::New,
        "trusting roots trusts no new server"
    );
    // As trusted when the app starts again and reads them from the file.
    app.shutdown().await;
    drop(app);
    let app = self::app(dir.path(), Arc::new(MemoryStore::default())).await;
    for server in ["a", "b"] {
        let verdict = app.trust_review(&name(server)).unwrap().verdict;
        assert_eq!(verdict, TrustVerdict::Trusted, "{server} after a restart");
    }

    // Taken away again: nothing to ask, and they stay trusted.
    app.set_roots(global(vec![]), answer(false), no_roots_asked())
        .await
        .unwrap();
    for server in ["a", "b"] {
        let verdict = app.trust_review(&name(server)).unwrap().verdict;
        assert_eq!(verdict, TrustVerdict::Trusted, "{server} with fewer roots");
    }
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
    // A key of several lines, printed whole: stderr is kept line by line.
    let (pem_lines, bare_token) = (
        ["MIIEvQIBADANBgkqhkiG9w0B", "AQEFAASCBKcwggSjAgEAAoIB"],
        "t0ken-in-a-longer-value",
    );
    std::fs::write(
        &env,
        format!(
            "DB_PASSWORD={file_secret}\nPEM_KEY=\"-----BEGIN PRIVATE KEY-----\\n{}\\n{}\\n-----END PRIVATE KEY-----\"\n",
            pem_lines[0], pem_lines[1]
        ),
    )
    .unwrap();
    let mut server = marking(
        &marker,
        r#"echo "using key $API_KEY" >&2; echo "db $DB_PASSWORD" >&2; echo "$API_KEY" >&2; echo "$PEM_KEY" >&2; echo "${AUTH#Bearer }" >&2;"#,
    );
    // A keychain value written into a longer value, which the server prints on its own.
    server["env"] = json!({
        "API_KEY": "${secret:server/s/API_KEY}",
        "AUTH": "Bearer ${secret:server/s/TOKEN}",
    });
    server["envFile"] = json!(env);
    write_config(dir.path(), json!({ "s": server }));
    let secrets = Arc::new(MemoryStore::default());
    secrets.set("server/s/API_KEY", keychain_secret).unwrap();
    secrets.set("server/s/TOKEN", bare_token).unwrap();
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
    for secret in [keychain_secret, file_secret, bare_token]
        .into_iter()
        .chain(pem_lines)
    {
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
