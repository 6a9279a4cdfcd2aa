//! Signing in to an OAuth-protected server built on the Python SDK's auth support
//! (tests/fixtures/python/oauth_server.py, its own authorization server): the first connection is
//! refused with a challenge, the sign-in goes through the loopback listener with a "browser" that
//! follows the authorization server's redirect, the tokens land in the secret store, the next
//! connection calls a tool with them, and signing out brings the refusal back.

use std::process::Stdio;
use std::sync::Arc;

use switchboard_core::auth::loopback::{Loopback, Open};
use switchboard_core::auth::{self, ClientIdentity};
use switchboard_core::config::ServerConfig;
use switchboard_core::connection;
use switchboard_core::secrets::{MemoryStore, SecretStore};
use switchboard_core::{Error, ErrorCode};
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
