//! End to end in a real window: the built app under Xvfb, driven by `tauri-driver` and
//! `WebKitWebDriver`, against real `server-everything`, `server-filesystem` and the rmcp fixture
//! server. Saves a screenshot of each screen to `<target>/e2e-screenshots/`
//! (`scripts/screenshots.sh` copies them to `assets/screenshots/`).
//!
//! Needs Xvfb, WebKitWebDriver and tauri-driver (`scripts/setup-e2e.sh`), the built UI
//! (`scripts/setup-ui.sh`) and the fixtures (`scripts/setup-fixtures.sh`); `scripts/test.sh` runs
//! all of that first.

#[path = "../support/bundles.rs"]
mod bundles;
mod chat_scenarios;
mod desktop;
mod forms_scenarios;
mod gallery_scenarios;
mod installed;
#[path = "../support/loopback_registry.rs"]
mod loopback_registry;
#[path = "../support/replay_provider.rs"]
mod replay_provider;
mod scenarios;
mod servers_scenarios;
mod traffic_scenarios;
mod webdriver;

use std::sync::Arc;
use std::time::Duration;

use desktop::Desktop;

const LONG: Duration = Duration::from_secs(60);
const SHORT: Duration = Duration::from_secs(20);

fn row(name: &str, state: &str) -> String {
    format!("[data-testid=server-row][data-name=\"{name}\"][data-state=\"{state}\"]")
}

/// Opens `tool` of `server` on the Tools screen.
async fn open_tool(s: &webdriver::Session, server: &str, tool: &str) {
    s.click_css("[data-testid=nav-tools]").await;
    s.select("[data-testid=server-picker]", server).await;
    pick_tool(s, tool).await;
}

/// Chooses `tool` in the Tools screen's list and waits until the list shows it chosen, so a click
/// that missed fails here and not at the next step.
async fn pick_tool(s: &webdriver::Session, tool: &str) {
    let item = format!("[data-testid=tool-item][data-name={tool}]");
    s.click_css(&item).await;
    s.wait_for(&format!("{item}[aria-selected=true]"), SHORT)
        .await;
}

/// Opens the tab `tab` (`overview`, `stderr`, `log`) of the server card `card` and waits until it
/// shows chosen, so a click that missed fails here and not at the next step.
async fn open_tab(s: &webdriver::Session, card: &str, tab: &str) {
    let button = format!("{card} [data-testid=tab-{tab}]");
    s.click_css(&button).await;
    s.wait_for(&format!("{button}[aria-selected=true]"), SHORT)
        .await;
}

/// Adds an OpenAI-compatible provider at `base` with one model, on the Models screen.
async fn add_provider(s: &webdriver::Session, id: &str, base: &str, key: &str) {
    s.click_css("[data-testid=nav-models]").await;
    s.click_css("[data-testid=add-provider]").await;
    s.type_into("[data-testid=provider-id]", id).await;
    s.type_into("[data-testid=provider-url]", &format!("{base}/v1"))
        .await;
    s.type_into("[data-testid=provider-key-input]", key).await;
    s.type_into("[data-testid=custom-model]", "gpt-4o-mini")
        .await;
    s.click_css("[data-testid=add-model]").await;
    s.click_css("[data-testid=save-provider]").await;
}

/// Approves the review dialog on screen, once its approve button is enabled.
async fn approve_review(s: &webdriver::Session) {
    s.click_css("[data-testid=review-approve]:not([disabled])")
        .await;
}

/// Sends `message` from the chat's composer.
async fn send_in_chat(s: &webdriver::Session, message: &str) {
    s.type_into("[data-testid=chat-input]", message).await;
    s.click_css("[data-testid=chat-send]").await;
}

/// As the model (the person writes its answer in the completion's review): answers `text`.
async fn answer_as_model(s: &webdriver::Session, text: &str) {
    s.wait_for(
        "[data-testid=review-dialog][data-kind=sampling_completion]",
        SHORT,
    )
    .await;
    s.type_into("[data-testid=completion-text-0]", text).await;
    approve_review(s).await;
}

/// Marks the `everything` server's process so a scenario can find (and kill) it.
fn mark() -> String {
    format!("switchboard-e2e-{}", std::process::id())
}

/// A scenario running against the shared window.
type Run = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

