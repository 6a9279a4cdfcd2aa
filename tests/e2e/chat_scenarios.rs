//! Chat scenarios of issue 33, with the keyless manual provider (the person writes the model's
//! answers in the approval dialog): a call whose arguments the person edited shows what was sent;
//! on a first chat the tools the model will not be offered can be reviewed before the dialog
//! covers the window, one of them approved alone.
//!
//! Order among the other scenarios: after `servers_and_tools` (which adds `everything`) and
//! before `approvals_pins_and_rules`, whose "always allow" rule for echo would let the model's
//! echo run without the call's review (then there is nothing to edit).

use serde_json::json;

use crate::desktop::Desktop;
use crate::webdriver::Session;
use crate::{LONG, SHORT, answer_as_model, approve_review, send_in_chat};

/// A new chat with the manual provider: the person is the model.
async fn new_manual_chat(s: &Session) {
    s.click_css("[data-testid=nav-chat]").await;
    s.click_css("[data-testid=new-chat]").await;
    s.select("[data-testid=chat-model]", "manual/manual").await;
}

/// Sends `message` to the manual model and, as the model, opens the answer's tool picker.
async fn send_and_open_tool_picker(s: &Session, message: &str) {
    send_in_chat(s, message).await;
    s.wait_for(
        "[data-testid=review-dialog][data-kind=sampling_completion]",
        SHORT,
    )
    .await;
    s.click_css("[data-testid=completion-tool-open]").await;
}

/// Approves `item` of `server` alone (with the server's instructions when they are not approved
/// yet) on the Approvals screen, unless it is approved already.
async fn approve_alone(s: &Session, server: &str, item: &str) {
    s.click_css("[data-testid=nav-approvals]").await;
    s.select(
        "[data-testid=pins-panel] [data-testid=server-picker]",
        server,
    )
    .await;
    // The panel keeps the server shown before until the picked one's definitions arrive.
    s.settle().await;
    s.wait_text("[data-testid=pins-panel]", SHORT, |t| {
        t.contains(item) || t.contains("are approved as they are")
    })
    .await;
    let css = format!("[data-testid=pins-panel] [data-testid=pin-item][data-item=\"{item}\"]");
    if s.all(&css).await.is_empty() {
        return;
    }
    if let Some(only) = s
        .all(&format!("{css} [data-testid=pin-only]"))
        .await
        .first()
    {
        s.click(only).await;
    }
    s.click_css("[data-testid=pins-panel] [data-testid=pins-approve]:not([disabled])")
        .await;
    s.wait_text("[data-testid=pins-panel]", SHORT, |t| {
        t.contains("approved and pinned")
    })
    .await;
}

/// The text of the first element matching `css`, hidden parts (closed details) included.
async fn text_content(s: &Session, css: &str) -> String {
    s.script(
        "const e = document.querySelector(arguments[0]); return e ? e.textContent : null",
        json!([css]),
    )
    .await
    .as_str()
    .unwrap_or_default()
    .to_owned()
}

/// The items the pins panel in the chat has ticked.
async fn chosen_in_chat(s: &Session) -> Vec<String> {
    let v = s
        .script(
            "return [...document.querySelectorAll('[data-testid=chat-pins] [data-testid=pin-item]')]
               .filter(i => i.querySelector('[data-testid=pin-choose]').checked)
               .map(i => i.dataset.item)",
            json!([]),
        )
        .await;
    serde_json::from_value(v).unwrap_or_default()
}

/// The number of tools the chat's note says the model is (or will be) not offered.
async fn withheld_count(s: &Session) -> usize {
    let e = s.wait_for("[data-testid=chat-withheld]", SHORT).await;
    let n = s.script_on("return arguments[0].dataset.count", &e).await;
    n.as_str()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("the note has no count: {n}"))
}

