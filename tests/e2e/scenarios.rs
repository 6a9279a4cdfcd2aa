//! The scenarios of the end-to-end run, in the order a person would meet them; each starts from
//! the screen it needs and leaves no dialog open. They share one app window (started once, as
//! starting it is slow), so later scenarios use what earlier ones set up (the `everything`
//! server, the providers).

use std::time::Duration;

use serde_json::json;

use super::desktop::{self, Desktop};
use super::{
    LONG, SHORT, add_provider, answer_as_model, approve_review, mark, open_tab, open_tool,
    pick_tool, replay_provider, row, send_in_chat, webdriver,
};

pub use super::chat_scenarios::{chat_shows_edited_arguments, first_chat_reviews_tools};
pub use super::forms_scenarios::{
    an_open_request_survives_a_reload, enum_first_option, tools_screen_remembers,
};
pub use super::gallery_scenarios::{
    a_link_and_a_bundle_open_their_forms, install_from_the_gallery_and_call,
    keep_a_private_registry, skills_listed_viewed_and_taken_to_chat,
};
pub use super::servers_scenarios::{
    a_hand_edit_is_never_lost, a_second_launch_hands_over_to_the_first,
    an_untrusted_start_says_why, import_from_where_claude_keeps_it,
};
pub use super::traffic_scenarios::{
    compare_models_on_one_request, keep_a_traffic_session, see_the_wire, traffic_under_a_flood,
};

/// Servers from the config come up; a server added through the form runs once its definition is
/// trusted in the native dialog; a tool is called.
pub async fn servers_and_tools(desktop: &Desktop) {
    let s = &desktop.session;
    // Servers from the config file come up on their own.
    s.wait_for(&row("fixture", "running"), LONG).await;
    // The first paint's static sidebar is gone: the live one replaced it, and only it.
    assert!(
        s.all("[data-shell]").await.is_empty(),
        "the static sidebar is still there"
    );
    assert_eq!(s.all("nav.sidebar").await.len(), 1, "two sidebars");

    // Add a server through the form and see it running.
    s.click_css("[data-testid=add-server]").await;
    s.type_into("[data-testid=server-name]", "everything").await;
    s.select("[data-testid=server-kind]", "stdio").await;
    s.type_into("[data-testid=server-command]", &desktop.everything)
        .await;
    s.type_into("[data-testid=server-args]", "stdio").await;
    s.type_into("[data-testid=server-env]", &format!("E2E_MARK={}", mark()))
        .await;
    // What it would run is shown in a native dialog, which the web view can neither draw nor
    // click: declined, nothing is saved; trusted, it is saved and runs.
    s.click_css("[data-testid=server-save]").await;
    desktop.answer_native_dialog("Trust server", false).await;
    s.wait_text("[data-testid=error-banner]", SHORT, |t| {
        t.contains("you did not trust its definition")
    })
    .await;
    assert!(s.all(&row("everything", "running")).await.is_empty());
    s.click_css("[data-testid=server-save]").await;
    desktop.answer_native_dialog("Trust server", true).await;
    s.wait_for(&row("everything", "running"), LONG).await;
    s.click_css("[data-testid=server-row][data-name=\"everything\"]")
        .await;
    s.wait_text("[data-testid=server-status-text]", SHORT, |t| {
        t.to_lowercase().contains("running")
    })
    .await;
    // A server added in the app runs in the OS sandbox, and its card says so.
    s.wait_text("[data-testid=sandbox-state]", SHORT, |t| {
        t.contains("Sandboxed") && t.contains("network on")
    })
    .await;
    desktop.screenshot("servers.png").await;

    // Tools: call echo.
    open_tool(s, "everything", "echo").await;
    s.type_into("[data-testid=arg-message]", "hello from the window")
        .await;
    s.click_css("[data-testid=call-tool]").await;
    s.wait_text("[data-testid=tool-result]", SHORT, |t| {
        t.contains("Echo: hello from the window")
    })
    .await;
    desktop.screenshot("tools.png").await;
}

/// A sampling request edited before it is sent, the answer written and edited, the audit log.
pub async fn sampling_edited_both_ways(desktop: &Desktop) {
    let s = &desktop.session;
    // Sampling: the server asks the model; the person edits the prompt before it is sent, then
    // writes (with the keyless manual provider) and edits the answer before it goes back.
    open_tool(s, "everything", "trigger-sampling-request").await;
    s.type_into("[data-testid=arg-prompt]", "What is the capital of France?")
        .await;
    s.click_css("[data-testid=call-tool]").await;
    s.wait_for(
        "[data-testid=review-dialog][data-kind=sampling_request]",
        SHORT,
    )
    .await;
    let prompt = s
        .wait_for("[data-testid=sampling-message-0-0]", SHORT)
        .await;
    let shown = s.script_on("return arguments[0].value", &prompt).await;
    assert_eq!(
        shown,
        serde_json::json!(
            "Resource trigger-sampling-request context: What is the capital of France?"
        )
    );
    s.type_into(
        "[data-testid=sampling-message-0-0]",
        "What is the capital of Spain? One word.",
    )
    .await;
    s.type_into("[data-testid=sampling-max-tokens]", "20").await;
    let edited = s.script_on("return arguments[0].value", &prompt).await;
    assert_eq!(
        edited,
        serde_json::json!("What is the capital of Spain? One word.")
    );
    desktop.screenshot("sampling-request.png").await;
    approve_review(s).await;
    s.wait_for(
        "[data-testid=review-dialog][data-kind=sampling_completion]",
        SHORT,
    )
    .await;
    s.type_into("[data-testid=completion-text-0]", "Madrid")
        .await;
    desktop.screenshot("sampling-completion.png").await;
    approve_review(s).await;
    s.wait_text("[data-testid=tool-result]", SHORT, |t| t.contains("Madrid"))
        .await;
    assert!(s.all("[data-testid=review-dialog]").await.is_empty());
    // The audit log has every step, with the edits as decided.
    let audit = switchboard_policy::audit::Audit::new(std::sync::Arc::new(
        switchboard_base::store::Store::open(&desktop.data_dir).expect("the app's database"),
    ));
    let rows = audit
        .search(&switchboard_policy::audit::AuditQuery::default())
        .expect("audit rows");
    let decided: Vec<Option<String>> = rows
        .iter()
        .rev()
        .filter(|r| r.step == switchboard_policy::audit::Step::Decided)
        .map(|r| r.decision.clone())
        .collect();
    assert_eq!(
        decided,
        vec![Some("edited".to_owned()), Some("edited".to_owned())]
    );
    assert!(
        rows.iter()
            .any(|r| r.detail.to_string().contains("capital of Spain? One word."))
    );
}

