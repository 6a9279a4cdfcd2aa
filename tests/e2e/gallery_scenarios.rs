//! The gallery as a person uses it: search a registry (a loopback one speaking the MCP
//! Registry's API, serving the fixture `server.json` documents), install a server from it with
//! its definition trusted in the native dialog, and call one of its tools.

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
