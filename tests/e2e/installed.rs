//! The installed package, as a person who installed the .deb meets it: its files where a desktop
//! looks for them, a server added with the installed `switchboard-cli`, and the installed app's
//! window listing that server running. `scripts/package-test.sh` builds the debug .deb, installs
//! it with `dpkg -i`, runs this, and removes the package again.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::desktop::{self, must_exist, start_driver, start_xvfb};
use crate::webdriver::Session;
use crate::{LONG, row};

/// Where the package put its binaries (`SWITCHBOARD_INSTALLED_BIN`, /usr/bin by default).
fn bin_dir() -> PathBuf {
    std::env::var_os("SWITCHBOARD_INSTALLED_BIN").map_or_else(|| "/usr/bin".into(), PathBuf::from)
}

/// The desktop entry and icon the package installs, and the command the entry starts.
fn desktop_entry_starts(app: &Path) {
    let share = bin_dir().join("../share");
    let entries = share.join("applications");
    let entry = std::fs::read_dir(&entries)
        .expect("the package's applications folder")
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("Switchboard"))
        })
        .expect("a Switchboard desktop entry");
    let text = std::fs::read_to_string(&entry).expect("read the desktop entry");
    let exec = text
        .lines()
        .find_map(|l| l.strip_prefix("Exec="))
        .expect("an Exec= line");
    let name = app.file_name().expect("app name").to_string_lossy();
    assert!(
        exec.split_whitespace().next() == Some(&*name),
        "the desktop entry starts {exec:?}, not {name}"
    );
    // It opens MCP Bundles and install links: the file and the link reach the app.
    assert!(
        exec.ends_with(" %U"),
        "the desktop entry passes no file or link: {exec:?}"
    );
    let mime = text
        .lines()
        .find_map(|l| l.strip_prefix("MimeType="))
        .expect("a MimeType= line");
    for handled in ["application/x-mcpb", "x-scheme-handler/switchboard"] {
        assert!(
            mime.split(';').any(|m| m == handled),
            "{handled} not in {mime:?}"
        );
    }
    let icon = text
        .lines()
        .find_map(|l| l.strip_prefix("Icon="))
        .expect("an Icon= line");
    let icons = share.join("icons/hicolor/128x128/apps");
    must_exist(icons.join(format!("{icon}.png")), "the package's icon");
}

/// Runs the installed CLI with this run's config and data directories.
fn cli(home: &Path, args: &[&str]) -> std::process::Output {
    let out = std::process::Command::new(bin_dir().join("switchboard-cli"))
        .args(args)
        .env("SWITCHBOARD_CONFIG", home.join("switchboard.json"))
        .env("SWITCHBOARD_DATA_DIR", home.join("data"))
        .output()
        .expect("run the installed switchboard-cli");
    assert!(
        out.status.success(),
        "switchboard-cli {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Adds the fixture server through the installed CLI: imported from a Claude Desktop config,
/// then trusted, as a person scripting their setup would.
fn add_server(home: &Path, fixture: &Path) {
    let import = home.join("claude_desktop_config.json");
    let servers = serde_json::json!({"mcpServers": {"packaged": {"command": fixture}}});
    std::fs::write(&import, servers.to_string()).expect("write the file to import");
    cli(home, &["import", &import.display().to_string()]);
    cli(home, &["trust", "packaged", "--yes"]);
    let listed = cli(home, &["servers"]);
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.contains("\"packaged\""), "the CLI lists {listed}");
}

pub async fn the_installed_package_runs() {
    let app = must_exist(
        bin_dir().join("switchboard"),
        "install the package: scripts/package-test.sh",
    );
    desktop_entry_starts(&app);
    // The fixture server is the test's own (built beside this test), not the package's.
    let profile_dir = PathBuf::from(env!("CARGO_BIN_EXE_switchboard"))
        .parent()
        .expect("target dir")
        .to_path_buf();
    let fixture = must_exist(
        profile_dir.join("examples/fixture_server"),
        "cargo build -p switchboard-core --example fixture_server",
    );
    let home = tempfile::tempdir().expect("temp dir");
    add_server(home.path(), &fixture);

    let (mut xvfb, display) = start_xvfb().await;
    let (mut driver, port) = start_driver(display, |d| {
        d.env("SWITCHBOARD_CONFIG", home.path().join("switchboard.json"))
            .env("SWITCHBOARD_DATA_DIR", home.path().join("data"))
            .env("XDG_CONFIG_HOME", home.path().join("xdg-config"))
            .env("XDG_CACHE_HOME", home.path().join("xdg-cache"))
            .env("XDG_DATA_HOME", home.path().join("xdg-data"));
    })
    .await;
    let session = Session::start(port, &app.display().to_string()).await;
    session.wait_for(&row("packaged", "running"), LONG).await;
    assert!(
        desktop::visible_window(display, "Switchboard").is_some(),
        "no visible window titled Switchboard"
    );
    session.settle().await;
    let shots = desktop::screenshots_dir(&profile_dir);
    desktop::save_screen(display, &shots, "installed-package.png");
    session.end().await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    let _ = driver.kill().await;
    let _ = xvfb.kill().await;
}