/// A provider added with its key on the Models screen; its answer streams in and is edited.
pub async fn provider_streams_its_answer(desktop: &Desktop) {
    let s = &desktop.session;
    // A real provider: an OpenAI-compatible server replaying a recorded stream, added on the
    // Models screen with its key (into the keychain). The answer streams in, then is edited.
    let provider = replay_provider::Provider::replay_every(
        include_str!("../../src-tauri/core/tests/providers/openai_text.sse"),
        Duration::from_millis(300),
    );
    add_provider(s, "replay", &provider.base, "sk-e2e-key").await;
    s.wait_text(
        "[data-testid=provider-row][data-id=replay] [data-testid=provider-key]",
        SHORT,
        |t| t.contains("keychain"),
    )
    .await;
    desktop.screenshot("models.png").await;
    open_tool(s, "everything", "trigger-sampling-request").await;
    s.type_into("[data-testid=arg-prompt]", "What is the capital of France?")
        .await;
    s.click_css("[data-testid=call-tool]").await;
    s.wait_text("[data-testid=sampling-provider]", SHORT, |t| t == "replay")
        .await;
    approve_review(s).await;
    s.wait_text("[data-testid=sampling-stream]", SHORT, |t| {
        t.contains("The capital")
    })
    .await;
    desktop.screenshot("sampling-stream.png").await;
    s.wait_for(
        "[data-testid=review-dialog][data-kind=sampling_completion]",
        LONG,
    )
    .await;
    let answer = s.wait_for("[data-testid=completion-text-0]", SHORT).await;
    assert_eq!(
        s.script_on("return arguments[0].value", &answer).await,
        serde_json::json!("The capital of France is Paris.")
    );
    s.type_into(
        "[data-testid=completion-text-0]",
        "The capital of France is Paris, on the Seine.",
    )
    .await;
    approve_review(s).await;
    s.wait_text("[data-testid=tool-result]", SHORT, |t| {
        t.contains("on the Seine")
    })
    .await;
    let requests = provider.requests();
    assert_eq!(requests.len(), 1, "{requests:?}");
    assert!(requests[0].0.contains("Bearer sk-e2e-key"));
    assert_eq!(requests[0].1["model"], "gpt-4o-mini");
    assert!(
        requests[0].1["messages"][1]["content"]
            .to_string()
            .contains("What is the capital of France?")
    );
}

/// The server's elicitation form filled in the dialog.
pub async fn elicitation_form(desktop: &Desktop) {
    let s = &desktop.session;
    // Elicitation: the server's form, filled in the dialog (titled and multi-select enums too).
    open_tool(s, "everything", "trigger-elicitation-request").await;
    s.click_css("[data-testid=call-tool]").await;
    s.wait_for("[data-testid=review-dialog][data-kind=elicitation]", SHORT)
        .await;
    s.type_into("[data-testid=arg-name]", "Ada Lovelace").await;
    s.select("[data-testid=arg-titledSingleSelectEnum]", "hero-3")
        .await;
    s.click_css("[data-testid=arg-untitledMultipleSelectEnum-Piano]")
        .await;
    desktop.screenshot("elicitation.png").await;
    approve_review(s).await;
    let result = s
        .wait_text("[data-testid=tool-result]", SHORT, |t| {
            t.contains("Name: Ada Lovelace")
        })
        .await;
    assert!(result.contains("hero-3"), "{result}");
    assert!(result.contains("Piano"), "{result}");
    assert!(
        result.contains("It was a dark and stormy night."),
        "{result}"
    );
}

/// Tasks: a long call runs as a task whose live status shows under it, and its question comes
/// through the approval dialog; the Tasks screen follows running tasks, cancels one on the
/// server, and keeps them when the window reloads; a server's own task-augmented elicitation and
/// sampling are answered through the dialog while the server polls Switchboard for them.
pub async fn a_long_call_runs_as_a_task(desktop: &Desktop) {
    let s = &desktop.session;
    open_tool(s, "everything", "simulate-research-query").await;
    s.type_into("[data-testid=arg-topic]", "tides").await;
    s.click_css("[data-testid=arg-ambiguous]").await;
    s.click_css("[data-testid=call-tool]").await;
    s.wait_text("[data-testid=call-task-status]", SHORT, |t| {
        t.contains("Task Working")
    })
    .await;
    desktop.screenshot("task-tools.png").await;
    // The server needs an answer (input_required): it is asked in the dialog, like any other.
    s.wait_for("[data-testid=review-dialog][data-kind=elicitation]", SHORT)
        .await;
    s.wait_text("[data-testid=call-task-status]", SHORT, |t| {
        t.contains("Waiting for input")
    })
    .await;
    // Its first choice, picked with a click as a person does (issue 33: the first option of a
    // form's enum could not be chosen): nothing is chosen until then.
    let choice = s.wait_for("[data-testid=arg-interpretation]", SHORT).await;
    assert_eq!(
        s.script_on("return arguments[0].value", &choice).await,
        json!("")
    );
    s.click_css("[data-testid=arg-interpretation] option[value=\"technical\"]")
        .await;
    approve_review(s).await;
    s.wait_text("[data-testid=tool-result]", LONG, |t| {
        t.contains("Research Report: tides (technical)")
    })
    .await;

    // A running task is cancelled from the Tasks screen (the server is told: tasks/cancel).
    s.click_css("[data-testid=arg-ambiguous]").await;
    s.type_into("[data-testid=arg-topic]", "currents").await;
    s.click_css("[data-testid=call-tool]").await;
    s.wait_for("[data-testid=call-task-status]", SHORT).await;
    s.click_css("[data-testid=nav-tasks]").await;
    s.click_css("[data-testid=task-row][data-status=working] [data-testid=task-cancel]")
        .await;
    s.wait_for("[data-testid=task-row][data-status=cancelled]", SHORT)
        .await;
    // One more, seen running on the Tasks screen, then finished.
    open_tool(s, "everything", "simulate-research-query").await;
    s.type_into("[data-testid=arg-topic]", "tides of the North Sea")
        .await;
    s.click_css("[data-testid=call-tool]").await;
    s.wait_for("[data-testid=call-task-status]", SHORT).await;
    s.click_css("[data-testid=nav-tasks]").await;
    s.wait_for("[data-testid=task-row][data-status=working]", SHORT)
        .await;
    desktop.screenshot("tasks.png").await;
    s.wait_text(
        "[data-testid=task-server][data-server=everything]",
        LONG,
        |t| t.matches("Completed").count() == 2 && t.contains("Cancelled"),
    )
    .await;

    // The window reloads: the tasks are still listed, as they ended.
    s.reload().await;
    s.click_css("[data-testid=nav-tasks]").await;
    let kept = s
        .wait_text(
            "[data-testid=task-server][data-server=everything]",
            SHORT,
            |t| t.matches("Completed").count() == 2,
        )
        .await;
    assert!(kept.contains("Cancelled"), "{kept}");

    // The server asks for elicitation as a task: Switchboard takes it at once and asks the person.
    open_tool(s, "everything", "trigger-elicitation-request-async").await;
    s.click_css("[data-testid=call-tool]").await;
    s.wait_for("[data-testid=review-dialog][data-kind=elicitation]", SHORT)
        .await;
    s.type_into("[data-testid=arg-name]", "Grace Hopper").await;
    approve_review(s).await;
    let result = s
        .wait_text("[data-testid=tool-result]", LONG, |t| {
            t.contains("[COMPLETED]")
        })
        .await;
    assert!(result.contains("Grace Hopper"), "{result}");

    // And sampling as a task: both reviews, then the server fetches the answer from the task.
    pick_tool(s, "trigger-sampling-request-async").await;
    s.type_into("[data-testid=arg-prompt]", "Name a tide.")
        .await;
    s.click_css("[data-testid=call-tool]").await;
    s.wait_for(
        "[data-testid=review-dialog][data-kind=sampling_request]",
        SHORT,
    )
    .await;
    approve_review(s).await;
    answer_as_model(s, "Spring tide").await;
    let result = s
        .wait_text("[data-testid=tool-result]", LONG, |t| {
            t.contains("[COMPLETED] Async sampling completed!")
        })
        .await;
    assert!(result.contains("Spring tide"), "{result}");
}

