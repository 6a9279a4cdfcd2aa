//! Scenarios for the argument forms and the Tools screen (issue 33): an enum's first choice can be
//! chosen, and the Tools screen still has what was typed after another screen was shown.

use serde_json::json;

use crate::{SHORT, open_tool};

/// server-everything's `get-structured-content` takes a required `location` enum with no default:
/// its first choice, New York, is chosen with a click on the option and the call goes through.
pub async fn enum_first_option(d: &crate::desktop::Desktop) {
    let s = &d.session;
    open_tool(s, "everything", "get-structured-content").await;
    let location = s.wait_for("[data-testid=arg-location]", SHORT).await;
    // Nothing is chosen yet, and the select says so rather than showing New York.
    assert_eq!(
        s.script_on("return arguments[0].value", &location).await,
        json!("")
    );
    assert!(
        s.all("[data-testid=call-tool]:not([disabled])")
            .await
            .is_empty(),
        "Call can be pressed before a location is chosen"
    );
    s.wait_text("[data-testid=call-needs]", SHORT, |t| {
        t.contains("is required")
    })
    .await;
    // A click on the option, as a person picks it: a choice already shown as picked would fire
    // no change (the bug), which the `select` helper's scripted change event would hide.
    s.click_css("[data-testid=arg-location] option[value=\"New York\"]")
        .await;
    assert_eq!(
        s.script_on("return arguments[0].value", &location).await,
        json!("New York")
    );
    s.click_css("[data-testid=call-tool]:not([disabled])").await;
    let result = s
        .wait_text("[data-testid=tool-result]", SHORT, |t| t.contains("Cloudy"))
        .await;
    assert!(result.contains("33"), "{result}");
    let page = s.script("return document.body.innerText", json!([])).await;
    assert!(
        !page.as_str().unwrap_or_default().contains("is required"),
        "a required message stayed: {page}"
    );
    d.screenshot("tools-enum.png").await;
}

/// What was typed for echo, the search and a call's result are still there after the Servers
/// screen was shown (the Tools screen is unmounted meanwhile).
pub async fn tools_screen_remembers(d: &crate::desktop::Desktop) {
    let s = &d.session;
    open_tool(s, "everything", "echo").await;
    s.type_into("[data-testid=arg-message]", "still here").await;
    s.type_into("[data-testid=tool-search]", "echo").await;
    s.click_css("[data-testid=nav-servers]").await;
    s.wait_for("[data-testid=add-server]", SHORT).await;
    assert!(s.all("[data-testid=arg-message]").await.is_empty());

    s.click_css("[data-testid=nav-tools]").await;
    let message = s.wait_for("[data-testid=arg-message]", SHORT).await;
    assert_eq!(
        s.script_on("return arguments[0].value", &message).await,
        json!("still here")
    );
    let search = s.wait_for("[data-testid=tool-search]", SHORT).await;
    assert_eq!(
        s.script_on("return arguments[0].value", &search).await,
        json!("echo")
    );

    // A call whose result may come while another screen is shown: it is there on return.
    s.click_css("[data-testid=call-tool]:not([disabled])").await;
    s.click_css("[data-testid=nav-servers]").await;
    s.wait_for("[data-testid=add-server]", SHORT).await;
    s.click_css("[data-testid=nav-tools]").await;
    s.wait_text("[data-testid=tool-result]", SHORT, |t| {
        t.contains("Echo: still here")
    })
    .await;
    // Left as found: no search narrowing the list for the scenarios after.
    s.type_into("[data-testid=tool-search]", "").await;
}
