//! MCP Apps against real servers: the official example server `server-basic-vanillajs` (its view
//! opened, served once with a closed CSP, and its button's tool call decided at the door) and the
//! Python SDK fixture's hostile view (a CSP declaration that tries to smuggle directives, a tool
//! only views may call, links and reads bound to the view).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Value, json};
use switchboard_base::config::{SandboxProfile, SandboxSetting, ServerConfig};
use switchboard_base::paths::Paths;
use switchboard_base::secrets::MemoryStore;
use switchboard_core::ErrorCode;
use switchboard_core::app::requests::{
    AppCallTool, AppOpenLink, AppReadResource, OpenAppView, ServerName, ViewId,
};
use switchboard_core::app::{App, AppBuilder};
use switchboard_core::servers::ServerState;
use switchboard_policy::approvals::{Review, ReviewKind, Reviewer, Verdict};
use switchboard_policy::audit::{AuditQuery, FlowKind};

use crate::support::{node_bin, python, python_fixture, repo_root, stdio};

/// Approves everything (or denies), and keeps what it was shown.
#[derive(Default)]
struct Person {
    deny: std::sync::atomic::AtomicBool,
    /// Never answers (the review stays open).
    hold: std::sync::atomic::AtomicBool,
    seen: Mutex<Vec<Review>>,
}

impl Reviewer for Person {
    fn review(&self, review: Review) -> BoxFuture<'static, Verdict> {
        let verdict = if self.deny.load(std::sync::atomic::Ordering::SeqCst) {
            Verdict::Deny
        } else {
            Verdict::Approve {
                content: review.content.clone(),
                remember: None,
            }
        };
        self.seen.lock().unwrap().push(review);
        if self.hold.load(std::sync::atomic::Ordering::SeqCst) {
            return Box::pin(futures::future::pending());
        }
        Box::pin(async move { verdict })
    }
}

fn basic_vanillajs() -> ServerConfig {
    let script = repo_root().join(
        "tests/fixtures/node_modules/@modelcontextprotocol/server-basic-vanillajs/dist/index.js",
    );
    stdio(&node_bin(), &[&script.to_string_lossy(), "--stdio"])
}

/// An app with `servers` configured, trusted and running, deciding reviews as `person` does.
async fn app_with(
    servers: &[(&str, ServerConfig)],
    person: Arc<Person>,
) -> (App, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let config: serde_json::Map<String, Value> = servers
        .iter()
        .map(|(name, c)| (name.to_string(), serde_json::to_value(c).unwrap()))
        .collect();
    std::fs::write(
        dir.path().join("config.json"),
        json!({ "mcpServers": config }).to_string(),
    )
    .unwrap();
    let paths = Paths {
        config_file: dir.path().join("config.json"),
        data_dir: dir.path().join("data"),
    };
    let app = AppBuilder::new(paths)
        .secrets(Arc::new(MemoryStore::default()))
        .base_env(switchboard_protocol::process::BaseEnv::from_current())
        .reviewer(person)
        .build()
        .await
        .unwrap();
    for (name, _) in servers {
        let yes: switchboard_core::app::Confirm = Box::new(|_| Box::pin(async { true }));
        let server = ServerName {
            server: name.to_string(),
        };
        assert!(app.trust_server(server, yes).await.unwrap());
        let mut states = app.host().servers().get(name).unwrap().watch_state();
        tokio::time::timeout(
            Duration::from_secs(60),
            states.wait_for(|s| matches!(s, ServerState::Running { .. })),
        )
        .await
        .unwrap_or_else(|_| panic!("{name} never ran"))
        .unwrap();
    }
    (app, dir)
}

async fn open(
    app: &App,
    server: &str,
    tool: &str,
    uri: &str,
) -> switchboard_protocol::mcp_apps::AppView {
    app.open_app_view(OpenAppView {
        server: server.into(),
        tool: tool.into(),
        uri: uri.into(),
    })
    .await
    .unwrap()
}

