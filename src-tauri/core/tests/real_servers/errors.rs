//! What a person reads when a server cannot be reached: for each way it goes wrong, one error
//! whose message is sentences (what failed, for which server, what to try) and whose details
//! say what lies behind it, bounded, with no Rust type names or Debug output in either. The CLI's
//! `error:` line and the window's `{code, message}` both print this error as it is.

use std::time::Duration;

use switchboard_base::config::{RemoteTransport, ServerConfig};
use switchboard_core::ErrorCode;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::faults::faulty;
use crate::support::{Harness, free_port};

/// What Rust puts in its errors and people must never read.
const RUST_NOISE: [&str; 7] = [
    "::",
    "Error {",
    "Transport [",
    "Box<",
    "Monitored<",
    "Some(",
    "kind: ",
];

/// A loopback HTTP server answering every request with `response` (`None`: accepts and never
/// answers). Returns its URL.
async fn canned(response: Option<String>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((mut socket, _)) = listener.accept().await {
            let Some(response) = response.clone() else {
                held.push(socket);
                continue;
            };
            tokio::spawn(async move {
                let mut buf = vec![0u8; 64 * 1024];
                let _ = socket.read(&mut buf).await;
                let _ = socket.write_all(response.as_bytes()).await;
                let _ = socket.shutdown().await;
            });
        }
    });
    format!("http://127.0.0.1:{port}/mcp")
}

fn http(status: &str, content_type: &str, body: &str) -> Option<String> {
    Some(format!(
        "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
        body.len()
    ))
}

struct Case {
    name: &'static str,
    config: ServerConfig,
    code: ErrorCode,
    /// Words the message must hold (besides the server's name).
    says: &'static [&'static str],
    /// Words the details must hold.
    details: &'static [&'static str],
}

fn remote(url: String) -> ServerConfig {
    ServerConfig::remote(url, RemoteTransport::StreamableHttp)
}

async fn cases() -> Vec<Case> {
    let html = format!(
        "<!DOCTYPE html><html><body>{}</body></html>",
        "<p>Internal Server Error</p>".repeat(200)
    );
    vec![
        Case {
            name: "refused",
            config: remote(format!("http://127.0.0.1:{}/mcp", free_port())),
            code: ErrorCode::ConnectFailed,
            says: &["refused"],
            details: &[],
        },
        Case {
            name: "unknown-host",
            config: remote("http://no-such-host.invalid/mcp".into()),
            code: ErrorCode::ConnectFailed,
            says: &["no-such-host.invalid", "could not be found"],
            details: &[],
        },
        Case {
            name: "tls",
            config: remote(
                canned(http("200 OK", "text/plain", "plain"))
                    .await
                    .replace("http://", "https://"),
            ),
            code: ErrorCode::ConnectFailed,
            says: &["secure connection (TLS)"],
            details: &[],
        },
        Case {
            name: "timeout",
            config: remote(canned(None).await),
            code: ErrorCode::Timeout,
            says: &["did not answer within 2 s"],
            details: &[],
        },
        Case {
            name: "401-without-metadata",
            config: remote(canned(http("401 Unauthorized", "text/plain", "no")).await),
            code: ErrorCode::AuthRequired,
            says: &["sign-in", "header"],
            details: &["HTTP 401"],
        },
        Case {
            name: "403",
            config: remote(canned(http("403 Forbidden", "text/plain", "go away")).await),
            code: ErrorCode::ConnectFailed,
            says: &["refused access"],
            details: &["HTTP 403", "go away"],
        },
        Case {
            name: "404",
            config: remote(canned(http("404 Not Found", "text/plain", "nothing here")).await),
            code: ErrorCode::ConnectFailed,
            says: &["no MCP endpoint", "URL"],
            details: &["HTTP 404"],
        },
        Case {
            name: "500-html",
            config: remote(canned(http("500 Internal Server Error", "text/html", &html)).await),
            code: ErrorCode::ConnectFailed,
            says: &["failed inside", "try again"],
            details: &["HTTP 500"],
        },
        Case {
            name: "200-not-json",
            config: remote(canned(http("200 OK", "application/json", "{not json")).await),
            code: ErrorCode::ConnectFailed,
            says: &["not MCP"],
            details: &[],
        },
        Case {
            name: "speaks-no-mcp",
            config: remote(canned(http("200 OK", "text/html", "<html>a web page</html>")).await),
            code: ErrorCode::ConnectFailed,
            says: &["not MCP"],
            details: &["text/html"],
        },
        Case {
            name: "no-such-command",
            config: ServerConfig::stdio("switchboard-no-such-command", vec![]),
            code: ErrorCode::SpawnFailed,
            says: &["switchboard-no-such-command", "not found"],
            details: &[],
        },
        Case {
            name: "exits-during-initialize",
            config: faulty("exit-on-init"),
            code: ErrorCode::ConnectFailed,
            says: &["exited", "fatal: boom"],
            details: &[],
        },
    ]
}

