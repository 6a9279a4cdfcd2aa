//! The real OS keychain (Secret Service on Linux): secrets round-trip through fresh entries and
//! never land in our files. Runs inside `dbus-run-session` with an unlocked gnome-keyring (see
//! scripts/test.sh); without a session bus it fails loudly, which is what users would see too.

use std::path::Path;

use switchboard_core::config::{Config, import};
use switchboard_core::secrets::{Keychain, SecretStore};

#[test]
fn secrets_round_trip_through_the_os_keychain_and_stay_out_of_files() {
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
        panic!(
            "no D-Bus session: run the tests through scripts/test.sh (dbus-run-session + gnome-keyring)"
        );
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