#[tokio::test]
async fn the_official_basic_app_opens_and_its_tool_call_is_decided_at_the_door() {
    let person = Arc::new(Person::default());
    let (app, _dir) = app_with(&[("basic", basic_vanillajs())], person.clone()).await;
    let tools = app
        .list_tools(ServerName {
            server: "basic".into(),
        })
        .await
        .unwrap();
    let tool = serde_json::to_value(tools.iter().find(|t| t.name == "get-time").unwrap()).unwrap();
    let uri = switchboard_protocol::mcp_apps::resource_uri(&tool)
        .unwrap()
        .to_owned();

    let view = open(&app, "basic", "get-time", &uri).await;
    assert!(view.src.ends_with(&view.view_id));
    let page = app
        .serve_app_view(&view.view_id)
        .expect("the page is served");
    assert!(
        page.html.contains("<html") || page.html.contains("<!DOCTYPE"),
        "not HTML"
    );
    assert!(page.csp.starts_with("default-src 'none'"), "{}", page.csp);
    assert!(page.csp.contains("connect-src 'none'"), "{}", page.csp);
    assert!(app.serve_app_view(&view.view_id).is_none(), "served twice");

    // The view's button calls get-time: the person is asked, and told a view asks.
    let result = app
        .app_call_tool(AppCallTool {
            view_id: view.view_id.clone(),
            name: "get-time".into(),
            args: json!({}),
        })
        .await
        .unwrap();
    let structured = result
        .structured_content
        .expect("get-time answers with its time");
    assert!(structured["time"].as_str().is_some_and(|t| t.contains('T')));
    {
        let seen = person.seen.lock().unwrap();
        let review = seen.last().expect("the call was reviewed");
        assert_eq!(review.kind, ReviewKind::ToolCall);
        assert_eq!(review.server, "basic");
        assert_eq!(review.context["from"], "view");
        assert_eq!(review.content["tool"], "get-time");
    }

    // Denied, the call is not made.
    person.deny.store(true, std::sync::atomic::Ordering::SeqCst);
    let e = app
        .app_call_tool(AppCallTool {
            view_id: view.view_id.clone(),
            name: "get-time".into(),
            args: json!({}),
        })
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Denied);

    // A closed view asks nothing more.
    app.close_app_view(ViewId {
        view_id: view.view_id.clone(),
    })
    .await
    .unwrap();
    let e = app
        .app_call_tool(AppCallTool {
            view_id: view.view_id.clone(),
            name: "get-time".into(),
            args: json!({}),
        })
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput);
    let rows = app
        .search_audit(AuditQuery {
            server: Some("basic".into()),
            ..Default::default()
        })
        .await
        .unwrap();
    assert!(
        rows.iter().any(|r| r.kind == FlowKind::View),
        "opening is audited"
    );
    assert!(
        rows.iter()
            .any(|r| r.kind == FlowKind::ToolCall && r.actor == "view"),
        "the view's call is audited as the view's"
    );
    app.shutdown().await;
}