/// Chat: the model is offered only approved tools; once the person approves them in place, its
/// tool call is approved with edited arguments; a prompt inserted from "/".
pub async fn chat_with_a_tool_call_and_a_prompt(desktop: &Desktop) {
    let s = &desktop.session;
    // Chat: the model is not offered tools the person has not approved, and the window says so;
    // the person approves the server's tools from the chat. Then the model calls one; the
    // person edits the arguments and approves the call in the dialog; the result goes back to
    // the model, which answers. Then a server's prompt is inserted from the "/" palette.
    let chat_model = replay_provider::Provider::replay_in_turn(
        vec![
            include_str!("../../src-tauri/core/tests/providers/openai_text.sse"),
            include_str!("../../src-tauri/core/tests/providers/openai_chat_echo.sse"),
            include_str!("../../src-tauri/core/tests/providers/openai_text.sse"),
        ],
        Duration::from_millis(30),
    );
    add_provider(s, "chatmodel", &chat_model.base, "sk-chat").await;
    s.wait_for("[data-testid=provider-row][data-id=chatmodel]", SHORT)
        .await;
    s.click_css("[data-testid=nav-chat]").await;
    s.click_css("[data-testid=new-chat]").await;
    s.select("[data-testid=chat-model]", "chatmodel/gpt-4o-mini")
        .await;
    send_in_chat(s, "Which tools do you have?").await;
    s.wait_text("[data-testid=chat-withheld]", SHORT, |t| {
        t.contains("The model was not offered")
    })
    .await;
    let offered = |body: &serde_json::Value| {
        body["tools"].as_array().is_some_and(|t| {
            t.iter()
                .any(|t| t["function"]["name"] == "everything__echo")
        })
    };
    // The note is there before the turn (the chat asks the core which tools are held back), so
    // it says nothing of the request: wait for the request itself, then for the turn's end.
    let first = first_request(&chat_model).await;
    assert!(!offered(&first.1), "an unapproved tool was offered");
    s.wait_for("[data-testid=chat-send]", SHORT).await;
    s.click_css("[data-testid=chat-review-tools]").await;
    s.select(
        "[data-testid=chat-pins] [data-testid=server-picker]",
        "everything",
    )
    .await;
    s.wait_for("[data-testid=chat-pins] [data-testid=pin-item]", SHORT)
        .await;
    s.settle().await;
    s.click_css("[data-testid=chat-pins] [data-testid=pins-approve]")
        .await;
    s.wait_text("[data-testid=chat-pins]", SHORT, |t| {
        t.contains("are approved as they are")
    })
    .await;
    s.click_css("[data-testid=chat-review-tools]").await;
    send_in_chat(s, "Please echo hi").await;
    s.wait_for("[data-testid=review-dialog][data-kind=tool_call]", SHORT)
        .await;
    s.type_into(
        "[data-testid=review-json]",
        r#"{"message": "hi from the person"}"#,
    )
    .await;
    desktop.screenshot("chat-tool-call.png").await;
    approve_review(s).await;
    s.wait_text("[data-testid=chat-messages]", SHORT, |t| {
        t.matches("The capital of France is Paris.").count() == 2
    })
    .await;
    let requests = chat_model.requests();
    assert_eq!(requests.len(), 3, "{requests:?}");
    assert!(offered(&requests[1].1), "the approved tool is offered");
    assert!(
        requests[2].1["messages"]
            .to_string()
            .contains("Echo: hi from the person"),
        "the approved call's result went back to the model"
    );
    s.type_into("[data-testid=chat-input]", "/simple").await;
    s.click_css("[data-testid=palette-prompt-option][data-name=simple-prompt]")
        .await;
    s.click_css("[data-testid=get-prompt]").await;
    s.click_css("[data-testid=insert-prompt]").await;
    // The prompt goes into the composer for the person to add to and send, not off at once.
    let composer = s.wait_for("[data-testid=chat-input]", SHORT).await;
    let mut inserted = serde_json::Value::Null;
    for _ in 0..50 {
        inserted = s.script_on("return arguments[0].value", &composer).await;
        if inserted
            .as_str()
            .is_some_and(|t| t.contains("This is a simple prompt"))
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        inserted
            .as_str()
            .is_some_and(|t| t.contains("This is a simple prompt without arguments.")),
        "{inserted}"
    );
    let focused = s
        .script(
            "return document.activeElement && document.activeElement.dataset.testid",
            serde_json::json!([]),
        )
        .await;
    assert_eq!(
        focused,
        serde_json::json!("chat-input"),
        "the composer has the focus"
    );
    assert_eq!(chat_model.requests().len(), 3, "nothing was sent");
    desktop.screenshot("chat.png").await;
}

