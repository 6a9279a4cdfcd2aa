//! The registry client against a loopback registry that speaks the `v0.1` API, whose answers
//! are checked against the registry's OpenAPI document.

#[path = "../../../tests/support/loopback_registry.rs"]
mod loopback_registry;

use loopback_registry::LoopbackRegistry;
use serde_json::{Value, json};
use switchboard_gallery::registry::{Query, Registry, Status};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// Checks `answer` against schema `schema` of the OpenAPI document (Python's jsonschema).
fn conforms(answer: &Value, schema: &str) {
    use std::io::Write;
    let mut child = std::process::Command::new(format!("{ROOT}/tests/fixtures/.venv/bin/python"))
        .arg(format!(
            "{ROOT}/tests/fixtures/python/registry_openapi_check.py"
        ))
        .arg(format!("{ROOT}/tests/fixtures/registry/spec/openapi.yaml"))
        .arg(schema)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("the fixtures venv (scripts/setup-fixtures.sh)");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(answer.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "not a {schema}: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

async fn raw(url: &str) -> Value {
    reqwest::get(url).await.unwrap().json().await.unwrap()
}

fn doc(name: &str, version: &str, latest: bool, status: &str, updated: &str) -> Value {
    json!({
        "server": {"name": name, "description": "d", "version": version,
                   "packages": [{"registryType": "npm", "identifier": "x", "version": version,
                                 "transport": {"type": "stdio"}}]},
        "_meta": {"io.modelcontextprotocol.registry/official": {
            "status": status, "isLatest": latest, "publishedAt": updated, "updatedAt": updated}}
    })
}

#[tokio::test]
async fn the_loopback_registry_answers_as_the_openapi_document_says() {
    let r = LoopbackRegistry::start(LoopbackRegistry::fixtures()).await;
    conforms(
        &raw(&format!("{}/v0.1/servers?version=latest", r.url)).await,
        "ServerList",
    );
    let name = "io.github.modelcontextprotocol%2Ftime";
    let versions = raw(&format!("{}/v0.1/servers/{name}/versions", r.url)).await;
    conforms(&versions, "ServerList");
    let one = raw(&format!(
        "{}/v0.1/servers/{name}/versions/2026.10.19",
        r.url
    ))
    .await;
    conforms(&one, "ServerResponse");
}

#[tokio::test]
async fn search_lists_what_each_server_ships() {
    let r = LoopbackRegistry::start(LoopbackRegistry::fixtures()).await;
    let registry = Registry::new(&r.url).unwrap();
    let page = registry.search(&Query::default()).await.unwrap();
    let names: Vec<_> = page
        .servers
        .iter()
        .map(|l| l.server.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "com.example.weather/forecast",
            "io.github.modelcontextprotocol/server-everything",
            "io.github.modelcontextprotocol/server-filesystem",
            "io.github.modelcontextprotocol/time",
        ]
    );
    assert_eq!(page.servers[0].kinds(), ["oci", "remote"]);
    assert_eq!(page.servers[3].kinds(), ["pypi"]);
    assert_eq!(page.servers[1].registry, r.url);
    let query = Query {
        search: Some("TIME".into()),
        ..Query::default()
    };
    let page = registry.search(&query).await.unwrap();
    assert_eq!(page.servers.len(), 1);
    let asked = r.requests.lock().unwrap().last().cloned().unwrap();
    assert!(asked.contains("version=latest"), "{asked}");
    assert!(asked.contains("search=TIME"), "{asked}");
}

#[tokio::test]
async fn pages_follow_the_cursor() {
    let r = LoopbackRegistry::start(LoopbackRegistry::fixtures()).await;
    let registry = Registry::new(&r.url).unwrap();
    let mut query = Query {
        limit: Some(3),
        ..Query::default()
    };
    let first = registry.search(&query).await.unwrap();
    assert_eq!(first.servers.len(), 3);
    query.cursor = first.next_cursor.clone();
    assert!(query.cursor.is_some());
    let second = registry.search(&query).await.unwrap();
    assert_eq!(second.servers.len(), 1);
    assert_eq!(second.next_cursor, None);
}

#[tokio::test]
async fn versions_newest_first_and_one_by_number() {
    let name = "io.example/tool";
    let r = LoopbackRegistry::start(vec![
        doc(name, "1.0.0", false, "active", "2026-01-01T00:00:00Z"),
        doc(name, "1.1.0", true, "active", "2026-02-01T00:00:00Z"),
    ])
    .await;
    let registry = Registry::new(&r.url).unwrap();
    let versions = registry.versions(name).await.unwrap();
    let numbers: Vec<_> = versions.iter().map(|l| l.server.version.as_str()).collect();
    assert_eq!(numbers, ["1.1.0", "1.0.0"]);
    let old = registry.version(name, "1.0.0").await.unwrap();
    assert!(!old.is_latest);
    let asked = r.requests.lock().unwrap().last().cloned().unwrap();
    assert_eq!(asked, "/v0.1/servers/io.example%2Ftool/versions/1.0.0");
    let e = registry.version(name, "9.9.9").await.unwrap_err();
    assert_eq!(e.code.as_str(), "server_not_found");
    let e = registry
        .version("io.example/../x", "1.0.0")
        .await
        .unwrap_err();
    assert_eq!(e.code.as_str(), "invalid_input");
}

#[tokio::test]
async fn deprecated_is_marked_and_deleted_shows_only_in_updates() {
    let r = LoopbackRegistry::start(vec![
        doc(
            "io.example/old",
            "1.0.0",
            true,
            "deprecated",
            "2026-03-01T00:00:00Z",
        ),
        doc(
            "io.example/gone",
            "1.0.0",
            true,
            "deleted",
            "2026-04-01T00:00:00Z",
        ),
    ])
    .await;
    let registry = Registry::new(&r.url).unwrap();
    let page = registry.search(&Query::default()).await.unwrap();
    assert_eq!(page.servers.len(), 1);
    assert_eq!(page.servers[0].status, Status::Deprecated);
    assert!(!page.servers[0].offered());
    let query = Query {
        updated_since: Some("2026-03-15T00:00:00Z".into()),
        ..Query::default()
    };
    let changed = registry.search(&query).await.unwrap();
    assert_eq!(changed.servers.len(), 1);
    assert_eq!(changed.servers[0].status, Status::Deleted);
}

#[tokio::test]
async fn hostile_entries_are_shown_safely_or_left_out() {
    let mut hidden = doc(
        "io.example/hidden",
        "1.0.0",
        true,
        "active",
        "2026-01-01T00:00:00Z",
    );
    hidden["server"]["description"] = json!(format!(
        "Weather\u{200b}\u{202e}\u{e0041} {}",
        "A".repeat(1 << 20)
    ));
    hidden["server"]["title"] = json!("\u{1b}[31mred\u{1b}[0m");
    let bad_name = doc(
        "io.example/..",
        "1.0.0",
        true,
        "active",
        "2026-01-01T00:00:00Z",
    );
    let mut no_version = doc(
        "io.example/broken",
        "1.0.0",
        true,
        "active",
        "2026-01-01T00:00:00Z",
    );
    no_version["server"]
        .as_object_mut()
        .unwrap()
        .remove("version");
    let r = LoopbackRegistry::start(vec![hidden, bad_name, no_version]).await;
    let registry = Registry::new(&r.url).unwrap();
    let page = registry.search(&Query::default()).await.unwrap();
    assert_eq!(page.servers.len(), 1);
    assert_eq!(page.skipped, 2);
    let shown = page.servers[0].shown();
    assert!(
        shown.description.starts_with("Weather⟨U+200B⟩⟨U+202E⟩"),
        "{}",
        &shown.description[..60]
    );
    assert!(shown.description.chars().count() <= 1_001);
    assert!(!shown.title.contains('\u{1b}'), "{}", shown.title);
}

#[tokio::test]
async fn an_oversized_answer_is_refused_not_read() {
    let mut huge = doc(
        "io.example/huge",
        "1.0.0",
        true,
        "active",
        "2026-01-01T00:00:00Z",
    );
    huge["server"]["description"] = json!("x".repeat(9 << 20));
    let r = LoopbackRegistry::start(vec![huge]).await;
    let e = Registry::new(&r.url)
        .unwrap()
        .search(&Query::default())
        .await
        .unwrap_err();
    assert_eq!(e.code.as_str(), "message_too_large");
}

#[test]
fn plain_http_is_only_for_this_computer() {
    assert!(Registry::new("http://registry.example.com").is_err());
    assert!(Registry::new("ftp://x").is_err());
    assert!(Registry::new("http://127.0.0.1:9").is_ok());
    assert!(Registry::new("https://registry.modelcontextprotocol.io").is_ok());
}