#[tokio::test]
async fn every_connection_failure_reads_as_sentences_with_bounded_details() {
    let h = Harness::new();
    let mut wrong = Vec::new();
    for case in cases().await {
        let mut opts = h.options(case.name, case.config);
        opts.timeout = Some(Duration::from_secs(2));
        let connected = tokio::time::timeout(
            Duration::from_secs(40),
            switchboard_protocol::connection::connect(opts),
        )
        .await
        .unwrap_or_else(|_| panic!("{}: connecting hung", case.name));
        let Err(e) = connected else {
            wrong.push(format!("{}: connected", case.name));
            continue;
        };
        let details = e.details.clone().unwrap_or_default();
        println!(
            "{}: {}: {}\n    details: {details}",
            case.name, e.code, e.message
        );
        let mut problems = Vec::new();
        if e.code != case.code {
            problems.push(format!("code {} (expected {})", e.code, case.code));
        }
        let quoted = format!("{:?}", case.name);
        for needed in case.says.iter().copied().chain([quoted.as_str()]) {
            if !e.message.contains(needed) {
                problems.push(format!("message lacks {needed:?}"));
            }
        }
        for needed in case.details {
            if !details.contains(needed) {
                problems.push(format!("details lack {needed:?}"));
            }
        }
        for noise in RUST_NOISE {
            if e.message.contains(noise) || details.contains(noise) {
                problems.push(format!("{noise:?} in the text"));
            }
        }
        if e.message.contains('\n') || details.contains('\n') {
            problems.push("more than one line".into());
        }
        if details.chars().count() > 400 {
            problems.push(format!("details of {} characters", details.chars().count()));
        }
        if !problems.is_empty() {
            wrong.push(format!(
                "{}: {}\n    message: {}\n    details: {details}",
                case.name,
                problems.join("; "),
                e.message
            ));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

/// A Streamable HTTP server that answers everything but `tools/call` plainly, and answers that
/// with an event stream that breaks before the result and gave no event ID to resume from.
async fn drops_mid_call() -> String {
    use axum::http::{HeaderMap, StatusCode};
    use axum::response::{IntoResponse, Response};
    use serde_json::{Value, json};
    async fn answer(headers: HeaderMap, body: String) -> Response {
        let _ = headers;
        let request: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
        let id = request["id"].clone();
        let json =
            |v: Value| ([("content-type", "application/json")], v.to_string()).into_response();
        match request["method"].as_str().unwrap_or_default() {
            _ if id.is_null() => StatusCode::ACCEPTED.into_response(),
            "initialize" => json(json!({"jsonrpc": "2.0", "id": id, "result": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "drops", "version": "1"}
            }})),
            "tools/list" => json(json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [
                {"name": "drop", "inputSchema": {"type": "object"}}
            ]}})),
            "tools/call" => {
                // A progress note, then the connection ends: no result, no event ID.
                let note = json!({"jsonrpc": "2.0", "method": "notifications/message",
                    "params": {"level": "info", "data": "working"}});
                let body = format!("data: {note}\n\n");
                ([("content-type", "text/event-stream")], body).into_response()
            }
            _ => json(json!({"jsonrpc": "2.0", "id": id,
                "error": {"code": -32601, "message": "Method not found"}})),
        }
    }
    serve_mcp(axum::routing::post(answer)).await
}

/// Serves `post` at `/mcp` on a loopback port (GET is refused: no event stream); its URL.
async fn serve_mcp(post: axum::routing::MethodRouter) -> String {
    use axum::http::StatusCode;
    let app = axum::Router::new().route(
        "/mcp",
        post.get(|| async { StatusCode::METHOD_NOT_ALLOWED }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

/// A remote server's event stream drops mid-call where it cannot be resumed: the call ends
/// with an error that says so, well before the request's timeout would have ended it.
#[tokio::test]
async fn a_dropped_stream_that_cannot_resume_fails_the_call_clearly() {
    let h = Harness::new();
    let mut opts = h.options("drops", remote(drops_mid_call().await));
    opts.timeout = Some(Duration::from_secs(30));
    let live = switchboard_protocol::connection::connect(opts)
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let ended = tokio::time::timeout(
        Duration::from_secs(20),
        live.connection.call_tool("drop", None),
    )
    .await
    .expect("the call hung after its stream dropped");
    let e = ended.expect_err("a call whose stream dropped has no result");
    println!("{}: {}  ({:?})", e.code, e.message, started.elapsed());
    for noise in RUST_NOISE {
        assert!(!e.message.contains(noise), "{noise:?} in {}", e.message);
    }
}

/// A loopback HTTP server whose every answer is `head` followed by an endless body; it counts
/// the body bytes the client took before it let go. Returns the URL and the count.
async fn endless(head: &'static str) -> (String, std::sync::Arc<std::sync::atomic::AtomicU64>) {
    use std::sync::atomic::{AtomicU64, Ordering};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let sent = std::sync::Arc::new(AtomicU64::new(0));
    let counted = sent.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            let sent = counted.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 64 * 1024];
                let _ = socket.read(&mut buf).await;
                if socket.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                let chunk = vec![b'x'; 64 * 1024];
                // Up to 1 GiB, for as long as the client reads.
                for _ in 0..(1 << 14) {
                    let framed = format!("{:x}\r\n", chunk.len());
                    let wrote = async {
                        socket.write_all(framed.as_bytes()).await?;
                        socket.write_all(&chunk).await?;
                        socket.write_all(b"\r\n").await
                    };
                    if wrote.await.is_err() {
                        return;
                    }
                    sent.fetch_add(chunk.len() as u64, Ordering::SeqCst);
                }
            });
        }
    });
    (format!("http://127.0.0.1:{port}/mcp"), sent)
}