#[tokio::test]
async fn a_hostile_view_is_held_to_its_server_its_tools_and_the_persons_consent() {
    let person = Arc::new(Person::default());
    let mut py = stdio(&python(), &[&python_fixture("sdk_server.py")]);
    // Its views sit beside its folder, not in it: its sandbox lists them.
    py.sandbox = Some(SandboxSetting::Profile(SandboxProfile {
        read: vec![repo_root().join("tests/fixtures/views")],
        ..SandboxProfile::default()
    }));
    let (app, _dir) = app_with(&[("py", py), ("basic", basic_vanillajs())], person.clone()).await;
    let uri = "ui://fixture/hostile.html";

    // A view is opened only as the tool's own view.
    let e = app
        .open_app_view(OpenAppView {
            server: "py".into(),
            tool: "echo".into(),
            uri: uri.into(),
        })
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput);

    let view = open(&app, "py", "dashboard", uri).await;
    // The smuggled directive and keyword are dropped; the real origin stays.
    assert_eq!(view.csp.connect_domains, ["https://api.example.com"]);
    let csp = app.serve_app_view(&view.view_id).unwrap().csp;
    assert!(
        !csp.contains("unsafe-eval") && csp.matches("script-src").count() == 1,
        "{csp}"
    );

    // The tool only views may call: the view may (at the door), the model is never offered it.
    let call = |name: &str| AppCallTool {
        view_id: view.view_id.clone(),
        name: name.into(),
        args: json!({}),
    };
    let result = app.app_call_tool(call("refresh")).await.unwrap();
    assert!(format!("{:?}", result.content).contains("refreshed"));
    let offered = switchboard_core::chat::ToolSource::tools(app.host());
    assert!(offered.iter().any(|t| t.definition["name"] == "refresh"));
    let (to_model, _) =
        switchboard_core::chat::accepted(app.door().pins(), app.door().policies(), offered)
            .unwrap();
    assert!(!to_model.iter().any(|t| t.definition["name"] == "refresh"));

    // Another server's tool is not the view's to call.
    let e = app.app_call_tool(call("get-time")).await.unwrap_err();
    assert_eq!(e.code, ErrorCode::ToolNotFound);

    // Reads stay on the view's own server.
    let read = app
        .app_read_resource(AppReadResource {
            view_id: view.view_id.clone(),
            uri: "fixture://hello".into(),
        })
        .await
        .unwrap();
    assert!(!read.contents.is_empty());
    let e = app
        .app_read_resource(AppReadResource {
            view_id: view.view_id.clone(),
            uri: "ui://get-time/mcp-app.html".into(),
        })
        .await
        .unwrap_err();
    assert_ne!(
        e.code,
        ErrorCode::Denied,
        "the read went to py, which has no such resource"
    );

    // Links: https only, shown in full, opened only on consent.
    let link = |url: &str| AppOpenLink {
        view_id: view.view_id.clone(),
        url: url.into(),
    };
    for bad in [
        "javascript:alert(1)",
        "file:///etc/passwd",
        "http://example.com/",
    ] {
        let e = app.app_open_link(link(bad)).await.unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidInput, "{bad}");
    }
    let before = person.seen.lock().unwrap().len();
    let url = app
        .app_open_link(link("https://example.com/docs?q=1"))
        .await
        .unwrap();
    assert_eq!(url, "https://example.com/docs?q=1");
    {
        let seen = person.seen.lock().unwrap();
        assert_eq!(seen.len(), before + 1, "every link is asked about");
        let review = seen.last().unwrap();
        assert_eq!(review.kind, ReviewKind::OpenLink);
        assert_eq!(
            review.content,
            json!({"url": "https://example.com/docs?q=1"})
        );
    }
    person.deny.store(true, std::sync::atomic::Ordering::SeqCst);
    let e = app
        .app_open_link(link("https://example.com/other"))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Denied);
    app.shutdown().await;
}

fn example(package: &str) -> ServerConfig {
    let script = repo_root()
        .join("tests/fixtures/node_modules/@modelcontextprotocol")
        .join(package)
        .join("dist/index.js");
    stdio(&node_bin(), &[&script.to_string_lossy(), "--stdio"])
}

#[tokio::test]
async fn every_official_example_app_opens_with_its_declared_origins_only() {
    let servers = [
        ("react", example("server-basic-react"), "get-time"),
        ("map", example("server-map"), "show-map"),
        (
            "budget",
            example("server-budget-allocator"),
            "get-budget-data",
        ),
    ];
    let configs: Vec<(&str, ServerConfig)> =
        servers.iter().map(|(n, c, _)| (*n, c.clone())).collect();
    let (app, _dir) = app_with(&configs, Arc::new(Person::default())).await;
    for (server, _, tool) in servers {
        let tools = app
            .list_tools(ServerName {
                server: server.into(),
            })
            .await
            .unwrap();
        let def = serde_json::to_value(tools.iter().find(|t| t.name == tool).unwrap()).unwrap();
        let uri = switchboard_protocol::mcp_apps::resource_uri(&def)
            .unwrap()
            .to_owned();
        let view = open(&app, server, tool, &uri).await;
        let page = app.serve_app_view(&view.view_id).unwrap();
        assert!(page.html.len() > 1000, "{server}: a real page");
        assert!(
            page.csp.starts_with("default-src 'none'"),
            "{server}: {}",
            page.csp
        );
        assert!(!page.csp.contains("unsafe-eval"), "{server}: {}", page.csp);
        for origin in view
            .csp
            .connect_domains
            .iter()
            .chain(&view.csp.resource_domains)
        {
            assert!(
                page.csp.contains(origin.as_str()),
                "{server}: {origin} declared but not in {}",
                page.csp
            );
        }
        eprintln!("{server}: {tool} → {uri}, CSP {}", page.csp);
    }
    app.shutdown().await;
}

