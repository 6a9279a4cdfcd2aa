//! The gallery through the app, against a loopback registry: the kept listing when the registry
//! is out of reach, refreshes that ask only for what changed, and updates.

#[path = "../../../../../tests/support/bundles.rs"]
mod bundles;
#[path = "../../../../../tests/support/loopback_registry.rs"]
mod loopback_registry;

use std::sync::{Arc, Mutex};

use loopback_registry::LoopbackRegistry;
use serde_json::{Value, json};

use super::*;
use crate::app::{AppBuilder, BaseEnv, MemoryStore, Paths};

async fn app(dir: &std::path::Path) -> App {
    let paths = Paths {
        config_file: dir.join("config.json"),
        data_dir: dir.join("data"),
    };
    AppBuilder::new(paths)
        .secrets(Arc::new(MemoryStore::default()))
        .base_env(BaseEnv::from_current())
        .supervise(false)
        .build()
        .await
        .unwrap()
}

fn search(registry: &str, term: Option<&str>) -> RegistrySearch {
    RegistrySearch {
        registry: Some(registry.to_owned()),
        search: term.map(str::to_owned),
        ..RegistrySearch::default()
    }
}

fn everything_at(version: &str, updated: &str) -> Value {
    let mut doc = LoopbackRegistry::fixtures()
        .into_iter()
        .find(|d| d["server"]["name"] == "io.github.modelcontextprotocol/server-everything")
        .unwrap();
    doc["server"]["version"] = json!(version);
    doc["server"]["packages"][0]["version"] = json!(version);
    let meta = &mut doc["_meta"]["io.modelcontextprotocol.registry/official"];
    meta["updatedAt"] = json!(updated);
    meta["publishedAt"] = json!(updated);
    meta["isLatest"] = json!(true);
    doc
}

#[tokio::test]
async fn out_of_reach_the_gallery_shows_what_it_kept_marked_offline() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(dir.path()).await;
    let r = LoopbackRegistry::start(LoopbackRegistry::fixtures()).await;
    let live = app.registry_search(search(&r.url, None)).await.unwrap();
    assert_eq!(live.servers.len(), 4);
    assert!(!live.offline);
    r.stop();
    let kept = app
        .registry_search(search(&r.url, Some("TIME")))
        .await
        .unwrap();
    assert!(kept.offline);
    assert_eq!(kept.servers.len(), 1);
    assert_eq!(kept.servers[0].text.title, "Time");
    let cached = app.registry_cached(search(&r.url, None)).await.unwrap();
    assert_eq!(cached.servers.len(), 4);
}

#[tokio::test]
async fn a_refresh_asks_only_for_what_changed_and_forgets_the_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(dir.path()).await;
    let r = LoopbackRegistry::start(LoopbackRegistry::fixtures()).await;
    assert_eq!(app.registry_refresh(search(&r.url, None)).await.unwrap(), 4);
    r.publish(everything_at("2026.9.1", "2026-12-01T00:00:00Z"));
    let mut gone = LoopbackRegistry::fixtures().remove(3);
    gone["_meta"]["io.modelcontextprotocol.registry/official"]["status"] = json!("deleted");
    gone["_meta"]["io.modelcontextprotocol.registry/official"]["updatedAt"] =
        json!("2026-12-02T00:00:00Z");
    r.publish(gone);
    // The two changes, and the one updated at the last refresh's instant (`updated_since` is
    // inclusive): not the other two.
    assert_eq!(app.registry_refresh(search(&r.url, None)).await.unwrap(), 3);
    let asked = r.requests.lock().unwrap().last().cloned().unwrap();
    assert!(
        asked.contains("updated_since=2026-11-01T10%3A00%3A00Z"),
        "{asked}"
    );
    let cached = app.registry_cached(search(&r.url, None)).await.unwrap();
    let names: Vec<_> = cached
        .servers
        .iter()
        .map(|l| l.server.version.as_str())
        .collect();
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(names.contains(&"2026.9.1"), "{names:?}");
}