/// The model (the person, with the manual provider) calls everything's echo with
/// {"message":"hi"}; the person edits the arguments to "edited" in the call's review; the chat
/// shows the call as sent, says it was edited, keeps the model's proposal behind a toggle, and
/// says the same once the conversation is read back after a reload.
pub async fn chat_shows_edited_arguments(d: &Desktop) {
    let s = &d.session;
    approve_alone(s, "everything", "tool:echo").await;
    new_manual_chat(s).await;
    // Ask; then, as the model, call echo with {"message":"hi"}.
    send_and_open_tool_picker(s, "Please echo hi").await;
    s.select("[data-testid=completion-tool-pick]", "everything__echo")
        .await;
    s.type_into(
        "[data-testid=completion-tool-picker] [data-testid=arg-message]",
        "hi",
    )
    .await;
    s.click_css("[data-testid=completion-tool-add]:not([disabled])")
        .await;
    s.wait_for("[data-testid^=completion-tool-use-]", SHORT)
        .await;
    approve_review(s).await;

    // The call's review: the person changes the argument before approving.
    s.wait_for("[data-testid=review-dialog][data-kind=tool_call]", SHORT)
        .await;
    s.type_into("[data-testid=review-json]", r#"{"message": "edited"}"#)
        .await;
    approve_review(s).await;

    // As the model again, after the result: a last word ends the turn.
    answer_as_model(s, "Done.").await;
    s.wait_text("[data-testid=chat-messages]", SHORT, |t| {
        t.contains("Done.")
    })
    .await;

    let called = "[data-testid=chat-tool-use][data-state=called][data-edited=true]";
    let shown = s
        .wait_text(called, SHORT, |t| t.contains("edited by you"))
        .await;
    assert!(shown.contains(r#"{"message":"edited"}"#), "{shown}");
    // The model's proposal is behind a closed toggle (WebKit's element text includes it anyway).
    let open = s
        .script(
            "return document.querySelector(arguments[0]).open",
            json!([format!("{called} [data-testid=chat-tool-proposed]")]),
        )
        .await;
    assert_eq!(open, json!(false), "the proposal shows unasked: {shown}");
    assert!(
        text_content(s, "[data-testid=chat-tool-result]")
            .await
            .contains("Echo: edited"),
        "the edited call's result"
    );
    s.click_css("[data-testid=chat-tool-proposed] summary")
        .await;
    s.wait_text("[data-testid=chat-tool-proposed]", SHORT, |t| {
        t.contains(r#"{"message":"hi"}"#)
    })
    .await;
    d.screenshot("chat-edited-call.png").await;

    // Read back from the store after a reload: the same, from the call's result.
    let id = s
        .script(
            "return document.querySelector('[data-testid=conversation][aria-selected=true]').dataset.id",
            json!([]),
        )
        .await;
    let id = id.as_str().expect("the open conversation's id").to_owned();
    s.reload().await;
    s.click_css("[data-testid=nav-chat]").await;
    s.click_css(&format!("[data-testid=conversation][data-id=\"{id}\"]"))
        .await;
    let reloaded = s
        .wait_text(called, LONG, |t| t.contains("edited by you"))
        .await;
    assert!(reloaded.contains(r#"{"message":"edited"}"#), "{reloaded}");
}

/// A first chat: before any message the chat says which tools the model will not be offered,
/// and the person reviews them from there (a turn with the manual provider opens the answer
/// dialog over the window at once). "Only this one" approves a single tool of a server none of
/// whose tools was approved; the note's count goes down by one and the model is offered it.
pub async fn first_chat_reviews_tools(d: &Desktop) {
    let s = &d.session;
    // No scenario approves the filesystem server's tools.
    let (server, tool) = ("files", "list_allowed_directories");
    let item = format!("tool:{tool}");
    let listed =
        format!("[data-testid=chat-withheld-tool][data-server=\"{server}\"][data-tool=\"{tool}\"]");
    new_manual_chat(s).await;
    s.wait_text("[data-testid=chat-withheld]", SHORT, |t| {
        t.contains("The model will not be offered")
    })
    .await;
    s.wait_for(&listed, SHORT).await;
    let before = withheld_count(s).await;

    s.click_css("[data-testid=chat-review-tools]").await;
    s.select(
        "[data-testid=chat-pins] [data-testid=server-picker]",
        server,
    )
    .await;
    let pin = format!("[data-testid=chat-pins] [data-testid=pin-item][data-item=\"{item}\"]");
    s.wait_for(&pin, SHORT).await;
    s.settle().await;
    // Every tool is ticked at first; "Select none" clears them, "Only this one" ticks one.
    s.click_css("[data-testid=chat-pins] [data-testid=pins-select-none]")
        .await;
    assert_eq!(chosen_in_chat(s).await, Vec::<String>::new());
    s.click_css(&format!("{pin} [data-testid=pin-only]")).await;
    let chosen = chosen_in_chat(s).await;
    assert!(
        chosen.first() == Some(&item)
            && chosen.iter().skip(1).all(|c| c == "instructions")
            && chosen.len() <= 2,
        "{chosen:?}"
    );
    d.screenshot("chat-review-tools.png").await;
    s.click_css("[data-testid=chat-pins] [data-testid=pins-approve]:not([disabled])")
        .await;

    // The note follows: that tool is no longer listed, the others are.
    let after = format!("[data-testid=chat-withheld][data-count=\"{}\"]", before - 1);
    if before == 1 {
        s.wait_for("[data-testid=chat-all-offered]", SHORT).await;
    } else {
        s.wait_for(&after, SHORT).await;
    }
    assert!(s.all(&listed).await.is_empty(), "{tool} is still listed");
    s.click_css("[data-testid=chat-review-tools]").await;

    // The turn offers it: the person, as the model, may call it.
    send_and_open_tool_picker(s, "Which folders may you read?").await;
    s.wait_for("[data-testid=completion-tool-pick]", SHORT)
        .await;
    let option = format!("[data-testid=completion-tool-pick] option[value=\"{server}__{tool}\"]");
    assert!(!s.all(&option).await.is_empty(), "{tool} is not offered");
    s.click_css("[data-testid=completion-tool-cancel]").await;
    answer_as_model(s, "I may read your workspace.").await;
    s.wait_text("[data-testid=chat-messages]", SHORT, |t| {
        t.contains("I may read your workspace.")
    })
    .await;
    // What the turn reports matches what the chat worked out before it.
    if before > 1 {
        s.wait_text("[data-testid=chat-withheld]", SHORT, |t| {
            t.contains("The model was not offered")
        })
        .await;
        assert_eq!(withheld_count(s).await, before - 1);
    }
    assert!(s.all(&listed).await.is_empty(), "{tool} was withheld");
}
