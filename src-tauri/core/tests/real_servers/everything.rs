//! `@modelcontextprotocol/server-everything` over stdio and Streamable HTTP.

use std::time::Duration;

use serde_json::json;
use switchboard_base::config::{RemoteTransport, ServerConfig};
use switchboard_base::events::{CoreEvent, ServerEvent};
use switchboard_core::ErrorCode;
use switchboard_policy::approvals::Deny;
use switchboard_protocol::connection::CompletionRef;

use crate::support::{Harness, first_text, free_port, node_bin, npm_bin, repo_root, stdio};

fn everything() -> ServerConfig {
    stdio(&npm_bin("mcp-server-everything"), &["stdio"])
}

#[tokio::test]
async fn stdio_tools_resources_prompts_completion() {
    let h = Harness::new().with_roots(&[std::env::temp_dir()]);
    let live = h.connect("everything", everything()).await;
    let c = &live.connection;
    assert_eq!(c.summary().protocol_version, "2025-11-25");
    assert_eq!(c.summary().server_info["name"], "mcp-servers/everything");

    let tools = c.list_tools().await.unwrap();
    let names: Vec<_> = tools.iter().map(|t| t.name.to_string()).collect();
    // Declared client capabilities unlock these tools.
    for expected in [
        "echo",
        "get-sum",
        "trigger-sampling-request",
        "trigger-elicitation-request",
        "get-roots-list",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "{expected} missing from {names:?}"
        );
    }
    let r = c
        .call_tool("echo", Some(json!({"message": "hello"})))
        .await
        .unwrap();
    assert_eq!(first_text(&r), "Echo: hello");
    let r = c
        .call_tool("get-sum", Some(json!({"a": 2, "b": 3})))
        .await
        .unwrap();
    assert!(first_text(&r).contains('5'), "{}", first_text(&r));
    let e = c
        .call_tool("echo", Some(json!("not an object")))
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::InvalidInput);

    let (resources, pages) = c.list_resources().await.unwrap();
    assert!(!resources.is_empty());
    assert!(pages >= 1);
    let templates = c.list_resource_templates().await.unwrap();
    assert!(
        templates
            .iter()
            .any(|t| t.uri_template.contains("dynamic/text"))
    );
    let text = c
        .read_resource("demo://resource/dynamic/text/1")
        .await
        .unwrap();
    assert!(serde_json::to_string(&text).unwrap().contains("\"text\""));
    let blob = c
        .read_resource("demo://resource/dynamic/blob/1")
        .await
        .unwrap();
    assert!(serde_json::to_string(&blob).unwrap().contains("\"blob\""));

    let prompts = c.list_prompts().await.unwrap();
    assert!(prompts.iter().any(|p| p.name == "args-prompt"));
    let p = c
        .get_prompt("args-prompt", Some(json!({"city": "Paris"})))
        .await
        .unwrap();
    assert!(serde_json::to_string(&p).unwrap().contains("Paris"));

    let done = c
        .complete(
            CompletionRef::Prompt("completable-prompt".into()),
            "department",
            "E",
            None,
        )
        .await
        .unwrap();
    assert_eq!(done.completion.values, ["Engineering"]);

    let roots = c.call_tool("get-roots-list", None).await.unwrap();
    assert!(
        first_text(&roots).contains("file://"),
        "{}",
        first_text(&roots)
    );
    c.ping().await.unwrap();
    live.shutdown().await;
}

#[tokio::test]
async fn children_get_an_allow_listed_environment_plus_their_own() {
    // `cargo test` sets CARGO_MANIFEST_DIR in this process: a host variable no server may see.
    assert!(std::env::var_os("CARGO_MANIFEST_DIR").is_some());
    let mut config = everything();
    config
        .env
        .insert("SWITCHBOARD_CONFIGURED".into(), "yes".into());
    let live = Harness::new().connect("env", config).await;
    let r = live.connection.call_tool("get-env", None).await.unwrap();
    let env = first_text(&r);
    assert!(env.contains("SWITCHBOARD_CONFIGURED"), "{env}");
    assert!(env.contains("PATH"), "{env}");
    assert!(
        !env.contains("CARGO_MANIFEST_DIR"),
        "host variable leaked: {env}"
    );
    live.shutdown().await;
}