#[tokio::test]
async fn a_newer_version_is_found_and_installing_it_asks_for_trust_again() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(dir.path()).await;
    let r = LoopbackRegistry::start(LoopbackRegistry::fixtures()).await;
    let request = InstallRequest {
        server: RegistryRef {
            registry: Some(r.url.clone()),
            name: "io.github.modelcontextprotocol/server-everything".into(),
            version: None,
        },
        ..InstallRequest::default()
    };
    let yes: Confirm = Box::new(|_| Box::pin(async { true }));
    let name = app.install_server(request, yes).await.unwrap();
    assert!(app.check_updates(NoArgs {}).await.unwrap().is_empty());

    r.publish(everything_at("2026.9.1", "2026-12-01T00:00:00Z"));
    let updates = app.check_updates(NoArgs {}).await.unwrap();
    assert_eq!(updates.len(), 1);
    assert_eq!(
        (updates[0].installed.as_str(), updates[0].latest.as_str()),
        ("2026.8.31", "2026.9.1")
    );

    let shown = Arc::new(Mutex::new(None));
    let seen = shown.clone();
    let no: Confirm = Box::new(move |review| {
        *seen.lock().unwrap() = Some(review);
        Box::pin(async { false })
    });
    let declined = app
        .update_server(
            ServerName {
                server: name.clone(),
            },
            no,
        )
        .await;
    assert!(declined.is_err());
    let review = shown.lock().unwrap().take().unwrap();
    assert!(
        review
            .args
            .iter()
            .any(|a| a.ends_with("@2026.9.1\"") || a.ends_with("@2026.9.1")),
        "{:?}",
        review.args
    );
    assert_eq!(
        app.configured_server(&name)
            .unwrap()
            .installed_from
            .unwrap()
            .version,
        "2026.8.31"
    );

    let yes: Confirm = Box::new(|_| Box::pin(async { true }));
    assert!(
        app.update_server(
            ServerName {
                server: name.clone()
            },
            yes
        )
        .await
        .unwrap()
    );
    let config = app.configured_server(&name).unwrap();
    assert_eq!(
        config.args[1],
        "@modelcontextprotocol/server-everything@2026.9.1"
    );
    assert!(app.check_updates(NoArgs {}).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_bundle_for_another_node_is_refused_before_anything_is_unpacked() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(dir.path()).await;
    let mut m: Value = serde_json::from_slice(&bundles::manifest("0.3")).unwrap();
    m["compatibility"] = json!({"runtimes": {"node": ">=999"}});
    let m = serde_json::to_vec(&m).unwrap();
    let file = bundles::zip(dir.path(), "future.mcpb", &[("manifest.json", &m, 0o644)]);
    let install = BundleInstall {
        path: file,
        ..BundleInstall::default()
    };
    let yes: Confirm = Box::new(|_| Box::pin(async { true }));
    let e = app.install_bundle(install, yes).await.unwrap_err();
    assert!(e.message.contains("needs node >=999"), "{}", e.message);
    assert!(!dir.path().join("data/bundles").exists());
}

#[test]
fn only_one_bundles_own_folder_may_be_removed() {
    let bundles = std::path::Path::new("/data/bundles");
    assert!(one_bundle_folder(
        bundles,
        std::path::Path::new("/data/bundles/memory/1.0.0")
    ));
    for other in [
        "/data/bundles",
        "/data/bundles/memory",
        "/data/bundles/memory/1.0.0/sub",
        "/data/bundles/../x",
        "/data/bundles/memory/..",
        "/data/bundles/a/../../..",
        "/home/me",
    ] {
        assert!(
            !one_bundle_folder(bundles, std::path::Path::new(other)),
            "{other}"
        );
    }
}

#[tokio::test]
async fn uninstalling_a_config_that_names_more_than_its_bundle_removes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(dir.path()).await;
    let data = dir.path().join("data");
    let mut config = crate::config::ServerConfig {
        command: Some("/bin/true".into()),
        enabled: true,
        ..Default::default()
    };
    // The config file names the folder of every version of bundle x, not one bundle's folder.
    config.installed_from = Some(crate::config::InstalledFrom {
        bundle: Some(data.join("bundles/x")),
        ..Default::default()
    });
    let save = SaveServer {
        name: "evil".into(),
        config,
        previous_name: None,
    };
    let yes: Confirm = Box::new(|_| Box::pin(async { true }));
    app.save_server(save, yes).await.unwrap();
    let other = data.join("bundles/x/2.0.0");
    std::fs::create_dir_all(&other).unwrap();
    let evil = ServerName {
        server: "evil".into(),
    };
    app.uninstall_server(evil).await.unwrap();
    assert!(other.is_dir(), "another version's folder is still there");
}

#[tokio::test]
async fn the_registries_kept_are_checked_written_as_called_and_the_first_is_the_default() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(dir.path()).await;
    let settings = app.registry_settings(NoArgs {}).await.unwrap();
    assert_eq!(settings.registries, [registry::OFFICIAL]);
    let r = LoopbackRegistry::start(LoopbackRegistry::fixtures()).await;

    // Plain http to another computer is refused, by its URL, and nothing is written.
    let refused = app
        .set_registries(RegistryList {
            registries: vec![r.url.clone(), "http://registry.example.com".into()],
        })
        .await
        .unwrap_err();
    assert!(
        refused.message.contains("registry.example.com"),
        "{}",
        refused.message
    );
    assert!(!dir.path().join("config.json").exists());

    let kept = app
        .set_registries(RegistryList {
            registries: vec![
                format!(" {}/ ", r.url),
                registry::OFFICIAL.into(),
                r.url.clone(),
            ],
        })
        .await
        .unwrap();
    assert_eq!(
        kept.registries,
        [r.url.clone(), registry::OFFICIAL.to_owned()]
    );
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("config.json")).unwrap())
            .unwrap();
    assert_eq!(written["registries"], json!([r.url, registry::OFFICIAL]));
    assert_eq!(
        app.registry_settings(NoArgs {}).await.unwrap().registries,
        kept.registries
    );
    assert_eq!(
        app.registry(None).unwrap().url(),
        r.url,
        "the first is the default"
    );

    // The official one alone is its default: written as no list.
    app.set_registries(RegistryList {
        registries: vec![registry::OFFICIAL.into()],
    })
    .await
    .unwrap();
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("config.json")).unwrap())
            .unwrap();
    assert!(
        written.get("registries").is_none_or(|r| r == &json!([])),
        "{written}"
    );
    let many = vec![r.url.clone(); MAX_REGISTRIES + 1];
    assert!(
        app.set_registries(RegistryList { registries: many })
            .await
            .is_err()
    );
}
