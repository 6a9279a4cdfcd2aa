//! A registry on 127.0.0.1 that speaks the MCP Registry's `v0.1` read API as the official one
//! serves it (the OpenAPI document in `tests/fixtures/registry/spec`, plus the official
//! handlers' rules: `limit` default 30 and at most 100, `search` a case-insensitive substring of
//! the name, `version=latest`, deleted entries only with `include_deleted` or `updated_since`,
//! URL-encoded names). It serves the `ServerResponse` documents it is given and records each
//! request's path and query.

#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};

/// The running registry.
pub struct LoopbackRegistry {
    pub url: String,
    pub requests: Arc<Mutex<Vec<String>>>,
    docs: Arc<Mutex<Vec<Value>>>,
    files: Files,
    server: tokio::task::JoinHandle<()>,
}

type Files = Arc<Mutex<std::collections::HashMap<String, Vec<u8>>>>;

impl LoopbackRegistry {
    /// Serves `docs` (each a `ServerResponse`) on a free port.
    pub async fn start(docs: Vec<Value>) -> Self {
        let docs = Arc::new(Mutex::new(docs));
        let requests = Arc::new(Mutex::new(Vec::new()));
        let files: Files = Arc::default();
        let state = (docs.clone(), requests.clone());
        let served = files.clone();
        let app = Router::new()
            .route(
                "/files/{name}",
                get(move |Path(name): Path<String>| {
                    let file = served.lock().unwrap().get(&name).cloned();
                    async move {
                        match file {
                            Some(bytes) => bytes.into_response(),
                            None => StatusCode::NOT_FOUND.into_response(),
                        }
                    }
                }),
            )
            .route("/v0.1/servers", get(list))
            .route("/v0.1/servers/{name}/versions", get(versions))
            .route("/v0.1/servers/{name}/versions/{version}", get(one))
            .layer(axum::middleware::from_fn_with_state(
                requests.clone(),
                record,
            ))
            .with_state(state);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let server = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self {
            url,
            requests,
            docs,
            files,
            server,
        }
    }

    /// The fixture documents in `tests/fixtures/registry`.
    pub fn fixtures() -> Vec<Value> {
        // From the root package (the end-to-end tests) or a crate under src-tauri/.
        let manifest = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let dir = [manifest.to_path_buf(), manifest.join("../..")]
            .into_iter()
            .map(|root| root.join("tests/fixtures/registry"))
            .find(|d| d.is_dir())
            .expect("tests/fixtures/registry");
        let mut docs: Vec<(String, Value)> = std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .map(|p| {
                let text = std::fs::read_to_string(&p).unwrap();
                (
                    p.display().to_string(),
                    serde_json::from_str(&text).unwrap(),
                )
            })
            .collect();
        docs.sort_by(|a, b| a.0.cmp(&b.0));
        docs.into_iter().map(|(_, d)| d).collect()
    }

    /// Adds a document (a new version, a new server) while it runs; a latest version makes
    /// the others of its server no longer latest.
    pub fn publish(&self, doc: Value) {
        let mut docs = self.docs.lock().unwrap();
        if official(&doc, "isLatest") == json!(true) {
            for d in docs.iter_mut().filter(|d| name_of(d) == name_of(&doc)) {
                d["_meta"]["io.modelcontextprotocol.registry/official"]["isLatest"] = json!(false);
            }
        }
        docs.push(doc);
    }

    /// Serves `bytes` at `<url>/files/<name>` (a bundle a `server.json` points to); its URL.
    pub fn serve_file(&self, name: &str, bytes: Vec<u8>) -> String {
        self.files.lock().unwrap().insert(name.to_owned(), bytes);
        format!("{}/files/{name}", self.url)
    }

    /// Stops answering: the registry is out of reach from now on.
    pub fn stop(&self) {
        self.server.abort();
    }
}

type Shared = (Arc<Mutex<Vec<Value>>>, Arc<Mutex<Vec<String>>>);

async fn record(
    State(requests): State<Arc<Mutex<Vec<String>>>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let uri = request.uri();
    let line = match uri.query() {
        Some(q) => format!("{}?{q}", uri.path()),
        None => uri.path().to_owned(),
    };
    requests.lock().unwrap().push(line);
    next.run(request).await
}

fn official(doc: &Value, key: &str) -> Value {
    doc["_meta"]["io.modelcontextprotocol.registry/official"][key].clone()
}

fn name_of(doc: &Value) -> &str {
    doc["server"]["name"].as_str().unwrap_or_default()
}

async fn list(
    State((docs, _)): State<Shared>,
    Query(q): Query<std::collections::HashMap<String, String>>,
) -> Response {
    let docs = docs.lock().unwrap().clone();
    let since = q.get("updated_since");
    let with_deleted = since.is_some() || q.get("include_deleted").is_some_and(|v| v == "true");
    let search = q.get("search").map(|s| s.to_lowercase());
    let limit: usize = q
        .get("limit")
        .and_then(|l| l.parse().ok())
        .unwrap_or(30)
        .clamp(1, 100);
    if q.get("version").is_some_and(|v| v != "latest") {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": "version must be latest"})),
        )
            .into_response();
    }
    let latest_only = q.contains_key("version");
    let mut matching: Vec<Value> = docs
        .into_iter()
        .filter(|d| !latest_only || official(d, "isLatest") == json!(true))
        .filter(|d| with_deleted || official(d, "status") != json!("deleted"))
        .filter(|d| {
            search
                .as_ref()
                .is_none_or(|s| name_of(d).to_lowercase().contains(s))
        })
        .filter(|d| {
            since
                .is_none_or(|s| official(d, "updatedAt").as_str().unwrap_or_default() >= s.as_str())
        })
        .collect();
    matching.sort_by(|a, b| name_of(a).cmp(name_of(b)));
    let start = q
        .get("cursor")
        .map(|c| {
            matching
                .iter()
                .position(|d| name_of(d) > c.as_str())
                .unwrap_or(matching.len())
        })
        .unwrap_or(0);
    let page: Vec<Value> = matching.iter().skip(start).take(limit).cloned().collect();
    let more = start + page.len() < matching.len();
    let mut metadata = json!({"count": page.len()});
    if more {
        metadata["nextCursor"] = json!(name_of(page.last().unwrap()));
    }
    Json(json!({"servers": page, "metadata": metadata})).into_response()
}

async fn versions(State((docs, _)): State<Shared>, Path(name): Path<String>) -> Response {
    let mut found: Vec<Value> = docs
        .lock()
        .unwrap()
        .iter()
        .filter(|d| name_of(d) == name && official(d, "status") != json!("deleted"))
        .cloned()
        .collect();
    if found.is_empty() {
        return (
            StatusCode::NOT_FOUND,
            Json(json!({"error": "Server not found"})),
        )
            .into_response();
    }
    found.sort_by_key(|d| {
        std::cmp::Reverse(
            official(d, "publishedAt")
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        )
    });
    Json(json!({"servers": found, "metadata": {"count": found.len()}})).into_response()
}

async fn one(
    State((docs, _)): State<Shared>,
    Path((name, version)): Path<(String, String)>,
) -> Response {
    let docs = docs.lock().unwrap();
    let found = docs.iter().find(|d| {
        name_of(d) == name
            && (d["server"]["version"] == json!(version)
                || (version == "latest" && official(d, "isLatest") == json!(true)))
    });
    match found {
        Some(d) => Json(d.clone()).into_response(),
        None => (
            StatusCode::NOT_FOUND,
            Json(json!({"error": "Server not found"})),
        )
            .into_response(),
    }
}