/// A server that answers with an error status and a 1 GiB body: the client reads a bounded
/// part of it, fails with a sentence, and lets go (the server could not send it all).
#[tokio::test]
async fn an_error_with_an_endless_body_is_read_bounded() {
    let (url, sent) = endless(
        "HTTP/1.1 500 Internal Server Error\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n",
    )
    .await;
    let h = Harness::new();
    let mut opts = h.options("endless", remote(url));
    opts.timeout = Some(Duration::from_secs(10));
    let connected = tokio::time::timeout(
        Duration::from_secs(60),
        switchboard_protocol::connection::connect(opts),
    )
    .await
    .expect("reading the error hung");
    let e = connected.err().expect("an error status connected");
    assert!(
        !RUST_NOISE.iter().any(|n| e.message.contains(n)),
        "{}",
        e.message
    );
    let taken = sent.load(std::sync::atomic::Ordering::SeqCst);
    // The client holds at most a small cap; the rest is what the sockets buffer.
    assert!(
        taken < 64 << 20,
        "the client took {taken} bytes of the error body"
    );
}

/// A Streamable HTTP server (2025-11-25) whose `initialize` answer carries `session_id` as its
/// `Mcp-Session-Id`; it keeps the session header of every request after that.
async fn with_session_id(
    session_id: axum::http::HeaderValue,
) -> (
    String,
    std::sync::Arc<std::sync::Mutex<Vec<Option<Vec<u8>>>>>,
) {
    use axum::http::{HeaderMap, StatusCode};
    use axum::response::IntoResponse;
    use serde_json::{Value, json};
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = seen.clone();
    let answer = move |headers: HeaderMap, body: String| {
        let (seen, session_id) = (kept.clone(), session_id.clone());
        async move {
            let request: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
            let id = request["id"].clone();
            // What follows the handshake (the 2026 era's probe comes before it, sessionless).
            if !matches!(
                request["method"].as_str(),
                Some("initialize" | "server/discover")
            ) {
                let sent = headers.get("mcp-session-id").map(|v| v.as_bytes().to_vec());
                seen.lock().unwrap().push(sent);
            }
            let json = |v: Value| {
                let mut response =
                    ([("content-type", "application/json")], v.to_string()).into_response();
                response
                    .headers_mut()
                    .insert("mcp-session-id", session_id.clone());
                response
            };
            match request["method"].as_str().unwrap_or_default() {
                _ if id.is_null() => StatusCode::ACCEPTED.into_response(),
                "initialize" => json(json!({"jsonrpc": "2.0", "id": id, "result": {
                    "protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                    "serverInfo": {"name": "session", "version": "1"}
                }})),
                "tools/list" => json(json!({"jsonrpc": "2.0", "id": id, "result": {"tools": []}})),
                _ => json(json!({"jsonrpc": "2.0", "id": id,
                    "error": {"code": -32601, "message": "Method not found"}})),
            }
        }
    };
    (serve_mcp(axum::routing::post(answer)).await, seen)
}

/// A session ID a server should never send is refused: a huge one fails the connection with a
/// sentence, one that is not visible ASCII is never sent back; a good one is.
#[tokio::test]
async fn a_malicious_session_id_is_refused() {
    use axum::http::HeaderValue;
    let h = Harness::new();
    let huge = HeaderValue::from_str(&"s".repeat(64 * 1024)).unwrap();
    let (url, _) = with_session_id(huge).await;
    let mut opts = h.options("huge-session", remote(url));
    opts.timeout = Some(Duration::from_secs(10));
    let e = switchboard_protocol::connection::connect(opts)
        .await
        .err()
        .expect("a 64 KiB session ID was taken");
    assert!(e.message.contains("huge-session"), "{}", e.message);
    let details = e.details.clone().unwrap_or_default();
    assert!(details.contains("session ID"), "{}: {details}", e.message);

    let hidden = HeaderValue::from_bytes(b"caf\xe9-id").unwrap();
    let good = HeaderValue::from_static("good-session-1");
    for (value, sent_back) in [(hidden, false), (good, true)] {
        let (url, seen) = with_session_id(value.clone()).await;
        let mut opts = h.options("session", remote(url));
        opts.timeout = Some(Duration::from_secs(10));
        let live = switchboard_protocol::connection::connect(opts)
            .await
            .unwrap();
        live.connection.list_tools().await.unwrap();
        live.shutdown().await;
        let seen = seen.lock().unwrap().clone();
        assert!(!seen.is_empty());
        let echoed = seen.iter().all(|s| s.as_deref() == Some(value.as_bytes()));
        let never = seen.iter().all(Option::is_none);
        assert!(
            if sent_back { echoed } else { never },
            "{value:?}: {seen:?}"
        );
    }
}
