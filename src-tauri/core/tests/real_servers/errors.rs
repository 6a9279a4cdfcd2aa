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
    let app = axum::Router::new().route(
        "/mcp",
        axum::routing::post(answer).get(|| async { StatusCode::METHOD_NOT_ALLOWED }),
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
