//! The real OS keychain (Secret Service on Linux): secrets round-trip through fresh entries and
//! never land in our files, inside `dbus-run-session` with an unlocked gnome-keyring (see
//! scripts/test.sh). Outside any keyring session (SSH, a container, a minimal desktop), the app
//! still starts and connects every server that needs no secret, and says what is missing.

use std::path::Path;
use std::time::Duration;

use serde_json::json;
use switchboard_base::config::{Config, RemoteTransport, ServerConfig, import};
use switchboard_base::paths::Paths;
use switchboard_base::secrets::{Keychain, SecretStore};
use switchboard_core::ErrorCode;
use switchboard_core::app::requests::ServerName;
use switchboard_core::app::{AppBuilder, Confirm};
use switchboard_core::servers::ServerState;

use crate::everything::http_everything_on;
use crate::support::{free_port, npm_bin};

const BUS: &str = "DBUS_SESSION_BUS_ADDRESS";

#[test]
fn secrets_round_trip_through_the_os_keychain_and_stay_out_of_files() {
    if std::env::var_os(BUS).is_none() {
        // What a person outside a desktop session meets: one clear error, the platform's words
        // behind it.
        let e = Keychain::with_service("switchboard-test")
            .get("probe")
            .unwrap_err();
        assert_eq!(e.code, ErrorCode::Keychain);
        assert!(e.message.contains("could not be opened"), "{}", e.message);
        assert!(e.details.is_some(), "{e:?}");
        return;
    }
    let service = format!("switchboard-test-{}", std::process::id());
    let store = Keychain::with_service(&service);
    store.set("probe", "s3cret-value").unwrap();
    // A fresh handle reads what the first stored.
    assert_eq!(
        Keychain::with_service(&service)
            .get("probe")
            .unwrap()
            .as_deref(),
        Some("s3cret-value")
    );

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("config.json");
    let text =
        r#"{"mcpServers":{"gh":{"command":"npx","env":{"GITHUB_TOKEN":"ghp_real_token_123"}}}}"#;
    let plan = import::plan(text, Path::new("claude_desktop_config.json")).unwrap();
    let mut config = Config::default();
    plan.apply(&mut config, &store, &mut |_| None).unwrap();
    config.save(&file).unwrap();
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(!saved.contains("ghp_real_token_123"), "{saved}");
    assert!(
        saved.contains("${secret:server/gh/env/GITHUB_TOKEN}"),
        "{saved}"
    );
    assert_eq!(
        Keychain::with_service(&service)
            .get("server/gh/env/GITHUB_TOKEN")
            .unwrap()
            .as_deref(),
        Some("ghp_real_token_123")
    );
    store.delete("probe").unwrap();
    store.delete("server/gh/env/GITHUB_TOKEN").unwrap();
    assert_eq!(store.get("probe").unwrap(), None);
}

/// Runs test `name` again in a process of its own with no session bus (true: this is that
/// process, go on), so the keychain cannot be had whatever session the suite runs in.
fn without_a_keychain(name: &str) -> bool {
    if std::env::var_os(BUS).is_none() {
        return true;
    }
    crate::support::rerun_alone(name, "without a keychain", |c| {
        c.env_remove(BUS);
    });
    false
}

/// The desktop's app, with the OS keychain behind its index as the desktop has it, and a local
/// and a remote server that need no secret: both run, and the keychain's absence is reported
/// for the banner, not as any server's failure.
#[tokio::test]
async fn the_app_connects_its_servers_without_a_keychain() {
    if !without_a_keychain("keychain::the_app_connects_its_servers_without_a_keychain") {
        return;
    }
    let port = free_port();
    let (_remote, _, _) = http_everything_on("streamableHttp", port).await;
    let local = ServerConfig::stdio(npm_bin("mcp-server-everything"), vec!["stdio".into()]);
    let remote = ServerConfig::remote(
        format!("http://127.0.0.1:{port}/mcp"),
        RemoteTransport::StreamableHttp,
    );
    let dir = tempfile::tempdir().unwrap();
    let config = json!({"mcpServers": {"local": local, "remote": remote}});
    std::fs::write(dir.path().join("config.json"), config.to_string()).unwrap();
    let paths = Paths {
        config_file: dir.path().join("config.json"),
        data_dir: dir.path().join("data"),
    };
    let app = AppBuilder::new(paths)
        .base_env(switchboard_protocol::process::BaseEnv::from_current())
        .build()
        .await
        .unwrap();
    for name in ["local", "remote"] {
        let yes: Confirm = Box::new(|_| Box::pin(async { true }));
        let server = ServerName {
            server: name.to_string(),
        };
        assert!(app.trust_server(server, yes).await.unwrap());
        let mut states = app.host().servers().get(name).unwrap().watch_state();
        let ran = tokio::time::timeout(
            Duration::from_secs(60),
            states.wait_for(|s| {
                matches!(s, ServerState::Running { .. } | ServerState::Failed { .. })
            }),
        )
        .await
        .unwrap_or_else(|_| panic!("{name} never ran"))
        .unwrap()
        .clone();
        assert!(
            matches!(ran, ServerState::Running { .. }),
            "{name}: {ran:?}"
        );
    }
    let problem = app
        .keychain_problem(switchboard_core::app::requests::NoArgs {})
        .await
        .unwrap()
        .expect("the keychain's absence is reported");
    assert_eq!(problem.code, ErrorCode::Keychain);
    let signed_in = app
        .sign_in_info(ServerName {
            server: "remote".into(),
        })
        .await
        .unwrap();
    assert!(signed_in.is_none());
    app.shutdown().await;
}