#[tokio::test]
async fn logging_and_progress_reach_the_event_channel() {
    let h = Harness::new();
    let mut events = h.events.streams();
    let live = h.connect("everything", everything()).await;
    let c = &live.connection;
    c.set_log_level("debug").await.unwrap();
    c.call_tool("toggle-simulated-logging", None).await.unwrap();
    let r = c
        .call_tool(
            "trigger-long-running-operation",
            Some(json!({"duration": 1, "steps": 4})),
        )
        .await
        .unwrap();
    assert!(first_text(&r).contains("completed"), "{}", first_text(&r));
    let mut progress = 0;
    let mut logs = 0;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while (progress < 4 || logs == 0) && tokio::time::Instant::now() < deadline {
        match tokio::time::timeout(Duration::from_secs(5), events.recv()).await {
            Ok(Some(CoreEvent::Server(ServerEvent::Progress { .. }))) => progress += 1,
            Ok(Some(CoreEvent::Server(ServerEvent::Log { .. }))) => logs += 1,
            Ok(Some(_)) => {}
            _ => break,
        }
    }
    assert!(progress >= 4, "saw {progress} progress notifications");
    assert!(logs >= 1, "saw no log messages");
    live.shutdown().await;
}

#[tokio::test]
async fn timeout_cancels_and_the_connection_stays_usable() {
    let h = Harness::new();
    let mut opts = h.options("everything", everything());
    opts.timeout = Some(Duration::from_secs(1));
    let live = switchboard_protocol::connection::connect(opts)
        .await
        .unwrap();
    let c = &live.connection;
    let started = std::time::Instant::now();
    // 10 s with a progress step only every 5 s: the 1 s idle timeout fires first.
    let e = c
        .call_tool(
            "trigger-long-running-operation",
            Some(json!({"duration": 10, "steps": 2})),
        )
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Timeout, "{e}");
    assert!(started.elapsed() < Duration::from_secs(4));
    let r = c
        .call_tool("echo", Some(json!({"message": "still here"})))
        .await
        .unwrap();
    assert_eq!(first_text(&r), "Echo: still here");
    live.shutdown().await;
}

#[tokio::test]
async fn sampling_denied_returns_minus_one_and_elicitation_accepts_defaults() {
    let mut h = Harness::new();
    let live = h.connect("everything", everything()).await;
    let r = live
        .connection
        .call_tool("trigger-elicitation-request", None)
        .await
        .unwrap();
    let all = serde_json::to_string(&r).unwrap();
    assert!(all.contains("accept"), "{all}");
    live.shutdown().await;

    h.approver = std::sync::Arc::new(Deny);
    let live = h.connect("everything", everything()).await;
    let r = live
        .connection
        .call_tool("trigger-sampling-request", Some(json!({"prompt": "hi"})))
        .await
        .unwrap();
    assert!(
        first_text(&r).contains("User rejected sampling request"),
        "{}",
        first_text(&r)
    );
    live.shutdown().await;
}

/// Starts server-everything in an HTTP mode on a free port and waits until it listens. Its stdout
/// (where it logs every HTTP request it handles) goes to the returned file.
pub async fn http_everything(mode: &str) -> (tokio::process::Child, u16, std::path::PathBuf) {
    http_everything_on(mode, free_port()).await
}

/// [`http_everything`] on a given port (a server coming back where it was).
pub async fn http_everything_on(
    mode: &str,
    port: u16,
) -> (tokio::process::Child, u16, std::path::PathBuf) {
    let log = std::env::temp_dir().join(format!("switchboard-everything-{mode}-{port}.log"));
    let child = tokio::process::Command::new(npm_bin("mcp-server-everything"))
        .arg(mode)
        .env("PORT", port.to_string())
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    (child, port, log)
}

async fn check_echo_and_resources(
    live: switchboard_protocol::connection::Live,
    message: &str,
    transport: &str,
) {
    let c = &live.connection;
    // What the server card shows: the transport in use, never the configured `auto`.
    assert_eq!(c.summary().transport, transport, "{message}");
    assert_eq!(c.summary().server_info["name"], "mcp-servers/everything");
    let r = c
        .call_tool("echo", Some(json!({"message": message})))
        .await
        .unwrap();
    assert_eq!(first_text(&r), format!("Echo: {message}"));
    let (resources, _) = c.list_resources().await.unwrap();
    assert!(!resources.is_empty());
    live.shutdown().await;
}

