//! The loopback proxy a sandboxed server limited to listed hosts reaches the network through.
//! The box lets it open TCP connections only to this proxy's port; the proxy accepts
//! `CONNECT host:port` for a listed host (exactly, or `*.example.com` for its subdomains),
//! resolves and dials it from the host, and then only copies bytes. Anything else is answered
//! 403 and, for a host that is not listed, remembered so the server's card can offer to allow it.
//! Plain-HTTP requests (absolute-form) are refused: on a kept-alive proxy connection each request
//! could name another host, and checking them would mean parsing every one.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

/// The longest request head read.
const MAX_HEAD: usize = 8 * 1024;
/// How long a client has to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// Connections served at once.
const MAX_CONNECTIONS: usize = 64;
/// Refused hosts remembered per server.
const MAX_REFUSED: usize = 32;

/// The hosts a proxy refused, newest last; shared with whoever shows them.
#[derive(Debug, Clone, Default)]
pub struct RefusedHosts(Arc<Mutex<Vec<String>>>);

impl RefusedHosts {
    /// The refused hosts, oldest first.
    pub fn list(&self) -> Vec<String> {
        self.0.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// Records `host`; whether it is new.
    fn record(&self, host: &str) -> bool {
        let Ok(mut list) = self.0.lock() else {
            return false;
        };
        if list.iter().any(|h| h == host) {
            return false;
        }
        if list.len() == MAX_REFUSED {
            list.remove(0);
        }
        list.push(host.to_owned());
        true
    }
}

/// A running proxy; it stops when dropped.
#[derive(Debug)]
pub struct HostProxy {
    port: u16,
    stop: CancellationToken,
}

impl Drop for HostProxy {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// What the proxy lets through and where it reports.
#[derive(Clone)]
struct Rules {
    hosts: Arc<Vec<String>>,
    refused: RefusedHosts,
    /// Told of each newly refused host.
    on_refused: Arc<dyn Fn(&str) + Send + Sync>,
    slots: Arc<tokio::sync::Semaphore>,
}

impl HostProxy {
    /// Starts a proxy on 127.0.0.1 for `hosts`, recording refusals in `refused` and telling
    /// `on_refused` of each new one.
    pub async fn start(
        hosts: Vec<String>,
        refused: RefusedHosts,
        on_refused: impl Fn(&str) + Send + Sync + 'static,
    ) -> std::io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", 0)).await?;
        let port = listener.local_addr()?.port();
        let stop = CancellationToken::new();
        let rules = Rules {
            hosts: Arc::new(hosts.iter().map(|h| h.to_ascii_lowercase()).collect()),
            refused,
            on_refused: Arc::new(on_refused),
            slots: Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS)),
        };
        tokio::spawn(serve(listener, rules, stop.clone()));
        Ok(Self { port, stop })
    }

    /// The port the box may connect to.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The variables that point a server's HTTP clients at the proxy.
    pub fn env(&self) -> Vec<(String, String)> {
        let url = format!("http://127.0.0.1:{}", self.port);
        [
            "HTTP_PROXY",
            "HTTPS_PROXY",
            "ALL_PROXY",
            "http_proxy",
            "https_proxy",
            "all_proxy",
        ]
        .into_iter()
        .map(|k| (k.to_owned(), url.clone()))
        .chain(["NO_PROXY", "no_proxy"].map(|k| (k.to_owned(), String::new())))
        .collect()
    }
}

async fn serve(listener: TcpListener, rules: Rules, stop: CancellationToken) {
    loop {
        let accepted = tokio::select! {
            _ = stop.cancelled() => return,
            accepted = listener.accept() => accepted,
        };
        let Ok((client, _)) = accepted else { continue };
        let Ok(slot) = rules.slots.clone().try_acquire_owned() else {
            continue; // Dropping the client closes it: too many at once.
        };
        let (rules, stop) = (rules.clone(), stop.clone());
        tokio::spawn(async move {
            tokio::select! {
                _ = stop.cancelled() => {}
                _ = handle(client, &rules) => {}
            }
            drop(slot);
        });
    }
}

