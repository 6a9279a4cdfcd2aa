//! Local servers in the OS box. A hostile fixture (`box_probe.py`) tries what a sandboxed server
//! must not do, with `HOME` pointed at a temp directory holding a planted key; every refusal is
//! checked once more with the box off, where the same access must succeed. Real servers
//! (`server-everything`, `server-filesystem`, `server-memory`) run their tools in the box.

use std::path::{Path, PathBuf};

use serde_json::json;
use switchboard_base::config::{NetworkSetting, SandboxProfile, ServerConfig};
use switchboard_protocol::connection::{self, Live, Sandboxing};
use switchboard_sandbox::BoxPlace;

use crate::support::{Harness, first_text, npm_bin, python, python_fixture, stdio};

/// A home with a planted key, a data directory holding a stand-in for the host's database, and
/// one root.
struct World {
    home: PathBuf,
    data: PathBuf,
    root: PathBuf,
    _dir: tempfile::TempDir,
}

impl World {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let (home, data, root) = (base.join("home"), base.join("data"), base.join("root"));
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::write(home.join(".ssh/id_ed25519"), "PLANTED PRIVATE KEY").unwrap();
        std::fs::create_dir_all(&data).unwrap();
        std::fs::write(data.join("switchboard.db"), "THE HOST'S DATABASE").unwrap();
        std::fs::create_dir_all(&root).unwrap();
        World {
            home,
            data,
            root,
            _dir: dir,
        }
    }

    fn place(&self) -> BoxPlace {
        BoxPlace {
            dir: self.data.join("boxes"),
            home: Some(self.home.clone()),
            protected: vec![self.data.clone()],
            bundles: Some(self.data.join("bundles")),
        }
    }

    /// Connects `config` (with this world's HOME), in the box with `profile` or unboxed.
    async fn connect(&self, config: ServerConfig, profile: Option<SandboxProfile>) -> Live {
        let mut config = config;
        config
            .env
            .insert("HOME".into(), self.home.to_string_lossy().into_owned());
        let h = Harness::new().with_roots(std::slice::from_ref(&self.root));
        let mut opts = h.options("probe", config);
        opts.sandbox = profile.map(|profile| Sandboxing {
            place: self.place(),
            profile,
        });
        connection::connect(opts)
            .await
            .unwrap_or_else(|e| panic!("connect: {e}"))
    }
}

fn probe() -> ServerConfig {
    stdio(&python(), &[&python_fixture("box_probe.py")])
}

async fn call(live: &Live, tool: &str, args: serde_json::Value) -> String {
    let result = live.connection.call_tool(tool, Some(args)).await.unwrap();
    first_text(&result)
}

/// What the probe says for each attempt, boxed or not.
async fn attempts(w: &World, profile: Option<SandboxProfile>) -> Vec<(&'static str, String)> {
    let live = w.connect(probe(), profile).await;
    let key = w.home.join(".ssh/id_ed25519");
    let db = w.data.join("switchboard.db");
    let outside = w.home.join(".bashrc");
    let out = vec![
        (
            "read ~/.ssh",
            call(&live, "read_file", json!({"path": key})).await,
        ),
        (
            "read the database",
            call(&live, "read_file", json!({"path": db})).await,
        ),
        (
            "write outside its roots",
            call(&live, "write_file", json!({"path": outside, "text": "x"})).await,
        ),
        (
            "trace the host",
            call(&live, "trace", json!({"pid": std::process::id()})).await,
        ),
    ];
    live.shutdown().await;
    out
}

#[tokio::test]
async fn the_box_refuses_what_the_box_off_allows() {
    let w = World::new();
    for (what, said) in attempts(&w, Some(SandboxProfile::default())).await {
        assert!(said.starts_with("refused:"), "{what} in the box: {said}");
    }
    for (what, said) in attempts(&w, None).await {
        assert!(said.starts_with("ok:"), "{what} with the box off: {said}");
    }
}

