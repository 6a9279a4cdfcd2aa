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
    // Left as found: no search narrowing the list for the scenarios after, which pick tools
    // from the whole list.
    s.type_into("[data-testid=tool-search]", "").await;
    s.wait_for(
        "[data-testid=tool-item][data-name=trigger-sampling-request]",
        SHORT,
    )
    .await;
}

/// The window reloads while a server's sampling request waits for the person: the request is
/// still there, as the server sent it (an edit that was never sent is gone), the call that was
/// in flight is not made a second time (the web view sends it again on a reload), and deciding
/// the request after the reload ends it for the server.
pub async fn an_open_request_survives_a_reload(d: &crate::desktop::Desktop) {
    let s = &d.session;
    open_tool(s, "everything", "trigger-sampling-request").await;
    s.type_into("[data-testid=arg-prompt]", "Survive a reload")
        .await;
    s.click_css("[data-testid=call-tool]").await;
    let dialog = "[data-testid=review-dialog][data-kind=sampling_request]";
    s.wait_for(dialog, SHORT).await;
    let prompt = "[data-testid=sampling-message-0-0]";
    let value = |e| async move { s.script_on("return arguments[0].value", &e).await };
    let sent = value(s.wait_for(prompt, SHORT).await).await;
    assert_eq!(
        sent,
        json!("Resource trigger-sampling-request context: Survive a reload")
    );
    s.type_into(prompt, "an edit never sent").await;
    s.reload().await;
    s.wait_for(dialog, SHORT).await;
    assert_eq!(value(s.wait_for(prompt, SHORT).await).await, sent);
    s.click_css("[data-testid=review-deny]").await;
    let deadline = std::time::Instant::now() + SHORT;
    while !s.all("[data-testid=review-dialog]").await.is_empty() {
        let shown = s
            .script("return document.body.innerText.slice(0, 600)", json!([]))
            .await;
        assert!(
            std::time::Instant::now() < deadline,
            "a request stayed open (was the call made twice?): {shown}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(150)).await;
    }
    // The server asked once: one sampling request in the log for this prompt.
    let audit = switchboard_policy::audit::Audit::new(std::sync::Arc::new(
        switchboard_base::store::Store::open(&d.data_dir).expect("the app's database"),
    ));
    let calls = audit
        .search(&switchboard_policy::audit::AuditQuery {
            text: Some("Survive a reload".into()),
            ..Default::default()
        })
        .expect("audit rows")
        .into_iter()
        .filter(|r| {
            r.kind == switchboard_policy::audit::FlowKind::ToolCall
                && r.step == switchboard_policy::audit::Step::Requested
        })
        .count();
    assert_eq!(calls, 1, "the call was made again after the reload");
}
