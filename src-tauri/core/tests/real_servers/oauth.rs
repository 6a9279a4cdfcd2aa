//! Signing in to an OAuth-protected server built on the Python SDK's auth support
//! (tests/fixtures/python/oauth_server.py, its own authorization server): the first connection is
//! refused with a challenge, the sign-in goes through the loopback listener with a "browser" that
//! follows the authorization server's redirect, the tokens land in the secret store, the next
//! connection calls a tool with them, and signing out brings the refusal back.

use std::process::Stdio;
use std::sync::Arc;

use switchboard_base::config::ServerConfig;
use switchboard_base::paths::Paths;
use switchboard_base::secrets::{MemoryStore, SecretStore};
use switchboard_core::app::requests::{CallTool, ServerName};
use switchboard_core::app::{App, AppBuilder};
use switchboard_core::servers::ServerState;
use switchboard_core::{Error, ErrorCode};
use switchboard_protocol::auth::loopback::{Loopback, Open};
use switchboard_protocol::auth::{self, ClientIdentity};
use switchboard_protocol::connection;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio_util::sync::CancellationToken;

use crate::support::{Harness, first_text, python, python_fixture};

/// The fixture server, killed when dropped.
struct Protected {
    _child: tokio::process::Child,
    url: String,
}

async fn protected_server() -> Protected {
    let mut child = tokio::process::Command::new(python())
        .args([&python_fixture("oauth_server.py"), "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start oauth_server.py");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let ready = tokio::time::timeout(std::time::Duration::from_secs(30), lines.next_line())
        .await
        .expect("oauth_server.py announces itself")
        .unwrap()
        .unwrap_or_default();
    let url = ready
        .strip_prefix("READY ")
        .unwrap_or_else(|| panic!("unexpected first line: {ready:?}"))
        .to_owned();
    Protected { _child: child, url }
}

async fn connect(url: &str, store: &Arc<MemoryStore>) -> Result<connection::Live, Error> {
    let mut opts =
        Harness::new().options("protected", ServerConfig::remote(url, Default::default()));
    opts.secrets = store.clone();
    connection::connect(opts).await
}

/// A browser that follows redirects: to the authorization server, which approves at once, and
/// back to the loopback listener.
fn browser() -> Open {
    Box::new(|url| {
        let url = url.to_owned();
        tokio::spawn(async move {
            let _ = reqwest::get(url).await;
        });
        Ok(())
    })
}

#[tokio::test]
async fn sign_in_through_the_browser_then_call_a_tool_then_sign_out() {
    let server = protected_server().await;
    let store: Arc<MemoryStore> = Arc::default();
    let refused = connect(&server.url, &store).await.err().expect("refused");
    assert_eq!(refused.code, ErrorCode::AuthRequired, "{}", refused.message);
    let challenge = refused.challenge.expect("the server's challenge");
    assert!(challenge.contains("resource_metadata"), "{challenge}");

    let loopback = Loopback::bind(browser(), CancellationToken::new())
        .await
        .unwrap();
    auth::sign_in(
        &server.url,
        Some(&challenge),
        &ClientIdentity::default(),
        store.clone(),
        &loopback,
    )
    .await
    .unwrap();
    let entry = store
        .get(&format!("oauth:{}", server.url))
        .unwrap()
        .expect("the tokens are stored under the server's URL");
    assert!(entry.contains("fixture-token-"), "{entry}");

    let live = connect(&server.url, &store).await.expect("signed in");
    let result = live.connection.call_tool("whoami", None).await.unwrap();
    assert!(first_text(&result).starts_with("signed in"), "{result:?}");
    live.shutdown().await;

    auth::sign_out(&server.url, store.clone()).await.unwrap();
    assert!(
        store
            .get(&format!("oauth:{}", server.url))
            .unwrap()
            .is_none()
    );
    let again = connect(&server.url, &store)
        .await
        .err()
        .expect("refused again");
    assert_eq!(again.code, ErrorCode::AuthRequired);
}

/// An HTTP response with `headers` (each ending in CRLF) and `body`.
fn response(status: &str, headers: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}

fn json(status: &str, body: &str) -> String {
    response(status, "Content-Type: application/json\r\n", body)
}

/// The 401 of a protected resource whose metadata is at `prm`.
fn challenge(prm: &str) -> String {
    let header = format!("WWW-Authenticate: Bearer resource_metadata=\"{prm}\"\r\n");
    response("401 Unauthorized", &header, "")
}

/// Serves each request on `listener` with `respond(request line and headers)`.
fn stand_in(listener: std::net::TcpListener, respond: impl Fn(&str) -> String + Send + 'static) {
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        for mut stream in listener.incoming().flatten() {
            let mut buf = [0u8; 16384];
            let n = stream.read(&mut buf).unwrap_or(0);
            let request = String::from_utf8_lossy(&buf[..n]).to_string();
            let _ = stream.write_all(respond(&request).as_bytes());
        }
    });
}