/// A hostile view floods the host: 10,000 tool calls at once and a hundred 1 MB messages. A few
/// wait for the person, the rest are refused at once with an error the view sees; the audit log
/// keeps a bounded number of small rows.
#[tokio::test]
async fn a_flooding_view_is_held_to_a_few_waiting_requests_and_small_notes() {
    use futures::StreamExt;
    use switchboard_core::app::requests::AppMessage;
    use switchboard_protocol::mcp_apps::{MAX_PENDING, MAX_PER_WINDOW};
    let person = Arc::new(Person::default());
    person.hold.store(true, std::sync::atomic::Ordering::SeqCst);
    let mut py = stdio(&python(), &[&python_fixture("sdk_server.py")]);
    py.sandbox = Some(SandboxSetting::Profile(SandboxProfile {
        read: vec![repo_root().join("tests/fixtures/views")],
        ..SandboxProfile::default()
    }));
    let (app, _dir) = app_with(&[("py", py)], person.clone()).await;
    let uri = "ui://fixture/hostile.html";
    let view = open(&app, "py", "dashboard", uri).await;

    let mut calls: futures::stream::FuturesUnordered<_> = (0..10_000)
        .map(|_| {
            app.app_call_tool(AppCallTool {
                view_id: view.view_id.clone(),
                name: "refresh".into(),
                args: json!({}),
            })
        })
        .collect();
    // Without the limit every call would wait for the person: fail rather than hang.
    let refusals = async {
        for _ in 0..10_000 - MAX_PENDING {
            let e = calls.next().await.unwrap().unwrap_err();
            assert_eq!(e.code, ErrorCode::LimitExceeded, "{e}");
        }
    };
    tokio::time::timeout(Duration::from_secs(60), refusals)
        .await
        .expect("the view's excess calls were not refused");
    // The rest wait for the person, who was asked about no more than them.
    assert_eq!(calls.len(), MAX_PENDING);
    assert!(person.seen.lock().unwrap().len() <= MAX_PENDING);
    drop(calls);

    // Another view of the same tool: a hundred 1 MB messages.
    let other = open(&app, "py", "dashboard", uri).await;
    let huge =
        json!({ "role": "user", "content": [{"type": "text", "text": "x".repeat(1 << 20)}] });
    let mut kept = 0;
    for _ in 0..100 {
        let sent = app
            .app_message(AppMessage {
                view_id: other.view_id.clone(),
                message: huge.clone(),
            })
            .await;
        match sent {
            Ok(()) => kept += 1,
            Err(e) => assert_eq!(e.code, ErrorCode::LimitExceeded, "{e}"),
        }
    }
    assert_eq!(kept, MAX_PER_WINDOW);
    let rows = app
        .door()
        .audit()
        .search(&AuditQuery {
            kind: Some(FlowKind::View),
            limit: Some(10_000),
            ..AuditQuery::default()
        })
        .unwrap();
    let bytes: usize = rows
        .iter()
        .map(|r| serde_json::to_string(&r.detail).unwrap().len())
        .sum();
    assert!(
        rows.len() <= MAX_PER_WINDOW + 2 * MAX_PENDING + 4,
        "{} rows",
        rows.len()
    );
    assert!(bytes < 1 << 20, "the view's rows take {bytes} bytes");
    app.shutdown().await;
}