/// The audit log, tool pinning and a rule added on the Approvals screen.
pub async fn approvals_pins_and_rules(desktop: &Desktop) {
    let s = &desktop.session;
    s.click_css("[data-testid=nav-approvals]").await;
    s.wait_for("[data-testid=audit-row][data-step=returned]", SHORT)
        .await;
    // The call made by hand on the Tools screen is audited too, as the user's.
    s.type_into("[data-testid=audit-search]", "hello from the window")
        .await;
    s.wait_text("[data-testid=audit]", SHORT, |t| {
        t.contains("tool call: echo") && t.contains("user") && t.contains("returned")
    })
    .await;
    s.type_into("[data-testid=audit-search]", "").await;
    // The whole log again (the elicitation scenario's rows included): its taller table moves
    // the page, so the clicks below wait for it to be in place.
    s.wait_text("[data-testid=audit]", SHORT, |t| t.contains("elicitation"))
        .await;
    // Tool pinning: the server's definitions, approved from the chat, are pinned as they are.
    s.select(
        "[data-testid=pins-panel] [data-testid=server-picker]",
        "everything",
    )
    .await;
    s.wait_text("[data-testid=pins-panel]", SHORT, |t| {
        t.contains("are approved as they are")
    })
    .await;
    // A rule made on the screen itself: always allow the server's echo.
    s.select("[data-testid=policy-new-server]", "everything")
        .await;
    s.type_into("[data-testid=policy-new-tool]", "echo").await;
    s.click_css("[data-testid=policy-add-button]").await;
    s.wait_text("[data-testid=policies]", SHORT, |t| t.contains("echo"))
        .await;
    // At the window's size the audit log is below the fold: the screen scrolls to it.
    let reached = s
        .script(
            "const screen = document.querySelector('[data-testid=approvals-screen]');
             const scroller = (function find(e) {
               for (; e; e = e.parentElement) {
                 if (e.scrollHeight > e.clientHeight && getComputedStyle(e).overflowY !== 'hidden') return e;
               }
               return null;
             })(screen);
             if (!scroller) return 'no scroll container';
             scroller.scrollTop = scroller.scrollHeight;
             const audit = document.querySelector('[data-testid=audit]').getBoundingClientRect();
             return scroller.scrollTop > 0 && audit.top < window.innerHeight ? 'reached' : 'not reached';",
            serde_json::json!([]),
        )
        .await;
    assert_eq!(reached, serde_json::json!("reached"));
    // The screenshot shows the screen from its top, as a person arriving sees it.
    s.script(
        "document.querySelectorAll('[data-testid=approvals-screen], .main, .page').forEach(e => e.scrollTop = 0)",
        serde_json::json!([]),
    )
    .await;
    desktop.screenshot("approvals.png").await;
}