/// A stand-in protected resource whose metadata points elsewhere: `prm` is the body (or a
/// redirect, when it starts with `redirect:`) served at /prm; every other request gets a 401
/// pointing there.
fn hostile_resource(prm: &'static str) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    stand_in(listener, move |request| {
        let body = prm.replace("PORT", &port.to_string());
        if !request.starts_with("GET /prm") {
            return challenge(&format!("http://127.0.0.1:{port}/prm"));
        }
        match body.strip_prefix("redirect:") {
            Some(to) => response("302 Found", &format!("Location: {to}\r\n"), ""),
            None => json("200 OK", &body),
        }
    });
    format!("http://127.0.0.1:{port}/mcp")
}

/// Connects to `url`, which refuses with a challenge, then signs in with that challenge through
/// a browser that must never open; returns how the sign-in ended and how long it took.
async fn sign_in_after_refusal(
    url: &str,
    store: &Arc<MemoryStore>,
) -> (Result<(), Error>, std::time::Duration) {
    let challenge = connect(url, store).await.err().expect("refused").challenge;
    let loopback = Loopback::bind(no_browser(), CancellationToken::new())
        .await
        .unwrap();
    let started = std::time::Instant::now();
    let signed = auth::sign_in(
        url,
        challenge.as_deref(),
        &ClientIdentity::default(),
        store.clone(),
        &loopback,
    )
    .await;
    (signed, started.elapsed())
}

/// Never opened: these sign-ins must stop before the browser.
fn no_browser() -> Open {
    Box::new(|url| panic!("the browser was opened at {url}"))
}

/// A server on this machine cannot send sign-in to a private or link-local address (cloud
/// metadata endpoints live there), nor redirect its metadata to another origin.
#[tokio::test]
async fn metadata_cannot_point_sign_in_at_private_addresses_or_other_origins() {
    for (prm, what) in [
        (
            r#"{"resource":"http://127.0.0.1:PORT/mcp","authorization_servers":["http://169.254.169.254/"]}"#,
            "a link-local authorization server",
        ),
        (
            r#"{"resource":"http://127.0.0.1:PORT/mcp","authorization_servers":["http://10.255.255.1/"]}"#,
            "a private authorization server",
        ),
        (
            "redirect:http://localhost:9/prm",
            "metadata redirected to another origin",
        ),
    ] {
        let url = hostile_resource(prm);
        let store: Arc<MemoryStore> = Arc::default();
        let (signed, took) = sign_in_after_refusal(&url, &store).await;
        let e = signed.err().unwrap_or_else(|| panic!("{what}: signed in"));
        assert_eq!(e.code, ErrorCode::AuthFailed, "{what}: {}", e.message);
        // Refused, not tried: no connection attempt waited on an unreachable address.
        assert!(took < std::time::Duration::from_secs(5), "{what}: {took:?}");
        assert!(
            store.get(&format!("oauth:{url}")).unwrap().is_none(),
            "{what}"
        );
    }
}