/// One scenario: its name and how it runs.
type Scenario = (&'static str, fn(Arc<Desktop>) -> Run);

macro_rules! scenarios {
    ($($name:ident),* $(,)?) => {
        [$((
            stringify!($name),
            (|d: Arc<Desktop>| -> Run { Box::pin(async move { scenarios::$name(&d).await }) })
                as fn(Arc<Desktop>) -> Run,
        )),*]
    };
}

/// Every scenario in one window. Each runs on its own task, so a failure is reported with its
/// name and the scenarios after it still run; the test fails at the end if any did.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_person_uses_every_screen() {
    let desktop = Arc::new(Desktop::start().await);
    let all: [Scenario; 36] = scenarios![
        servers_and_tools,
        enum_first_option,
        tools_screen_remembers,
        sampling_edited_both_ways,
        provider_streams_its_answer,
        elicitation_form,
        a_long_call_runs_as_a_task,
        chat_with_a_tool_call_and_a_prompt,
        // After the chat above approved the server's tools, before a rule allows echo outright.
        chat_shows_edited_arguments,
        first_chat_reviews_tools,
        approvals_pins_and_rules,
        steer_the_models_tools,
        resources_page_and_view,
        prompts_with_completion,
        roots_reach_the_server,
        a_killed_server_restarts,
        sign_in_to_a_protected_server,
        import_through_the_native_picker,
        an_untrusted_start_says_why,
        import_from_where_claude_keeps_it,
        a_hand_edit_is_never_lost,
        a_second_launch_hands_over_to_the_first,
        server_content_cannot_take_over_the_window,
        an_mcp_app_renders_and_asks_through_the_door,
        the_official_example_apps_render,
        a_view_cannot_reach_the_app,
        a_view_page_in_the_main_window_can_invoke_nothing,
        an_open_request_survives_a_reload,
        install_from_the_gallery_and_call,
        a_link_and_a_bundle_open_their_forms,
        keep_a_private_registry,
        skills_listed_viewed_and_taken_to_chat,
        see_the_wire,
        keep_a_traffic_session,
        compare_models_on_one_request,
        traffic_under_a_flood,
    ];
    // `E2E_ONLY=a,b` runs only those scenarios (while working on them; CI runs every one).
    let only = std::env::var("E2E_ONLY").ok();
    let chosen = |name: &str| {
        only.as_deref()
            .is_none_or(|o| o.split(',').any(|n| n == name))
    };
    let mut failed = Vec::new();
    for (name, run) in all.into_iter().filter(|(name, _)| chosen(name)) {
        eprintln!("e2e scenario: {name}");
        if tokio::spawn(run(desktop.clone())).await.is_err() {
            eprintln!("e2e scenario FAILED: {name}");
            desktop.screenshot(&format!("failed-{name}.png")).await;
            failed.push(name);
            dismiss_reviews(&desktop).await;
        }
    }
    let Ok(mut desktop) = Arc::try_unwrap(desktop) else {
        panic!("a scenario kept the window");
    };
    window_state_survives_a_restart(&mut desktop).await;
    desktop.finish().await;
    assert!(failed.is_empty(), "failed scenarios: {failed:?}");
}

/// The installed package runs: `scripts/package-test.sh` installs the debug .deb first (CI runs
/// it after the other tests) and removes it after.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs the package installed: scripts/package-test.sh"]
async fn the_installed_package_runs() {
    installed::the_installed_package_runs().await;
}

/// The window opens where and as large as the person left it, after the app was ended by a
/// signal (Ctrl+C, `kill`, logout) as after a close; and such an end shuts its servers down.
async fn window_state_survives_a_restart(desktop: &mut Desktop) {
    let s = &desktop.session;
    s.set_rect([40, 30, 1000, 700]).await;
    let mut before = s.rect().await;
    for _ in 0..50 {
        if before[2..] == [1000, 700] {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        before = s.rect().await;
    }
    assert_eq!(before[2..], [1000, 700], "the window was not resized");
    let server = desktop::pid_with_env("E2E_MARK", &mark());
    desktop.restart().await;
    if let Some(pid) = server {
        assert!(!desktop::alive(pid), "a server outlived the app");
    }
    let s = &desktop.session;
    s.wait_for(&row("fixture", "running"), LONG).await;
    assert_eq!(
        s.rect().await,
        before,
        "the window's place and size were not restored"
    );
}

/// Rejects whatever review a failed scenario left on screen, so the next one starts clear.
async fn dismiss_reviews(desktop: &Desktop) {
    let s = &desktop.session;
    for _ in 0..5 {
        if s.all("[data-testid=review-dialog]").await.is_empty() {
            return;
        }
        for reject in s.all("[data-testid=review-deny]").await {
            // Best effort: a review already gone refuses the click, which is what was wanted.
            let _ = s.click(&reject).await;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}