#[tokio::test]
async fn streamable_http() {
    let (mut child, port, log) = http_everything("streamableHttp").await;
    let url = format!("http://127.0.0.1:{port}/mcp");
    let live = Harness::new()
        .connect(
            "http",
            // `auto` settles on Streamable HTTP, and says so.
            ServerConfig::remote(url, RemoteTransport::Auto),
        )
        .await;
    check_echo_and_resources(live, "over http", "streamable-http").await;
    // Closing the connection ends the server's session with an HTTP DELETE.
    let mut printed = String::new();
    for _ in 0..50 {
        printed = std::fs::read_to_string(&log).unwrap_or_default();
        if printed.contains("Received session termination request") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        printed.contains("Received session termination request"),
        "no DELETE seen by the server:\n{printed}"
    );
    let _ = child.kill().await;
    let _ = std::fs::remove_file(log);
}

/// Over Streamable HTTP the traffic ring holds each POST with its status and the headers that
/// matter, each answer paired with its request, and never a header value from the keychain,
/// not even where the server sends it back.
#[tokio::test]
async fn the_traffic_of_an_http_server_is_recorded_without_its_secrets() {
    use switchboard_protocol::traffic::{
        Direction, MessageKind, Traffic, TrafficLimits, TrafficQuery,
    };
    let (mut child, port, log) = http_everything("streamableHttp").await;
    let secret = "kc-header-secret-8d2f71";
    let mut config = ServerConfig::remote(
        format!("http://127.0.0.1:{port}/mcp"),
        RemoteTransport::StreamableHttp,
    );
    config.headers = [("X-Api-Key".to_owned(), "${secret:http/key}".to_owned())]
        .into_iter()
        .collect();
    let store = switchboard_base::secrets::MemoryStore::default();
    switchboard_base::secrets::SecretStore::set(&store, "http/key", secret).unwrap();
    let traffic = Traffic::new(TrafficLimits::default());
    let mut opts = Harness::new().options("http", config);
    opts.secrets = std::sync::Arc::new(store);
    opts.traffic = traffic.ring("http");
    let live = switchboard_protocol::connection::connect(opts)
        .await
        .unwrap();
    let echoed = live
        .connection
        .call_tool("echo", Some(json!({ "message": secret })))
        .await
        .unwrap();
    assert!(
        first_text(&echoed).contains(secret),
        "the server sends it back"
    );
    live.shutdown().await;
    let all = TrafficQuery {
        limit: 1000,
        ..TrafficQuery::default()
    };
    let entries = traffic.query(&all).entries;
    let seqs: Vec<u64> = entries.iter().map(|e| e.seq).collect();
    let shown = [
        serde_json::to_string(&entries).unwrap(),
        traffic.export(&seqs).join("\n"),
    ];
    for text in &shown {
        assert!(!text.contains(secret), "the ring holds the secret: {text}");
    }
    let call = entries
        .iter()
        .find(|e| e.kind == MessageKind::Request && e.method.as_deref() == Some("tools/call"))
        .expect("the call");
    let http = call.http.as_ref().expect("the POST");
    assert_eq!(http.verb, "POST");
    assert!(
        http.headers
            .iter()
            .any(|h| h.name == "x-api-key" && h.value == "[redacted]"),
        "{:?}",
        http.headers
    );
    let answer = entries
        .iter()
        .find(|e| e.paired_seq == Some(call.seq) && e.direction == Direction::In)
        .expect("its answer");
    assert_eq!(answer.method.as_deref(), Some("tools/call"));
    assert!(
        entries
            .iter()
            .any(|e| e.http.as_ref().is_some_and(|h| h.status == Some(200))),
        "the status is recorded"
    );
    let _ = child.kill().await;
    let _ = std::fs::remove_file(log);
}

#[tokio::test]
async fn legacy_sse_explicit_and_by_fallback() {
    let (mut child, port, log) = http_everything("sse").await;
    let url = format!("http://127.0.0.1:{port}/sse");
    let live = Harness::new()
        .connect(
            "sse",
            ServerConfig::remote(url.clone(), RemoteTransport::Sse),
        )
        .await;
    check_echo_and_resources(live, "over sse", "sse").await;
    // `auto` tries Streamable HTTP first; the server rejects it, so the legacy transport is used.
    let live = Harness::new()
        .connect("auto", ServerConfig::remote(url, RemoteTransport::Auto))
        .await;
    check_echo_and_resources(live, "by fallback", "sse").await;
    let _ = child.kill().await;
    let _ = std::fs::remove_file(log);
}