/// The machine's own non-loopback IPv4 address, if it has one (no packet is sent).
fn own_address() -> Option<std::net::IpAddr> {
    let socket = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    socket.connect("192.0.2.1:9").ok()?;
    let ip = socket.local_addr().ok()?.ip();
    (!ip.is_loopback() && !ip.is_unspecified()).then_some(ip)
}

/// A server reached at this machine's network address cannot send sign-in to a loopback
/// authorization server (a service only this machine should reach), even one that answers
/// with perfectly good metadata: refused before registration and before the browser.
#[tokio::test]
async fn a_non_loopback_server_cannot_send_sign_in_to_loopback() {
    let Some(ip) = own_address() else {
        eprintln!("SKIPPED: this machine has no non-loopback address");
        return;
    };
    let listener = std::net::TcpListener::bind("0.0.0.0:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let base = format!("http://{ip}:{port}");
    let local = format!("http://127.0.0.1:{port}");
    let (b, l) = (base.clone(), local.clone());
    stand_in(listener, move |request| {
        if request.starts_with("GET /prm") {
            json(
                "200 OK",
                &format!(r#"{{"resource":"{b}/mcp","authorization_servers":["{l}"]}}"#),
            )
        } else if request.starts_with("GET /.well-known/oauth-authorization-server") {
            json(
                "200 OK",
                &format!(
                    r#"{{"issuer":"{l}","authorization_endpoint":"{l}/authorize","token_endpoint":"{l}/token","registration_endpoint":"{l}/register","response_types_supported":["code"],"code_challenge_methods_supported":["S256"]}}"#
                ),
            )
        } else if request.starts_with("POST /register") {
            json(
                "201 Created",
                r#"{"client_id":"c","redirect_uris":["http://127.0.0.1:9/callback"]}"#,
            )
        } else {
            challenge(&format!("{b}/prm"))
        }
    });
    let url = format!("{base}/mcp");
    let store: Arc<MemoryStore> = Arc::default();
    let (signed, _) = sign_in_after_refusal(&url, &store).await;
    let e = signed.expect_err("sign-in refused");
    assert_eq!(e.code, ErrorCode::AuthFailed, "{}", e.message);
}

/// An authorization server that does not list S256 among its PKCE methods (or lists none) is
/// refused before registration and before the browser, as MCP requires.
#[tokio::test]
async fn an_authorization_server_without_pkce_s256_is_refused() {
    for methods in [None, Some(r#"["plain"]"#)] {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let b = base.clone();
        let registered = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let r = registered.clone();
        stand_in(listener, move |request| {
            let pkce = methods.map_or(String::new(), |m| {
                format!(r#","code_challenge_methods_supported":{m}"#)
            });
            if request.starts_with("GET /prm") {
                json(
                    "200 OK",
                    &format!(r#"{{"resource":"{b}/mcp","authorization_servers":["{b}"]}}"#),
                )
            } else if request.starts_with("GET /.well-known/oauth-authorization-server") {
                json(
                    "200 OK",
                    &format!(
                        r#"{{"issuer":"{b}","authorization_endpoint":"{b}/authorize","token_endpoint":"{b}/token","registration_endpoint":"{b}/register","response_types_supported":["code"]{pkce}}}"#
                    ),
                )
            } else if request.starts_with("POST /register") {
                r.store(true, std::sync::atomic::Ordering::SeqCst);
                json(
                    "201 Created",
                    r#"{"client_id":"c","redirect_uris":["http://127.0.0.1:9/callback"]}"#,
                )
            } else {
                challenge(&format!("{b}/prm"))
            }
        });
        let store: Arc<MemoryStore> = Arc::default();
        let (signed, _) = sign_in_after_refusal(&format!("{base}/mcp"), &store).await;
        let e = signed.expect_err("sign-in refused");
        assert_eq!(e.code, ErrorCode::AuthFailed, "{}", e.message);
        assert!(e.message.contains("PKCE with S256"), "{}", e.message);
        assert!(
            !registered.load(std::sync::atomic::Ordering::SeqCst),
            "{methods:?}"
        );
    }
}

/// The app with `url` configured as server "protected", its tokens in `store`.
async fn app_with(url: &str, dir: &std::path::Path, store: Arc<MemoryStore>) -> App {
    app_defining(serde_json::json!({ "url": url }), dir, store).await
}

/// The app with server "protected" defined by `definition`, its secrets and tokens in `store`,
/// trusted.
async fn app_defining(
    definition: serde_json::Value,
    dir: &std::path::Path,
    store: Arc<MemoryStore>,
) -> App {
    let config = serde_json::json!({ "mcpServers": { "protected": definition } });
    std::fs::write(dir.join("config.json"), config.to_string()).unwrap();
    let paths = Paths {
        config_file: dir.join("config.json"),
        data_dir: dir.join("data"),
    };
    let app = AppBuilder::new(paths)
        .secrets(store)
        .base_env(switchboard_protocol::process::BaseEnv::from_current())
        .build()
        .await
        .unwrap();
    // The person trusts the definition, as the app's dialog would ask.
    let yes: switchboard_core::app::Confirm = Box::new(|_| Box::pin(async { true }));
    let server = switchboard_core::app::requests::ServerName {
        server: "protected".into(),
    };
    assert!(app.trust_server(server, yes).await.unwrap());
    app
}

/// Waits until server "protected" is in a state `wanted` accepts; panics with the last one.
async fn wait_state(app: &App, wanted: impl Fn(&ServerState) -> bool) -> ServerState {
    let handle = app.host().servers().get("protected").unwrap();
    let mut states = handle.watch_state();
    let reached = tokio::time::timeout(
        std::time::Duration::from_secs(30),
        states.wait_for(|s| wanted(s)),
    )
    .await
    .ok()
    .and_then(|r| r.ok())
    .map(|s| s.clone());
    reached.unwrap_or_else(|| panic!("not reached; the state is {:?}", handle.status()))
}

/// The first failing `whoami` (the revocation lands just after it was asked for).
async fn refused_soon(app: &App) -> switchboard_core::Error {
    for _ in 0..50 {
        match app.call_tool(call("whoami"), |_| true).await {
            Ok(_) => tokio::time::sleep(std::time::Duration::from_millis(100)).await,
            Err(e) => return e,
        }
    }
    panic!("the revoked sign-in still works");
}

/// A call of `name` with an id of its own, as the window gives each call.
fn call(name: &str) -> CallTool {
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    CallTool {
        server: "protected".into(),
        name: name.into(),
        args: serde_json::Value::Null,
        call_id: format!("call-{name}-{n}"),
    }
}

fn protected() -> ServerName {
    ServerName {
        server: "protected".into(),
    }
}

/// The desktop's flow: the server waits for sign-in; Sign in connects it; a tool that needs more
/// scopes gets a 403, and signing in again asks for the scopes that 403 named; when the server
/// revokes the sign-in mid-session, the connection ends as "sign-in expired" instead of
/// retrying, and the server waits for the person again.
#[tokio::test]
async fn the_app_signs_in_steps_up_for_more_scopes_and_notices_a_revoked_sign_in() {
    let server = protected_server().await;
    let dir = tempfile::tempdir().unwrap();
    let store: Arc<MemoryStore> = Arc::default();
    let app = app_with(&server.url, dir.path(), store.clone()).await;
    let refused = wait_state(&app, |s| matches!(s, ServerState::Failed { .. })).await;
    assert!(
        matches!(&refused, ServerState::Failed { error } if error.code == ErrorCode::AuthRequired),
        "{refused:?}"
    );
    assert!(app.sign_in_info(protected()).await.unwrap().is_none());

    // Resolves once the server is up again on the new tokens.
    app.sign_in_server(protected(), browser()).await.unwrap();
    let info = app
        .sign_in_info(protected())
        .await
        .unwrap()
        .expect("signed in");
    assert_eq!(info.scopes, ["mcp:tools"]);
    assert_eq!(info.issuer.as_deref(), server.url.strip_suffix("/mcp"));

    // More access: the 403 names the scopes, and signing in again asks for them.
    let denied = app
        .call_tool(call("admin_report"), |_| true)
        .await
        .unwrap_err();
    assert_eq!(
        denied.code,
        ErrorCode::InsufficientScope,
        "{}",
        denied.message
    );
    // Resolves once the server is up again on the new tokens.
    app.sign_in_server(protected(), browser()).await.unwrap();
    let info = app.sign_in_info(protected()).await.unwrap().unwrap();
    assert!(info.scopes.iter().any(|s| s == "mcp:admin"), "{info:?}");
    let report = app.call_tool(call("admin_report"), |_| true).await.unwrap();
    assert!(first_text(&report).contains("all clear"), "{report:?}");

    // The sign-in ends mid-session: no retry loop, a clear state, and Sign in works again.
    app.call_tool(call("revoke_sign_in"), |_| true)
        .await
        .unwrap();
    let refused = refused_soon(&app).await;
    assert_eq!(
        refused.code,
        ErrorCode::SignInExpired,
        "{}",
        refused.message
    );
    let state = wait_state(&app, |s| matches!(s, ServerState::Failed { .. })).await;
    let ServerState::Failed { error } = state else {
        unreachable!()
    };
    assert_eq!(error.code, ErrorCode::SignInExpired, "{}", error.message);
    // Resolves once the server is up again on the new tokens.
    app.sign_in_server(protected(), browser()).await.unwrap();
    let again = app.call_tool(call("whoami"), |_| true).await.unwrap();
    assert!(first_text(&again).starts_with("signed in"), "{again:?}");
    app.shutdown().await;
}

/// How many client credentials requests the fixture's token endpoint has had.
async fn machine_requests(url: &str) -> u64 {
    let at = url.replace("/mcp", "/machine-requests");
    let said: serde_json::Value = reqwest::get(at).await.unwrap().json().await.unwrap();
    said["requests"].as_u64().unwrap()
}

/// A machine-to-machine server (the client credentials grant, its secret in the keychain)
/// connects with no person: the app gets a token from the authorization server by itself and
/// calls a tool with it. With a wrong secret the server's refusal becomes the server's state, in
/// the server's words, after one request: a refused grant is not retried.
#[tokio::test]
async fn a_machine_server_signs_in_with_no_person_and_a_refused_secret_is_not_retried() {
    let server = protected_server().await;
    let define = |secret: &str| {
        let store = Arc::new(MemoryStore::default());
        store.set("server/protected/secret", secret).unwrap();
        let definition = serde_json::json!({
            "url": server.url,
            "oauth": {
                "grant": "clientCredentials",
                "clientId": "machine-client",
                "clientSecret": "${secret:server/protected/secret}",
            },
        });
        (definition, store)
    };

    let dir = tempfile::tempdir().unwrap();
    let (definition, store) = define("machine-secret");
    let app = app_defining(definition, dir.path(), store.clone()).await;
    wait_state(&app, |s| matches!(s, ServerState::Running { .. })).await;
    let me = app.call_tool(call("whoami"), |_| true).await.unwrap();
    assert_eq!(first_text(&me), "signed in as machine-client");
    let info = app.sign_in_info(protected()).await.unwrap().unwrap();
    assert!(info.scopes.iter().any(|s| s == "mcp:tools"), "{info:?}");
    assert_eq!(machine_requests(&server.url).await, 1);
    app.shutdown().await;

    let dir = tempfile::tempdir().unwrap();
    let (definition, store) = define("not-the-secret");
    let app = app_defining(definition, dir.path(), store).await;
    let failed = wait_state(&app, |s| matches!(s, ServerState::Failed { .. })).await;
    let ServerState::Failed { error } = failed else {
        unreachable!()
    };
    assert_eq!(error.code, ErrorCode::SignInRefused, "{}", error.message);
    assert!(
        error.message.contains("invalid_client"),
        "{}",
        error.message
    );
    assert_eq!(
        machine_requests(&server.url).await,
        2,
        "asked again after a refusal"
    );
    app.shutdown().await;
}