/// One client connection: its request head, then a tunnel or a refusal.
async fn handle(mut client: TcpStream, rules: &Rules) {
    let Ok(Ok(head)) = tokio::time::timeout(HEAD_TIMEOUT, read_head(&mut client)).await else {
        return;
    };
    let Some((host, port)) = connect_target(&head) else {
        let _ = client
            .write_all(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            .await;
        return;
    };
    if !allowed(&rules.hosts, &host) {
        if rules.refused.record(&host) {
            (rules.on_refused)(&host);
        }
        let _ = client
            .write_all(b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            .await;
        return;
    }
    let Ok(mut upstream) = TcpStream::connect((host.as_str(), port)).await else {
        let _ = client
            .write_all(
                b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            )
            .await;
        return;
    };
    if client
        .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
        .await
        .is_ok()
    {
        let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
    }
}

/// Reads up to the blank line that ends a request head (nothing after it: a CONNECT client
/// waits for the answer before it sends more).
async fn read_head(client: &mut TcpStream) -> std::io::Result<String> {
    let mut head = Vec::with_capacity(512);
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && !head.ends_with(b"\n\n") {
        if head.len() >= MAX_HEAD || client.read(&mut byte).await? == 0 {
            return Err(std::io::ErrorKind::InvalidData.into());
        }
        head.push(byte[0]);
    }
    Ok(String::from_utf8_lossy(&head).into_owned())
}

/// The host and port of a `CONNECT host:port HTTP/1.x` head, host lowercased (IPv6 in brackets).
fn connect_target(head: &str) -> Option<(String, u16)> {
    let mut words = head.lines().next()?.split_whitespace();
    if words.next()? != "CONNECT" {
        return None;
    }
    let authority = words.next()?;
    let (host, port) = authority.rsplit_once(':')?;
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.is_empty() {
        return None;
    }
    Some((host.to_ascii_lowercase(), port.parse().ok()?))
}

/// Whether `host` is listed, exactly or under a `*.` wildcard (which does not match the bare
/// domain).
fn allowed(hosts: &[String], host: &str) -> bool {
    hosts.iter().any(|listed| match listed.strip_prefix("*.") {
        Some(domain) => host
            .strip_suffix(domain)
            .is_some_and(|sub| sub.ends_with('.') && sub.len() > 1),
        None => listed == host,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_connect_heads_name_a_target() {
        assert_eq!(
            connect_target("CONNECT API.example.com:443 HTTP/1.1\r\nHost: x\r\n\r\n"),
            Some(("api.example.com".into(), 443))
        );
        assert_eq!(
            connect_target("CONNECT [::1]:8443 HTTP/1.1\r\n\r\n"),
            Some(("::1".into(), 8443))
        );
        assert_eq!(
            connect_target("GET http://a.example/ HTTP/1.1\r\n\r\n"),
            None
        );
        assert_eq!(connect_target("CONNECT a.example HTTP/1.1\r\n\r\n"), None);
    }

    #[test]
    fn hosts_match_exactly_or_under_a_wildcard() {
        let hosts = vec!["api.github.com".to_owned(), "*.example.com".to_owned()];
        assert!(allowed(&hosts, "api.github.com"));
        assert!(!allowed(&hosts, "github.com"));
        assert!(!allowed(&hosts, "api.github.com.evil.net"));
        assert!(allowed(&hosts, "a.example.com"));
        assert!(!allowed(&hosts, "example.com"));
        assert!(!allowed(&hosts, "evilexample.com"));
    }

    async fn ask(port: u16, head: &str) -> String {
        let mut c = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        c.write_all(head.as_bytes()).await.unwrap();
        let mut answer = vec![0u8; 64];
        let n = c.read(&mut answer).await.unwrap();
        String::from_utf8_lossy(&answer[..n]).into_owned()
    }

    #[tokio::test]
    async fn a_listed_host_is_tunnelled_and_another_is_refused_and_remembered() {
        let upstream = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let up_port = upstream.local_addr().unwrap().port();
        tokio::spawn(async move {
            let (mut s, _) = upstream.accept().await.unwrap();
            s.write_all(b"hello from upstream").await.unwrap();
        });
        let refused = RefusedHosts::default();
        let told = Arc::new(Mutex::new(Vec::new()));
        let t = told.clone();
        let proxy = HostProxy::start(vec!["127.0.0.1".into()], refused.clone(), move |h| {
            t.lock().unwrap().push(h.to_owned())
        })
        .await
        .unwrap();
        let mut c = TcpStream::connect(("127.0.0.1", proxy.port()))
            .await
            .unwrap();
        c.write_all(format!("CONNECT 127.0.0.1:{up_port} HTTP/1.1\r\n\r\n").as_bytes())
            .await
            .unwrap();
        let mut all = Vec::new();
        c.read_to_end(&mut all).await.unwrap();
        let all = String::from_utf8_lossy(&all);
        assert!(all.starts_with("HTTP/1.1 200"), "{all}");
        assert!(all.ends_with("hello from upstream"), "{all}");

        for _ in 0..2 {
            let answer = ask(proxy.port(), "CONNECT evil.example:443 HTTP/1.1\r\n\r\n").await;
            assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
        }
        assert_eq!(refused.list(), vec!["evil.example".to_owned()]);
        assert_eq!(*told.lock().unwrap(), vec!["evil.example".to_owned()]);
        let answer = ask(proxy.port(), "GET http://127.0.0.1/ HTTP/1.1\r\n\r\n").await;
        assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
    }

    #[test]
    fn the_refused_list_is_bounded() {
        let r = RefusedHosts::default();
        for i in 0..100 {
            r.record(&format!("h{i}.example"));
        }
        assert_eq!(r.list().len(), MAX_REFUSED);
        assert_eq!(r.list().last().unwrap(), "h99.example");
    }
}