#[tokio::test]
async fn in_the_box_it_does_what_its_profile_allows() {
    let w = World::new();
    let extra = w.home.join("shared");
    std::fs::create_dir_all(&extra).unwrap();
    let profile = SandboxProfile {
        write: vec![extra.clone()],
        ..SandboxProfile::default()
    };
    let live = w.connect(probe(), Some(profile)).await;
    for path in [w.root.join("in-root.txt"), extra.join("listed.txt")] {
        let said = call(&live, "write_file", json!({"path": path, "text": "hi"})).await;
        assert_eq!(said, "ok: written", "{}", path.display());
        let said = call(&live, "read_file", json!({"path": path})).await;
        assert_eq!(said, "ok: hi");
    }
    let said = call(&live, "read_file", json!({"path": "/etc/hostname"})).await;
    assert!(said.starts_with("ok:"), "{said}");
    live.shutdown().await;
}

#[tokio::test]
async fn network_off_refuses_loopback_and_on_allows_it() {
    let w = World::new();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let args = json!({"host": "127.0.0.1", "port": port});
    let off = SandboxProfile {
        network: NetworkSetting::Enabled(false),
        ..SandboxProfile::default()
    };
    let live = w.connect(probe(), Some(off)).await;
    let said = call(&live, "connect", args.clone()).await;
    assert!(said.starts_with("refused:"), "{said}");
    live.shutdown().await;
    let live = w.connect(probe(), Some(SandboxProfile::default())).await;
    assert_eq!(call(&live, "connect", args).await, "ok: connected");
    live.shutdown().await;
}

#[tokio::test]
async fn a_setuid_program_gains_nothing_in_the_box() {
    let uid = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata("/proc/self").unwrap());
    if uid != 0 {
        eprintln!("skipped: making a setuid program of another user needs root");
        return;
    }
    let w = World::new();
    let id = w.root.join("id");
    std::fs::copy("/usr/bin/id", &id).unwrap();
    std::os::unix::fs::chown(&id, Some(65534), Some(65534)).unwrap();
    std::fs::set_permissions(&id, std::os::unix::fs::PermissionsExt::from_mode(0o4755)).unwrap();
    let args = json!({"argv": [id, "-u"]});
    let live = w.connect(probe(), Some(SandboxProfile::default())).await;
    assert_eq!(
        call(&live, "run", args.clone()).await.trim(),
        "ok: exit 0: 0"
    );
    live.shutdown().await;
    let live = w.connect(probe(), None).await;
    assert_eq!(call(&live, "run", args).await.trim(), "ok: exit 0: 65534");
    live.shutdown().await;
}

#[tokio::test]
async fn server_everything_runs_in_the_box() {
    let w = World::new();
    let config = stdio(&npm_bin("mcp-server-everything"), &["stdio"]);
    let live = w.connect(config, Some(SandboxProfile::default())).await;
    let said = call(&live, "echo", json!({"message": "boxed"})).await;
    assert_eq!(said, "Echo: boxed");
    live.shutdown().await;
}

#[tokio::test]
async fn server_filesystem_works_within_its_roots_in_the_box() {
    let w = World::new();
    // Named on the command line too, so its first call need not wait for it to ask for roots.
    let root = w.root.to_string_lossy().into_owned();
    let config = stdio(&npm_bin("mcp-server-filesystem"), &[&root]);
    let live = w.connect(config, Some(SandboxProfile::default())).await;
    let file = w.root.join("note.txt");
    let wrote = live
        .connection
        .call_tool(
            "write_file",
            Some(json!({"path": file, "content": "written in the box"})),
        )
        .await
        .unwrap();
    assert_ne!(wrote.is_error, Some(true), "{}", first_text(&wrote));
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "written in the box"
    );
    let read = call(&live, "read_text_file", json!({"path": file})).await;
    assert_eq!(read, "written in the box");
    live.shutdown().await;
}

#[tokio::test]
async fn server_memory_keeps_its_store_in_its_state_directory() {
    let w = World::new();
    let store = w.place().state_dir("probe").join("memory.jsonl");
    let mut config = stdio(&npm_bin("mcp-server-memory"), &[]);
    config.env.insert(
        "MEMORY_FILE_PATH".into(),
        store.to_string_lossy().into_owned(),
    );
    let live = w.connect(config, Some(SandboxProfile::default())).await;
    let entity = json!({"entities": [{"name": "Ada", "entityType": "person", "observations": ["wrote the first program"]}]});
    let made = live
        .connection
        .call_tool("create_entities", Some(entity))
        .await
        .unwrap();
    assert_ne!(made.is_error, Some(true), "{}", first_text(&made));
    live.shutdown().await;
    let kept = std::fs::read_to_string(&store).unwrap();
    assert!(kept.contains("wrote the first program"), "{kept}");
    assert!(!Path::new(&w.home).join("memory.jsonl").exists());
}