/// Resources paged by scrolling, an image viewed.
pub async fn resources_page_and_view(desktop: &Desktop) {
    let s = &desktop.session;
    // Resources: page through the fixture's 1000 resources by scrolling, then read its image.
    s.click_css("[data-testid=nav-resources]").await;
    s.select("[data-testid=server-picker]", "fixture").await;
    s.wait_for("[data-testid=resource-row]", SHORT).await;
    let list = s.wait_for("[data-testid=resource-list]", SHORT).await;
    let mut loaded = 0;
    for _ in 0..100 {
        s.script_on("arguments[0].scrollTop = arguments[0].scrollHeight", &list)
            .await;
        tokio::time::sleep(Duration::from_millis(200)).await;
        let count = s.all("[data-testid=resource-count]").await;
        if let Some(c) = count.first() {
            let text = s.text(c).await.replace([',', '.', ' '], "");
            loaded = text
                .split(|ch: char| !ch.is_ascii_digit())
                .find(|p| !p.is_empty())
                .and_then(|p| p.parse().ok())
                .unwrap_or(0);
        }
        if loaded >= 300 {
            break;
        }
    }
    assert!(loaded >= 300, "scrolling loaded only {loaded} resources");
    let rows = s.all("[data-testid=resource-row]").await.len();
    assert!(
        rows < 200,
        "{rows} rows in the DOM: the list is not virtualized"
    );
    s.type_into("[data-testid=resource-search]", "image").await;
    s.click_css("[data-testid=resource-row][data-uri=\"fixture://image.png\"]")
        .await;
    let img = s.wait_for("[data-testid=resource-viewer] img", SHORT).await;
    let mut width = serde_json::Value::Null;
    for _ in 0..50 {
        width = s.script_on("return arguments[0].naturalWidth", &img).await;
        if width == serde_json::json!(48) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(width, serde_json::json!(48), "the image did not render");
    desktop.screenshot("resources.png").await;
}

/// A prompt filled from completion and previewed.
pub async fn prompts_with_completion(desktop: &Desktop) {
    let s = &desktop.session;
    // Prompts: fill an argument from completion and preview the messages.
    s.click_css("[data-testid=nav-prompts]").await;
    s.select("[data-testid=server-picker]", "everything").await;
    s.click_css("[data-testid=prompt-item][data-name=completable-prompt]")
        .await;
    s.type_into("[data-testid=prompt-arg-department]", "Eng")
        .await;
    let option = s.wait_for("[data-testid=completion-option]", SHORT).await;
    assert_eq!(s.text(&option).await.trim(), "Engineering");
    s.click_css("[data-testid=completion-option]").await;
    s.type_into("[data-testid=prompt-arg-name]", "Alice").await;
    s.click_css("[data-testid=get-prompt]").await;
    s.wait_text("[data-testid=prompt-preview]", SHORT, |t| {
        t.contains("Please promote Alice to the head of the Engineering team")
    })
    .await;
    desktop.screenshot("prompts.png").await;
}

/// The model's tools steered from the window: what each definition costs, a tool switched off
/// for the model (still callable here), a tool set, the chat limited to it and its meter, and the
/// limits above which the model searches and the meter warns.
pub async fn steer_the_models_tools(desktop: &Desktop) {
    let s = &desktop.session;
    open_tool(s, "everything", "echo").await;
    let echo = "[data-testid=tool-item][data-name=echo]";
    s.wait_text(&format!("{echo} [data-testid=tool-tokens]"), SHORT, |t| {
        t.ends_with("tok")
    })
    .await;
    s.wait_text("[data-testid=server-tokens]", SHORT, |t| {
        t.contains("Tool definitions")
    })
    .await;
    // Off for the model, yours to call: the call still answers, and one tool fewer is offered.
    let offered = s
        .wait_text("[data-testid=context-search-state]", SHORT, |_| true)
        .await;
    s.click_css(&format!("{echo} [data-testid=tool-model-switch]"))
        .await;
    s.wait_for(&format!("{echo} [data-testid=tool-model-off]"), SHORT)
        .await;
    s.wait_text("[data-testid=context-search-state]", SHORT, |t| {
        tokens_in(t) + 1 == tokens_in(&offered)
    })
    .await;
    s.type_into("[data-testid=arg-message]", "still mine").await;
    s.click_css("[data-testid=call-tool]").await;
    s.wait_text("[data-testid=tool-result]", SHORT, |t| {
        t.contains("still mine")
    })
    .await;
    desktop.screenshot("tools-switches.png").await;
    s.click_css(&format!("{echo} [data-testid=tool-model-switch]"))
        .await;
    s.wait_gone(&format!("{echo} [data-testid=tool-model-off]"), SHORT)
        .await;

    // A set of one tool, then a chat limited to it: the meter counts less.
    s.click_css("[data-testid=tool-sets-open]").await;
    s.click_css("[data-testid=tool-set-new]").await;
    s.type_into("[data-testid=tool-set-name]", "just echo")
        .await;
    s.click_css("[data-testid=tool-set-member][data-server=everything][data-tool=echo]")
        .await;
    s.click_css("[data-testid=tool-set-save]").await;
    s.wait_for("[data-testid=tool-set][data-name=\"just echo\"]", SHORT)
        .await;
    desktop.screenshot("tool-sets.png").await;
    s.click_css("[data-testid=tool-sets-close]").await;

    s.click_css("[data-testid=nav-chat]").await;
    s.click_css("[data-testid=new-chat]").await;
    s.select("[data-testid=chat-model]", "chatmodel/gpt-4o-mini")
        .await;
    let all = s
        .wait_text("[data-testid=chat-tokens]", SHORT, |t| {
            t.starts_with("Tools:")
        })
        .await;
    s.click_css("[data-testid=chat-tools-summary]").await;
    s.click_css("[data-testid=chat-tool-set][data-name=\"just echo\"]")
        .await;
    let one = s
        .wait_text("[data-testid=chat-tokens]", SHORT, |t| {
            t.starts_with("Tools:") && t != all
        })
        .await;
    assert!(
        tokens_in(&one) < tokens_in(&all),
        "{one} is not less than {all}"
    );
    desktop.screenshot("chat-tool-sets.png").await;
    s.click_css("[data-testid=chat-tools-all]").await;
    s.wait_text("[data-testid=chat-tokens]", SHORT, |t| t == all)
        .await;

    // Search above no tools at all: a turn offers the search tool alone, and the meter says so.
    set_search_above(s, "0").await;
    desktop.screenshot("tools-context.png").await;
    s.click_css("[data-testid=nav-chat]").await;
    // The newest conversation (the one made above) is listed first.
    s.click_css("[data-testid=conversation]").await;
    let searching = s
        .wait_text("[data-testid=chat-tokens]", SHORT, |t| {
            t.starts_with("Tools:") && t != all
        })
        .await;
    assert!(
        tokens_in(&searching) < tokens_in(&all),
        "{searching} vs {all}"
    );
    // Back to the default.
    set_search_above(s, "").await;
}

/// On the Tools screen's Context panel: the tool count above which the model searches ("" for
/// the default), saved.
async fn set_search_above(s: &webdriver::Session, count: &str) {
    s.click_css("[data-testid=nav-tools]").await;
    if s.all("[data-testid=context-limits]").await.is_empty() {
        s.click_css("[data-testid=context-open]").await;
    }
    s.type_into("[data-testid=context-search-above]", count)
        .await;
    s.click_css("[data-testid=context-save]").await;
    let shown = if count.is_empty() { "40" } else { count };
    s.wait_text("[data-testid=context-search-state]", SHORT, |t| {
        t.contains(&format!("above {shown})")) || t.contains(&format!("> {shown})"))
    })
    .await;
}

/// The first number of a text ("Tools: 1,234 tokens of …", "offered all 19 tools").
fn tokens_in(text: &str) -> u64 {
    let digits: String = text
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(|c| c.is_ascii_digit() || *c == ',')
        .filter(char::is_ascii_digit)
        .collect();
    digits.parse().expect("a token count")
}

/// A root added; server-filesystem's allowed directories follow.
pub async fn roots_reach_the_server(desktop: &Desktop) {
    let s = &desktop.session;
    // Roots: add a folder; the filesystem server's allowed directories follow.
    s.click_css("[data-testid=nav-roots]").await;
    let folder = desktop.workspace.display().to_string();
    let everything = desktop::pid_with_env("E2E_MARK", &mark()).expect("the everything server");
    s.type_into("[data-testid=root-path]", &folder).await;
    s.click_css("[data-testid=root-add]").await;
    // The trusted local servers without roots of their own would write it: asked once for all.
    desktop
        .answer_native_dialog_shown_as("Trust servers with new roots", true, "roots-dialog.png")
        .await;
    s.wait_for(
        &format!("[data-testid=root-item][data-path=\"{folder}\"]"),
        SHORT,
    )
    .await;
    desktop.screenshot("roots.png").await;
    // A sandboxed server's box cannot widen while it runs: the new root restarts "everything"
    // (it has no roots of its own), and its stderr says why.
    desktop::replaced_pid_with_env("E2E_MARK", &mark(), everything, LONG).await;
    s.click_css("[data-testid=nav-servers]").await;
    s.wait_for(&row("everything", "running"), LONG).await;
    s.click_css("[data-testid=server-row][data-name=\"everything\"]")
        .await;
    // The tab of everything's own card, not of the card shown before the click took.
    let card = "[data-testid=server-detail][data-name=\"everything\"]";
    open_tab(s, card, "stderr").await;
    s.wait_text(&format!("{card} [data-testid=stderr-tail]"), SHORT, |t| {
        t.contains("Restarting it with its new roots")
    })
    .await;
    open_tab(s, card, "overview").await;
    open_tool(s, "files", "list_allowed_directories").await;
    let mut seen = false;
    for _ in 0..20 {
        s.click_css("[data-testid=call-tool]").await;
        let text = s
            .wait_text("[data-testid=tool-result]", SHORT, |_| true)
            .await;
        if text.contains(&folder) {
            seen = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert!(seen, "server-filesystem never listed {folder}");
}

/// A server killed behind the app's back restarts on its own.
pub async fn a_killed_server_restarts(desktop: &Desktop) {
    let s = &desktop.session;
    // Kill the server's process behind the app's back: it restarts on its own.
    s.click_css("[data-testid=nav-servers]").await;
    let pid = desktop::pid_with_env("E2E_MARK", &mark()).expect("the everything server's process");
    desktop::kill9(pid);
    let not_running =
        "[data-testid=server-row][data-name=\"everything\"]:not([data-state=\"running\"])";
    s.wait_for(not_running, SHORT).await;
    s.wait_for(&row("everything", "running"), LONG).await;
    let new_pid = desktop::pid_with_env("E2E_MARK", &mark()).expect("a restarted process");
    assert_ne!(pid, new_pid, "the server was not restarted");
}

/// A remote server that asks for sign-in: the card says so, Sign in opens the (test's) browser,
/// the authorization server sends it back, the server starts, and a tool answers as signed in.
pub async fn sign_in_to_a_protected_server(desktop: &Desktop) {
    let s = &desktop.session;
    s.click_css("[data-testid=nav-servers]").await;
    s.wait_for(&row("tracker", "failed"), LONG).await;
    s.click_css("[data-testid=server-row][data-name=\"tracker\"]")
        .await;
    s.wait_for("[data-testid=sign-in-required]", SHORT).await;
    desktop.screenshot("sign-in.png").await;
    s.click_css("[data-testid=sign-in]").await;
    s.wait_for(&row("tracker", "running"), LONG).await;
    open_tool(s, "tracker", "whoami").await;
    s.click_css("[data-testid=call-tool]").await;
    s.wait_text("[data-testid=tool-result]", SHORT, |t| {
        t.contains("signed in as")
    })
    .await;
    more_access_then_a_revoked_sign_in(desktop).await;
}

/// Signed in to "tracker" on the Tools screen: a tool that needs another scope offers to sign in
/// for it and then runs; the server then revokes the sign-in, and the window says so on every
/// screen until the person signs in again.
async fn more_access_then_a_revoked_sign_in(desktop: &Desktop) {
    let s = &desktop.session;
    let call = async |tool: &str| {
        pick_tool(s, tool).await;
        s.click_css("[data-testid=call-tool]").await;
    };
    call("admin_report").await;
    s.wait_text("[data-testid=error-banner]", SHORT, |t| {
        t.contains("more access")
    })
    .await;
    s.click_css("[data-testid=sign-in-more-access]").await;
    // The browser grants the scope the server named, and the call runs again by itself.
    s.wait_text("[data-testid=tool-result]", LONG, |t| {
        t.contains("all clear")
    })
    .await;
    s.click_css("[data-testid=nav-servers]").await;
    s.click_css("[data-testid=server-row][data-name=\"tracker\"]")
        .await;
    s.wait_text("[data-testid=signed-in-as]", SHORT, |t| {
        t.contains("Signed in at http://127.0.0.1") && t.contains("mcp:admin")
    })
    .await;

    s.click_css("[data-testid=nav-tools]").await;
    call("revoke_sign_in").await;
    s.wait_text("[data-testid=tool-result]", SHORT, |t| {
        t.contains("revoking")
    })
    .await;
    // The server revokes just after answering.
    tokio::time::sleep(Duration::from_secs(1)).await;
    call("whoami").await;
    s.wait_text("[data-testid=sign-in-ended]", LONG, |t| {
        t.contains("sign-in to tracker has ended")
    })
    .await;
    desktop.screenshot("sign-in-ended.png").await;
    s.click_css("[data-testid=sign-in-ended-again]").await;
    // Signing in resolves once the server runs on the new tokens; the banner then goes.
    let gone = async {
        while !s.all("[data-testid=sign-in-ended]").await.is_empty() {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    };
    tokio::time::timeout(LONG, gone)
        .await
        .expect("the banner goes once signed in again");
    // The picker keeps "tracker (not running)" until it is up again.
    s.wait_for(
        "[data-testid=server-picker] option[value=tracker]:not(:disabled)",
        LONG,
    )
    .await;
    call("whoami").await;
    s.wait_text("[data-testid=tool-result]", SHORT, |t| {
        t.contains("signed in as")
    })
    .await;
}

/// A Claude Desktop file imported through the native picker the shell opens (the window names
/// no path): the preview shows what it runs, and the imported server waits for trust.
pub async fn import_through_the_native_picker(desktop: &Desktop) {
    let s = &desktop.session;
    s.click_css("[data-testid=nav-servers]").await;
    s.click_css("button[data-testid=import-server]").await;
    s.click_css("[data-testid=import-choose]").await;
    desktop
        .choose_in_native_picker("Import servers from", &desktop.import_file)
        .await;
    s.wait_text("tr[data-testid=import-server]", SHORT, |t| {
        t.contains("imported") && t.contains("/bin/true\"--imported\"")
    })
    .await;
    s.click_css("[data-testid=import-apply]").await;
    s.wait_text("[data-testid=import-report]", SHORT, |t| {
        t.contains("Added imported")
    })
    .await;
    s.click_css("[data-testid=import-report] button").await;
    s.wait_for(&row("imported", "needsTrust"), SHORT).await;
}

/// Server content (markdown with raw HTML: a fixed full-screen cover, links, a refresh, a form,
/// a stylesheet, an iframe) in a tool result and in the server's instructions cannot cover the
/// approval dialog, and nothing (its links, script) moves the window off the app.
pub async fn server_content_cannot_take_over_the_window(desktop: &Desktop) {
    let s = &desktop.session;
    let app = s.url().await;
    assert!(app.starts_with("tauri://localhost"), "{app}");
    // The payload as a tool result; the server then asks for sampling, so the approval dialog
    // opens over it.
    open_tool(s, "hostile", "overlay").await;
    s.click_css("[data-testid=call-tool]").await;
    s.wait_for(
        "[data-testid=tool-result] [data-testid=overlay-cover]",
        SHORT,
    )
    .await;
    approve_is_what_a_click_hits(s).await;
    desktop.screenshot("overlay-tool-result.png").await;
    // The payload as the server's instructions, behind the same dialog. A person cannot reach
    // the screens behind a dialog; the test switches them by script.
    let click = "document.querySelector(arguments[0]).click()";
    s.script(click, json!(["[data-testid=nav-servers]"])).await;
    s.wait_for(&row("hostile", "running"), SHORT).await;
    s.script(
        click,
        json!(["[data-testid=server-row][data-name=\"hostile\"]"]),
    )
    .await;
    s.wait_for(".instructions [data-testid=overlay-cover]", SHORT)
        .await;
    approve_is_what_a_click_hits(s).await;
    desktop.screenshot("overlay-instructions.png").await;
    assert_eq!(s.url().await, app);
    s.click_css("[data-testid=review-deny]").await;
    while !s.all("[data-testid=review-dialog]").await.is_empty() {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    desktop.screenshot("overlay-inert.png").await;
    // The payload's links, clicked as a person would: none starts a navigation, so the window
    // stays on the app.
    for link in [
        "[data-testid=overlay-link]",
        "[data-testid=overlay-https]",
        "a[href^=\"http://127.0.0.1\"]:not([data-testid])",
    ] {
        click_without_navigating(s, &format!(".instructions {link}")).await;
        assert_eq!(s.url().await, app, "the window left the app");
    }
    // Script that sends the window elsewhere: the shell refuses the navigation, and says so.
    for away in [desktop.foreign.as_str(), "https://example.com/"] {
        let before = refusals(s).await;
        s.script("location.href = arguments[0]", json!([away]))
            .await;
        refused_since(s, before).await;
        stays_on(s, &app).await;
    }
    // The person sees that something tried, and puts the notice away.
    desktop.screenshot("navigation-refused.png").await;
    s.click_css("[data-testid=navigation-refused-dismiss]")
        .await;
}

/// The first request `provider` received, once it has one.
async fn first_request(provider: &replay_provider::Provider) -> (String, serde_json::Value) {
    let deadline = std::time::Instant::now() + SHORT;
    loop {
        if let Some(first) = provider.requests().into_iter().next() {
            return first;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the provider never received the chat's request"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Approve (armed) is the element at its own centre: nothing lies over it.
async fn approve_is_what_a_click_hits(s: &webdriver::Session) {
    let approve = s
        .wait_for("[data-testid=review-approve]:not([disabled])", SHORT)
        .await;
    let hit = s
        .script_on(
            "const b = arguments[0], r = b.getBoundingClientRect(); \
             const at = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2); \
             return at && (at === b || b.contains(at)) ? 'approve' : (at ? at.outerHTML.slice(0, 300) : 'nothing');",
            &approve,
        )
        .await;
    assert_eq!(hit, json!("approve"), "something lies over Approve");
    let cover = s
        .script(
            "return [...document.querySelectorAll('[data-testid=overlay-cover]')].map(e => getComputedStyle(e).position)",
            json!([]),
        )
        .await;
    assert!(
        cover
            .as_array()
            .is_some_and(|p| !p.is_empty() && p.iter().all(|p| p != "fixed")),
        "{cover}"
    );
}

/// Clicks `css` as a person would and checks that the page cancelled the click's default action
/// (following a link): a cancelled click never starts a navigation. The window keeps the click's
/// event from the moment it is dispatched; a script runs only between tasks, so once the event is
/// there its dispatch is over and every handler of the page has had its say.
async fn click_without_navigating(s: &webdriver::Session, css: &str) {
    s.script(
        "window.__click = null; \
         window.addEventListener('click', e => { window.__click = e; }, { capture: true, once: true });",
        json!([]),
    )
    .await;
    s.click_css(css).await;
    let deadline = std::time::Instant::now() + SHORT;
    let prevented = loop {
        let seen = s
            .script(
                "return window.__click ? window.__click.defaultPrevented : null",
                json!([]),
            )
            .await;
        if !seen.is_null() {
            break seen;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the click on {css} never reached the page"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(
        prevented,
        json!(true),
        "clicking {css} would navigate the window"
    );
}

/// How many navigations the shell's guard has refused, as the window's notice counts them.
async fn refusals(s: &webdriver::Session) -> u64 {
    s.script(
        "const n = document.querySelector('[data-testid=navigation-refused]'); return n ? Number(n.dataset.count) : 0",
        json!([]),
    )
    .await
    .as_u64()
    .unwrap_or(0)
}

/// Waits until the guard has refused a navigation after `before` were counted: the refusal is
/// what would have come first, had the window gone anywhere.
async fn refused_since(s: &webdriver::Session, before: u64) {
    let deadline = std::time::Instant::now() + SHORT;
    while refusals(s).await <= before {
        assert!(
            std::time::Instant::now() < deadline,
            "the guard never said it refused"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A view page put in the window itself, not in a frame (here by WebDriver, as no script in the
/// window can start that), is sent back to the app, and the command it invokes with the app's
/// own IPC does nothing: the server it names stays enabled and running.
pub async fn a_view_page_in_the_main_window_can_invoke_nothing(desktop: &Desktop) {
    let s = &desktop.session;
    let app = s.url().await;
    s.click_css("[data-testid=nav-servers]").await;
    s.wait_for(&row("hostile", "running"), LONG).await;
    s.wait_for(&row("views", "running"), LONG).await;
    // Opened as the window opens a view, but loaded in no frame: its page is still unserved.
    let src = s
        .script_async(
            "const done = arguments[arguments.length - 1]; \
             window.__TAURI_INTERNALS__.invoke('open_app_view', {args: {server: 'views', \
             tool: 'dashboard', uri: 'ui://fixture/hostile.html'}}) \
             .then(v => done(v.src), e => done('failed: ' + JSON.stringify(e)))",
        )
        .await;
    let src = src.as_str().unwrap_or_default().to_owned();
    assert!(src.starts_with("mcp-app:"), "no view page to load: {src}");
    let answered = s.goto(&src, SHORT).await;
    eprintln!("WebDriver's answer to loading a view page in the window: {answered}");
    // Sent back to the app's own page (its start, not the screen it was on).
    let home = app
        .split('#')
        .next()
        .unwrap_or(&app)
        .trim_end_matches("index.html");
    let deadline = std::time::Instant::now() + SHORT;
    while !s.url().await.starts_with(home) {
        assert!(
            std::time::Instant::now() < deadline,
            "the window stayed on {}",
            s.url().await
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The app's page up again has answered its own invokes, which WebKit delivered after any
    // the view page sent: what that page invoked is decided by now.
    s.click_css("[data-testid=nav-servers]").await;
    s.wait_for(&row("hostile", "running"), SHORT).await;
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&desktop.config_file).unwrap()).unwrap();
    assert_ne!(
        config["mcpServers"]["hostile"]["enabled"],
        json!(false),
        "the view page's command switched a server off"
    );
}

/// Checks the window still shows the app at `app`, once whatever tried to move it was refused.
async fn stays_on(s: &webdriver::Session, app: &str) {
    assert_eq!(s.url().await, app, "the window left the app");
    s.wait_for("[data-testid=nav-servers]", SHORT).await;
}

/// An MCP App: the official basic example's view renders in its sandboxed frame on its own
/// scheme, receives the tool's result, and its button calls the server's tool only after the
/// person approves; its link is shown in full before anything opens.
pub async fn an_mcp_app_renders_and_asks_through_the_door(desktop: &Desktop) {
    let s = &desktop.session;
    s.click_css("[data-testid=nav-servers]").await;
    s.wait_for(&row("apps", "running"), LONG).await;
    open_tool(s, "apps", "get-time").await;
    s.click_css("[data-testid=call-tool]").await;
    let frame = s.wait_for("[data-testid=app-iframe]", LONG).await;
    let attrs = s
        .script_on(
            "return [arguments[0].getAttribute('sandbox'), arguments[0].src]",
            &frame,
        )
        .await;
    assert_eq!(attrs[0], json!("allow-scripts"), "{attrs}");
    assert!(
        attrs[1]
            .as_str()
            .is_some_and(|src| src.starts_with("mcp-app://localhost/")),
        "{attrs}"
    );
    s.enter_frame(&frame).await;
    let first = s
        .wait_text("#server-time", LONG, |t| {
            t.contains('T') && t != "Loading..."
        })
        .await;
    s.leave_frame().await;
    desktop.screenshot("mcp-app.png").await;

    // The view's button asks for the tool; the person approves in the app's own dialog.
    s.enter_frame(&frame).await;
    s.click_css("#get-time-btn").await;
    s.leave_frame().await;
    s.wait_text("[data-testid=review-dialog]", SHORT, |t| {
        t.contains("A view wants to call a tool") && t.contains("get-time")
    })
    .await;
    desktop.screenshot("mcp-app-approval.png").await;
    approve_review(s).await;
    s.enter_frame(&frame).await;
    s.wait_text("#server-time", LONG, |t| t.contains('T') && t != first)
        .await;

    // Its link: shown in full, and nothing opens when the person says no.
    s.click_css("#open-link-btn").await;
    s.leave_frame().await;
    s.wait_text("[data-testid=open-link-url]", SHORT, |t| {
        t == "https://modelcontextprotocol.io/"
    })
    .await;
    s.click_css("[data-testid=review-deny]").await;
    while !s.all("[data-testid=review-dialog]").await.is_empty() {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The other official example apps render in the real window and get their tool's result: the
/// React one's button calls its server's tool after the person approves; the budget allocator
/// draws its sliders from the result; the map, whose globe library comes from a CDN this machine
/// cannot reach, renders its page and is reported as not started.
pub async fn the_official_example_apps_render(desktop: &Desktop) {
    let s = &desktop.session;
    // server-basic-react: the result, then its button through the door.
    let frame = open_view(s, "react", "get-time", true).await;
    s.enter_frame(&frame).await;
    let first = s
        .wait_text("body", LONG, |t| {
            t.contains("Server Time:") && !t.contains("Loading")
        })
        .await;
    s.leave_frame().await;
    desktop.screenshot("mcp-app-react.png").await;
    s.enter_frame(&frame).await;
    let button = s
        .script(
            "return [...document.querySelectorAll('button')].find(b => b.textContent.includes('Get Server Time'))",
            json!([]),
        )
        .await;
    assert!(button.is_object(), "no Get Server Time button: {button}");
    s.script(
        "[...document.querySelectorAll('button')].find(b => b.textContent.includes('Get Server Time')).click()",
        json!([]),
    )
    .await;
    s.leave_frame().await;
    s.wait_text("[data-testid=review-dialog]", SHORT, |t| {
        t.contains("A view wants to call a tool") && t.contains("get-time")
    })
    .await;
    approve_review(s).await;
    s.enter_frame(&frame).await;
    s.wait_text("body", LONG, |t| t.contains("Server Time:") && t != first)
        .await;
    s.leave_frame().await;

    // server-budget-allocator: its sliders come from the tool's result.
    let frame = open_view(s, "budget", "get-budget-data", true).await;
    s.enter_frame(&frame).await;
    s.wait_for("#sliders-container input[type=range]", LONG)
        .await;
    s.leave_frame().await;
    desktop.screenshot("mcp-app-budget.png").await;

    // server-map loads its globe library from cesium.com (an origin it declares) before it
    // connects; this machine has no way out, so the view renders its page, tries the CDN, and
    // the app says plainly that it did not start instead of waiting for ever.
    let frame = open_view(s, "map", "show-map", false).await;
    s.enter_frame(&frame).await;
    s.wait_text("#loading", LONG, |t| {
        t.contains("Loading globe") || t.contains("Failed to load CesiumJS from CDN")
    })
    .await;
    let tried = s
        .script(
            "return [...document.scripts].map(s => s.src).filter(src => src.startsWith('https://cesium.com/'))",
            json!([]),
        )
        .await;
    assert!(
        tried.as_array().is_some_and(|a| !a.is_empty()),
        "the map did not try its CDN: {tried}"
    );
    s.leave_frame().await;
    s.wait_text("[data-testid=app-frame-error]", LONG, |t| {
        t.contains("did not start")
    })
    .await;
}

/// Calls `tool` of `server` on the Tools screen and returns its view's frame (once the view has
/// initialized, if `ready`).
async fn open_view(
    s: &webdriver::Session,
    server: &str,
    tool: &str,
    ready: bool,
) -> webdriver::Element {
    s.click_css("[data-testid=nav-servers]").await;
    s.wait_for(&row(server, "running"), LONG).await;
    open_tool(s, server, tool).await;
    s.click_css("[data-testid=call-tool]").await;
    let frame = s.wait_for("[data-testid=app-iframe]", LONG).await;
    if ready {
        s.wait_for("[data-testid=app-frame][data-ready=true]", LONG)
            .await;
    }
    frame
}

/// A view that tries every way out of its frame: the app's commands, DOM, storage and window
/// stay out of its reach.
pub async fn a_view_cannot_reach_the_app(desktop: &Desktop) {
    let s = &desktop.session;
    let app = s.url().await;
    let refusals_before = refusals(s).await;
    s.click_css("[data-testid=nav-servers]").await;
    s.wait_for(&row("views", "running"), LONG).await;
    open_tool(s, "views", "dashboard").await;
    s.click_css("[data-testid=call-tool]").await;
    let frame = s.wait_for("[data-testid=app-iframe]", LONG).await;
    s.enter_frame(&frame).await;
    for pending in ["#ipc-fetch", "#ipc-http-fetch"] {
        s.wait_text(pending, LONG, |t| !t.ends_with("pending"))
            .await;
    }
    let outcomes = s
        .script(
            "return [...document.querySelectorAll('#results li')].map(li => li.textContent)",
            json!([]),
        )
        .await;
    s.leave_frame().await;
    desktop.screenshot("mcp-app-hostile.png").await;
    let outcomes: Vec<String> = serde_json::from_value(outcomes).unwrap_or_default();
    eprintln!("the hostile view's attempts: {outcomes:#?}");
    let outcome = |name: &str| {
        outcomes
            .iter()
            .find(|o| o.starts_with(&format!("{name}: ")))
            .cloned()
            .unwrap_or_else(|| panic!("{name} did not report: {outcomes:?}"))
    };
    for refused in [
        "tauri-internals",
        "internals-invoke",
        "parent-dom",
        "top-dom",
        "storage",
        "cookie",
        "open-window",
        "ipc-fetch",
        "ipc-http-fetch",
    ] {
        let o = outcome(refused);
        assert!(o.contains(": refused"), "{o}");
    }
    // What it may post or ask for had no effect: the window is the app's, and the server the
    // forged command named is still enabled and running.
    for posted in [
        "webkit-ipc",
        "ipc-global",
        "parent-forged",
        "top-navigation",
    ] {
        outcome(posted);
    }
    // The frame's sandbox refuses the top navigation at once; one it let through would reach
    // the shell's guard, whose refusal is then what comes first.
    if !outcome("top-navigation").contains(": refused") {
        refused_since(s, refusals_before).await;
    }
    stays_on(s, &app).await;
    s.click_css("[data-testid=nav-servers]").await;
    s.wait_for(&row("hostile", "running"), SHORT).await;
}
