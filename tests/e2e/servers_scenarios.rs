//! What a new user tripped over on the Servers screen (issue 33): a hand edit of the config file
//! while the app runs, an untrusted server's Start and Restart, and importing from where another host keeps
//! its file.

use serde_json::{Value, json};

use super::desktop::Desktop;
use super::{SHORT, row};

fn on_disk(desktop: &Desktop) -> Value {
    let text = std::fs::read_to_string(&desktop.config_file).expect("read the config file");
    serde_json::from_str(&text).expect("the config file is JSON")
}

fn write(desktop: &Desktop, config: &Value) {
    let text = serde_json::to_string_pretty(config).expect("json");
    std::fs::write(&desktop.config_file, text).expect("write the config file");
}

/// Waits until nothing matches `css` (the window dropped it).
async fn gone(desktop: &Desktop, css: &str) {
    for _ in 0..200 {
        if desktop.session.all(css).await.is_empty() {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("{css} is still shown");
}

/// A server added and changed in an editor while the app runs is picked up, and a save from the
/// window (a root) keeps it; a file broken in the editor is said so on every screen, and nothing
/// is written over it.
pub async fn a_hand_edit_is_never_lost(desktop: &Desktop) {
    let s = &desktop.session;
    s.click_css("[data-testid=nav-servers]").await;
    let before = on_disk(desktop);
    let mut config = before.clone();
    config["mcpServers"]["edited"] = json!({"command": "/bin/true", "args": ["--by-hand"]});
    write(desktop, &config);
    s.wait_for(&row("edited", "needsTrust"), SHORT).await;

    // Changed again just before the window saves a root: both are in the file.
    config["mcpServers"]["edited"]["args"] = json!(["--by-hand", "--twice"]);
    write(desktop, &config);
    let folder = desktop.workspace.join("kept");
    std::fs::create_dir_all(&folder).expect("folder");
    let folder = folder.display().to_string();
    s.click_css("[data-testid=nav-roots]").await;
    s.type_into("[data-testid=root-path]", &folder).await;
    s.click_css("[data-testid=root-add]").await;
    desktop
        .answer_native_dialog("Trust servers with new roots", true)
        .await;
    let item = format!("[data-testid=root-item][data-path=\"{folder}\"]");
    s.wait_for(&item, SHORT).await;
    let saved = on_disk(desktop);
    assert_eq!(
        saved["mcpServers"]["edited"]["args"],
        json!(["--by-hand", "--twice"])
    );
    assert!(saved["roots"].to_string().contains(&folder), "{saved}");

    // Broken in the editor: said on every screen; removing the root saves nothing over it.
    let broken = "{\n  \"mcpServers\": {\n";
    std::fs::write(&desktop.config_file, broken).expect("write");
    s.wait_text("[data-testid=config-problem]", SHORT, |t| {
        t.contains("line 3")
    })
    .await;
    desktop.screenshot("config-problem.png").await;
    s.click_css(&format!("{item} [data-testid=root-remove]"))
        .await;
    s.wait_text("[data-testid=error-banner]", SHORT, |t| {
        t.contains("nothing was saved")
    })
    .await;
    assert_eq!(
        std::fs::read_to_string(&desktop.config_file).unwrap(),
        broken
    );

    // Fixed in the editor (as it was before this scenario, with the root the servers were
    // trusted with since): the banner and the server go.
    let mut fixed = before;
    fixed["roots"] = saved["roots"].clone();
    write(desktop, &fixed);
    gone(desktop, "[data-testid=config-problem]").await;
    s.click_css("[data-testid=nav-servers]").await;
    gone(desktop, "[data-testid=server-row][data-name=\"edited\"]").await;
}

/// Start and Restart on a server that waits for trust each say why they do nothing (each on its
/// own card: opening another server and coming back shows no old error).
pub async fn an_untrusted_start_says_why(desktop: &Desktop) {
    let s = &desktop.session;
    s.click_css("[data-testid=nav-servers]").await;
    for button in ["server-start", "server-restart"] {
        s.click_css(&row("imported", "needsTrust")).await;
        s.wait_text(".server-header h2", SHORT, |t| t == "imported")
            .await;
        gone(desktop, "[data-testid=error-banner]").await;
        s.click_css(&format!("[data-testid={button}]")).await;
        s.wait_text("[data-testid=error-banner]", SHORT, |t| {
            t.contains("not trusted yet")
        })
        .await;
        s.wait_for(&row("imported", "needsTrust"), SHORT).await;
        s.click_css("[data-testid=server-row][data-name=\"everything\"]")
            .await;
        s.wait_text(".server-header h2", SHORT, |t| t == "everything")
            .await;
    }
}

/// The import panel offers Claude Desktop's file where Claude Desktop keeps it; importing lists
/// the server beside the panel at once, and Import cannot be pressed again.
pub async fn import_from_where_claude_keeps_it(desktop: &Desktop) {
    let s = &desktop.session;
    let claude = desktop.xdg_config.join("Claude");
    std::fs::create_dir_all(&claude).expect("Claude's folder");
    let found = json!({"mcpServers": {"found": {"command": "/bin/true", "args": ["--found", "two words"]}}});
    std::fs::write(claude.join("claude_desktop_config.json"), found.to_string()).expect("write");
    s.click_css("[data-testid=nav-servers]").await;
    s.click_css("button[data-testid=import-server]").await;
    s.click_css("[data-testid=import-candidate][data-app=\"Claude Desktop\"]")
        .await;
    s.wait_text("tr[data-testid=import-server]", SHORT, |t| {
        t.contains("found") && t.contains("\"--found\"\"two words\"")
    })
    .await;
    s.click_css("[data-testid=import-apply]").await;
    s.wait_text("[data-testid=import-report]", SHORT, |t| {
        t.contains("Added found")
    })
    .await;
    s.wait_for(&row("found", "needsTrust"), SHORT).await;
    s.wait_for("[data-testid=import-apply][disabled]", SHORT)
        .await;
    desktop.screenshot("import-found.png").await;
    s.click_css("[data-testid=import-report] button").await;
}

/// The app is started again while it runs (a second click on its icon): the second launch hands
/// over to the first and ends, so no second host spawns every server again; the window goes on.
pub async fn a_second_launch_hands_over_to_the_first(desktop: &Desktop) {
    let s = &desktop.session;
    s.click_css("[data-testid=nav-servers]").await;
    assert_eq!(desktop.app_processes(), 1);
    let status = desktop.launch_again().await;
    assert!(status.success(), "the second launch failed: {status}");
    assert_eq!(desktop.app_processes(), 1, "a second host kept running");
    s.click_css("[data-testid=nav-tools]").await;
    s.wait_for("[data-testid=server-picker]", SHORT).await;
}