/// A sandboxed server whose roots change is restarted in a box made for the new roots: told
/// only by a notification, server-filesystem would accept the new root and the OS would refuse it.
#[tokio::test]
async fn new_roots_restart_a_sandboxed_server_in_a_box_that_has_them() {
    let w = World::new();
    let second = w.home.join("second-root");
    std::fs::create_dir_all(&second).unwrap();
    let mut ctx = crate::support::host_context();
    ctx.sandbox = Some(w.place());
    let mut config = stdio(&npm_bin("mcp-server-filesystem"), &[]);
    config
        .env
        .insert("HOME".into(), w.home.to_string_lossy().into_owned());
    let handle =
        switchboard_core::servers::ServerHandle::spawn("fs", config, vec![w.root.clone()], &ctx);
    let first = handle
        .wait_running(std::time::Duration::from_secs(30))
        .await
        .unwrap();
    let mut state = handle.watch_state();
    handle
        .set_roots(std::slice::from_ref(&second))
        .await
        .unwrap();
    // A new connection: the old one ended with its process.
    let again = loop {
        state.changed().await.unwrap();
        if let Some(c) = state.borrow_and_update().connection()
            && !c.same_as(&first)
        {
            break c.clone();
        }
    };
    assert!(
        handle.stderr().iter().any(|l| l.contains("new roots")),
        "{:?}",
        handle.stderr()
    );
    let file = second.join("after.txt");
    let mut wrote = None;
    // It asks for roots after starting; until it has, the new root is not yet its own.
    for _ in 0..100 {
        let r = again
            .call_tool(
                "write_file",
                Some(json!({"path": file, "content": "in the new root"})),
            )
            .await
            .unwrap();
        if r.is_error != Some(true) {
            wrote = Some(r);
            break;
        }
        assert!(
            first_text(&r).contains("outside allowed"),
            "{}",
            first_text(&r)
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(wrote.is_some(), "never wrote into the new root");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "in the new root");
    handle.stop().await.unwrap();
}

/// Limited to listed hosts: the box reaches only Switchboard's proxy, which tunnels to a listed
/// host, refuses another and remembers it for the card, and nothing goes around it.
#[tokio::test]
async fn listed_hosts_go_through_the_proxy_and_others_are_refused_and_named() {
    let w = World::new();
    let upstream = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = upstream.local_addr().unwrap().port();
    let profile = SandboxProfile {
        network: NetworkSetting::Hosts(vec!["127.0.0.1".into()]),
        ..SandboxProfile::default()
    };
    let mut config = probe();
    config
        .env
        .insert("HOME".into(), w.home.to_string_lossy().into_owned());
    let h = Harness::new();
    let mut opts = h.options("probe", config);
    opts.sandbox = Some(Sandboxing {
        place: w.place(),
        profile,
    });
    let refused = opts.refused_hosts.clone();
    let live = connection::connect(opts).await.unwrap();
    let said = call(&live, "tunnel", json!({"host": "127.0.0.1", "port": port})).await;
    assert!(said.starts_with("ok: HTTP/1.1 200"), "{said}");
    let said = call(&live, "tunnel", json!({"host": "localhost", "port": port})).await;
    assert!(said.starts_with("refused: HTTP/1.1 403"), "{said}");
    assert_eq!(refused.list(), vec!["localhost".to_owned()]);
    assert!(
        h.stderr
            .lines()
            .iter()
            .any(|l| l.contains("refused a connection to localhost")),
        "{:?}",
        h.stderr.lines()
    );
    let direct = call(&live, "connect", json!({"host": "127.0.0.1", "port": port})).await;
    assert!(direct.starts_with("refused:"), "{direct}");
    live.shutdown().await;
}

/// `npx -y pkg@version` in the box: npm fetches the package into the box's own cache (not the
/// user's `~/.npm`, whose packages unboxed programs run) and runs it.
#[tokio::test]
async fn npx_fetches_and_runs_a_server_in_the_box() {
    let w = World::new();
    let config = stdio(
        "npx",
        &["-y", "@modelcontextprotocol/server-memory@2026.8.31"],
    );
    let live = w.connect(config, Some(SandboxProfile::default())).await;
    let graph = call(&live, "read_graph", json!({})).await;
    assert!(graph.contains("entities"), "{graph}");
    live.shutdown().await;
    let own = w
        .place()
        .spec("probe", SandboxProfile::default(), vec![])
        .unwrap()
        .cache_dir;
    assert!(
        own.join("npm/_npx").is_dir(),
        "npm's cache is the box's own"
    );
    assert!(
        !w.home.join(".npm").exists(),
        "the user's npm cache is untouched"
    );
}

/// `python -m module` from a working directory: the box grants what the command names.
#[tokio::test]
async fn python_m_runs_a_module_from_its_working_directory_in_the_box() {
    let w = World::new();
    let mut config = stdio(&python(), &["-m", "box_probe"]);
    config.cwd = Some(
        PathBuf::from(python_fixture("box_probe.py"))
            .parent()
            .unwrap()
            .to_path_buf(),
    );
    let live = w.connect(config, Some(SandboxProfile::default())).await;
    let said = call(&live, "read_file", json!({"path": "~/.ssh/id_ed25519"})).await;
    assert!(said.starts_with("refused:"), "{said}");
    live.shutdown().await;
}

/// A plain native binary (the rmcp fixture server) in the box.
#[tokio::test]
async fn a_plain_binary_runs_in_the_box() {
    let w = World::new();
    let live = w
        .connect(
            stdio(&crate::support::rmcp_fixture(), &[]),
            Some(SandboxProfile::default()),
        )
        .await;
    assert!(live.connection.sandboxed());
    let said = call(&live, "echo", json!({"text": "boxed"})).await;
    assert!(said.contains("boxed"), "{said}");
    live.shutdown().await;
}

/// `uvx ARGS…` with the fixtures' uv.
fn uvx(args: &[&str]) -> ServerConfig {
    let mut config = stdio(&crate::support::uvx_bin(), args);
    // The system's certificates (in the box's grants), not uv's own: where a proxy re-signs
    // TLS (as on the machines these tests run on), only the system trusts its authority.
    config.env.insert("UV_NATIVE_TLS".into(), "1".into());
    config
}

/// `uvx pkg==version` in the box: uv (installed with the fixtures) fetches the official time
/// server into its cache and runs it on the Python it finds.
#[tokio::test]
async fn uvx_fetches_and_runs_the_time_server_in_the_box() {
    let w = World::new();
    let config = uvx(&["mcp-server-time==2026.10.19"]);
    let live = w.connect(config, Some(SandboxProfile::default())).await;
    let said = call(&live, "get_current_time", json!({"timezone": "UTC"})).await;
    assert!(said.contains("UTC"), "{said}");
    live.shutdown().await;
    assert!(
        !w.home.join(".cache/uv").exists(),
        "uv's cache is the box's own, not the user's"
    );
}

/// `uvx mcp-server-fetch==version` in the box fetches a page from a server on this machine (the
/// network is on by default) and hands back its text.
#[tokio::test]
async fn uvx_runs_the_fetch_server_in_the_box() {
    let page = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!(
        "http://127.0.0.1:{}/page",
        page.local_addr().unwrap().port()
    );
    tokio::spawn(async move {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        while let Ok((mut s, _)) = page.accept().await {
            let mut head = [0u8; 2048];
            let n = s.read(&mut head).await.unwrap_or(0);
            let asked = String::from_utf8_lossy(&head[..n]).into_owned();
            let (status, body) = if asked.starts_with("GET /page") {
                (
                    "200 OK",
                    "<html><body><p>Fetched from inside the box.</p></body></html>",
                )
            } else {
                ("404 Not Found", "")
            };
            let answer = format!(
                "HTTP/1.1 {status}\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = s.write_all(answer.as_bytes()).await;
        }
    });
    let w = World::new();
    // The page is on this machine, which the server refuses unless told.
    let config = uvx(&["mcp-server-fetch==2026.10.24", "--allow-private-ips"]);
    let live = w.connect(config, Some(SandboxProfile::default())).await;
    // Raw: a page this small has nothing for its readability extraction to keep.
    let said = call(&live, "fetch", json!({"url": url, "raw": true})).await;
    assert!(said.contains("Fetched from inside the box."), "{said}");
    live.shutdown().await;
}