#[tokio::test]
async fn legacy_resource_subscription_delivers_updates() {
    let h = Harness::new();
    let mut events = h.events.control();
    let live = h.connect("everything", everything()).await;
    let c = &live.connection;
    let uri = "demo://resource/dynamic/text/1";
    c.subscribe(uri).await.unwrap();
    // The server's simulated updates go to subscribed URIs only, once at once and then every 5 s.
    c.call_tool("toggle-subscriber-updates", None)
        .await
        .unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let updated = loop {
        match tokio::time::timeout_at(deadline, events.recv()).await {
            Ok(Some(CoreEvent::Server(ServerEvent::ResourceUpdated { server, uri }))) => {
                break Some((server, uri));
            }
            Ok(Some(_)) => {}
            _ => break None,
        }
    };
    assert_eq!(
        updated,
        Some(("everything".to_owned(), uri.to_owned())),
        "no notifications/resources/updated"
    );
    c.unsubscribe(uri).await.unwrap();
    live.shutdown().await;
}

/// A loopback TCP proxy whose live connections can be cut at once, as a flaky network would.
struct Cutter {
    port: u16,
    conns: std::sync::Arc<std::sync::Mutex<Vec<tokio::task::AbortHandle>>>,
}

impl Cutter {
    async fn start(upstream: u16) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let conns = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let registry = conns.clone();
        tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                let task = tokio::spawn(async move {
                    if let Ok(mut outbound) =
                        tokio::net::TcpStream::connect(("127.0.0.1", upstream)).await
                    {
                        let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                    }
                });
                registry.lock().unwrap().push(task.abort_handle());
            }
        });
        Self { port, conns }
    }

    /// Drops every connection open now; new ones go through.
    fn cut(&self) -> usize {
        let mut conns = self.conns.lock().unwrap();
        let n = conns.len();
        for c in conns.drain(..) {
            c.abort();
        }
        n
    }
}

/// server-everything's own event store cannot resume a request stream (it replays every stream and
/// re-registers the resumed one under an event id), so resumption is tested against a TypeScript-SDK
/// server that uses the SDK's event store: `tests/fixtures/resumable_server.mjs`.
async fn resumable_server() -> (tokio::process::Child, u16, std::path::PathBuf) {
    let port = free_port();
    let log = std::env::temp_dir().join(format!("switchboard-resumable-{port}.log"));
    let child = tokio::process::Command::new(node_bin())
        .arg(repo_root().join("tests/fixtures/resumable_server.mjs"))
        .arg(port.to_string())
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    (child, port, log)
}

#[tokio::test]
async fn streamable_http_resumes_a_cut_stream_with_last_event_id() {
    let (mut child, port, log) = resumable_server().await;
    let cutter = Cutter::start(port).await;
    let url = format!("http://127.0.0.1:{}/mcp", cutter.port);
    let h = Harness::new();
    let mut events = h.events.streams();
    let live = h
        .connect(
            "flaky",
            ServerConfig::remote(url, RemoteTransport::StreamableHttp),
        )
        .await;
    let c = live.connection.clone();
    let call = tokio::spawn(async move {
        c.call_tool("slow", Some(json!({"steps": 6, "ms": 300})))
            .await
    });
    // Cut the network once the response stream is flowing (after the first progress event).
    loop {
        match tokio::time::timeout(Duration::from_secs(10), events.recv()).await {
            Ok(Some(CoreEvent::Server(ServerEvent::Progress { .. }))) => break,
            Ok(Some(_)) => {}
            other => panic!("no progress before the cut: {other:?}"),
        }
    }
    assert!(cutter.cut() > 0, "nothing to cut");
    let r = tokio::time::timeout(Duration::from_secs(30), call).await;
    let printed = std::fs::read_to_string(&log).unwrap_or_default();
    let r = r
        .unwrap_or_else(|_| panic!("the call did not finish; server saw:\n{printed}"))
        .unwrap()
        .expect("the call survived the cut");
    assert_eq!(first_text(&r), "completed 6 steps");
    assert!(
        printed.contains("Last-Event-ID"),
        "the client did not resume with Last-Event-ID:\n{printed}"
    );
    live.shutdown().await;
    let _ = child.kill().await;
    let _ = std::fs::remove_file(log);
}
