//! Seeing the wire as a person does: a call they made is on the Traffic screen with its answer,
//! paired and timed, its body a tree; a session kept and read back; the window responsive while a
//! server floods it with 10,000 messages a second for a minute. And one sampling request sent to
//! two models side by side, one answer picked to go back.

use std::time::Duration;

use serde_json::json;

use super::desktop::Desktop;
use super::{LONG, SHORT, add_provider, open_tool, replay_provider};

/// A call made on the Tools screen shows on the Traffic screen: the request, its response with
/// the latency, the body as a tree.
pub async fn see_the_wire(desktop: &Desktop) {
    let s = &desktop.session;
    open_tool(s, "fixture", "echo").await;
    s.type_into("[data-testid=arg-text]", "across the wire")
        .await;
    s.click_css("[data-testid=call-tool]").await;
    s.wait_text("[data-testid=tool-result]", SHORT, |t| {
        t.contains("across the wire")
    })
    .await;
    s.click_css("[data-testid=nav-traffic]").await;
    s.select("[data-testid=traffic-server]", "fixture").await;
    s.type_into("[data-testid=traffic-search]", "across the wire")
        .await;
    // The search applies once typing pauses: the list then holds only the call and its answer.
    // Counted, not read: a search applied to the first letters typed also leaves the call in a
    // list without `server/discover` when that is scrolled out of it.
    wait_for_rows(s, 2).await;
    wait_for_list(s, SHORT, |t| t.contains("tools/call")).await;
    let request = "[data-testid=traffic-row][data-kind=request][data-direction=out]";
    s.click_css(request).await;
    s.wait_text("[data-testid=traffic-json]", SHORT, |t| {
        t.contains("tools/call") && t.contains("across the wire")
    })
    .await;
    s.wait_text("[data-testid=traffic-pair]", SHORT, |t| t.contains("ms"))
        .await;
    s.wait_for(
        "[data-testid=traffic-row][data-kind=response][data-direction=in]",
        SHORT,
    )
    .await;
    desktop.screenshot("traffic.png").await;
    s.type_into("[data-testid=traffic-search]", "").await;
}

/// Waits until the traffic list holds `n` rows.
async fn wait_for_rows(s: &super::webdriver::Session, n: u64) {
    let deadline = std::time::Instant::now() + SHORT;
    let count = "return document.querySelectorAll('[data-testid=traffic-row]').length";
    loop {
        let rows = s.script(count, json!([])).await;
        if rows.as_u64() == Some(n) {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the traffic list never held {n} rows; it held {rows}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// Waits until the traffic list's text passes `done`. Read from the DOM: the driver's visible
/// text of the virtualized list (absolutely placed rows) is empty in WebKit.
async fn wait_for_list(
    s: &super::webdriver::Session,
    timeout: std::time::Duration,
    done: impl Fn(&str) -> bool,
) {
    let deadline = std::time::Instant::now() + timeout;
    let read = "return document.querySelector('[data-testid=traffic-list]')?.textContent ?? ''";
    loop {
        let text = s.script(read, json!([])).await;
        if done(text.as_str().unwrap_or_default()) {
            return;
        }
        if std::time::Instant::now() >= deadline {
            let state = s.script(LIST_STATE, json!([])).await;
            panic!(
                "the traffic list never showed what was expected; its state: {state}; last: {text}"
            );
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// What the screen says of its list (the footer, an error) and where the list is scrolled, for a
/// failure to say why.
const LIST_STATE: &str = "
    const list = document.querySelector('[data-testid=traffic-list]');
    const text = (id) => document.querySelector(`[data-testid=${id}]`)?.textContent ?? null;
    return {
        status: text('traffic-status'),
        error: text('traffic-error'),
        scrollTop: list?.scrollTop, scrollHeight: list?.scrollHeight, clientHeight: list?.clientHeight,
    };
";

/// Records the gaps between the window's frames from now on.
const RECORD_FRAMES: &str = "
    window.__frames = [];
    let last = performance.now();
    const tick = (now) => {
        window.__frames.push(now - last);
        last = now;
        if (!window.__framesStop) requestAnimationFrame(tick);
    };
    window.__framesStop = false;
    requestAnimationFrame(tick);
";

/// Stops recording; returns the frame count, the median, 99th percentile and longest gap (ms).
const FRAME_FIGURES: &str = "
    window.__framesStop = true;
    const gaps = window.__frames.slice(1).sort((a, b) => a - b);
    const at = (q) => gaps[Math.min(gaps.length - 1, Math.floor(q * gaps.length))];
    return [gaps.length, at(0.5), at(0.99), gaps[gaps.length - 1]];
";

/// A server sends 10,000 messages a second for a minute while the Traffic screen follows it:
/// the list keeps up and the window keeps drawing frames.
pub async fn traffic_under_a_flood(desktop: &Desktop) {
    let s = &desktop.session;
    open_tool(s, "fixture", "flood").await;
    s.type_into("[data-testid=arg-perSecond]", "10000").await;
    s.type_into("[data-testid=arg-seconds]", "60").await;
    s.click_css("[data-testid=call-tool]").await;
    s.wait_text("[data-testid=tool-result]", SHORT, |t| {
        t.contains("flooding")
    })
    .await;
    s.click_css("[data-testid=nav-traffic]").await;
    s.select("[data-testid=traffic-server]", "fixture").await;
    s.script(RECORD_FRAMES, json!([])).await;
    // The flood's last message ends it (its only log message, `notifications/message`): the
    // list shows it once it has kept up.
    wait_for_list(s, LONG + LONG, |t| t.contains("notifications/message")).await;
    let figures = s.script(FRAME_FIGURES, json!([])).await;
    let [frames, median, p99, longest] = [0, 1, 2, 3].map(|i| figures[i].as_f64().unwrap_or(0.0));
    eprintln!(
        "traffic flood: {frames} frames, gap median {median:.0} ms, p99 {p99:.0} ms, longest {longest:.0} ms"
    );
    desktop.screenshot("traffic-flood.png").await;
    assert!(
        frames >= 600.0,
        "the window drew {frames} frames in a minute"
    );
    assert!(median <= 50.0, "frames came {median:.0} ms apart (median)");
    assert!(longest <= 1000.0, "the window froze for {longest:.0} ms");
}

/// A session kept while a call crosses the wire, stopped, and opened again from the kept
/// sessions: the call is there, read from the database rather than the live rings.
pub async fn keep_a_traffic_session(desktop: &Desktop) {
    let s = &desktop.session;
    s.click_css("[data-testid=nav-traffic]").await;
    s.click_css("[data-testid=traffic-keep][aria-pressed=false]")
        .await;
    s.wait_for("[data-testid=traffic-keeping]", SHORT).await;
    open_tool(s, "fixture", "echo").await;
    s.type_into("[data-testid=arg-text]", "kept for later")
        .await;
    s.click_css("[data-testid=call-tool]").await;
    s.wait_text("[data-testid=tool-result]", SHORT, |t| {
        t.contains("kept for later")
    })
    .await;
    s.click_css("[data-testid=nav-traffic]").await;
    s.click_css("[data-testid=traffic-keep][aria-pressed=true]")
        .await;
    s.wait_for("[data-testid=traffic-keep][aria-pressed=false]", SHORT)
        .await;
    s.click_css("[data-testid=traffic-sessions-open]").await;
    s.wait_text("[data-testid=traffic-session]", SHORT, |t| {
        t.contains("messages")
    })
    .await;
    s.click_css("[data-testid=traffic-session-view]").await;
    s.wait_text("[data-testid=traffic-viewing]", SHORT, |t| {
        t.contains("not live traffic")
    })
    .await;
    s.type_into("[data-testid=traffic-search]", "kept for later")
        .await;
    // The search has applied once the call is all that is left: the session also holds the
    // server's discovery and, unless the Tools screen's list was still fresh, a tools/list.
    wait_for_list(s, SHORT, |t| {
        t.contains("tools/call") && !t.contains("tools/list") && !t.contains("server/discover")
    })
    .await;
    s.click_css("[data-testid=traffic-row][data-kind=request][data-direction=out]")
        .await;
    s.wait_text("[data-testid=traffic-json]", SHORT, |t| {
        t.contains("kept for later")
    })
    .await;
    desktop.screenshot("traffic-kept.png").await;
    s.type_into("[data-testid=traffic-search]", "").await;
    s.click_css("[data-testid=traffic-live]").await;
    s.click_css("[data-testid=traffic-sessions-open]").await;
}

/// Adds a provider as [`add_provider`] does, with prices for its model (dollars per million
/// tokens: 2.50 in, 10 out).
async fn add_priced_provider(s: &super::webdriver::Session, id: &str, base: &str) {
    s.click_css("[data-testid=nav-models]").await;
    s.click_css("[data-testid=add-provider]").await;
    s.type_into("[data-testid=provider-id]", id).await;
    s.type_into("[data-testid=provider-url]", &format!("{base}/v1"))
        .await;
    s.type_into("[data-testid=provider-key-input]", "sk-priced")
        .await;
    s.type_into("[data-testid=custom-model]", "gpt-4o-mini")
        .await;
    s.click_css("[data-testid=add-model]").await;
    s.type_into(
        "[data-testid=rating-row] [data-testid=rating-inputPrice]",
        "2.5",
    )
    .await;
    s.type_into(
        "[data-testid=rating-row] [data-testid=rating-outputPrice]",
        "10",
    )
    .await;
    s.click_css("[data-testid=save-provider]").await;
}

/// Ticks exactly the models `wanted` in the comparison's picker.
const TICK_MODELS: &str = "
    for (const box of document.querySelectorAll('[data-testid=compare-model]')) {
        if (box.checked !== arguments[0].includes(box.dataset.model)) box.click();
    }
";

/// A server's sampling request sent, from its dialog, to two models at once: both answers
/// stream side by side with their latency and tokens, and the one picked goes back to the server.
pub async fn compare_models_on_one_request(desktop: &Desktop) {
    let s = &desktop.session;
    let pause = Duration::from_millis(200);
    let sse = include_str!("../../src-tauri/core/tests/providers/openai_text.sse");
    let (left, right) = (
        replay_provider::Provider::replay_every(sse, pause),
        replay_provider::Provider::replay_every(sse, pause),
    );
    add_priced_provider(s, "left", &left.base).await;
    add_provider(s, "right", &right.base, "sk-right").await;
    // Each saved with its model, which the comparison's picker offers.
    for id in ["left", "right"] {
        s.wait_text(
            &format!("[data-testid=provider-row][data-id={id}]"),
            SHORT,
            |t| t.contains("gpt-4o-mini"),
        )
        .await;
    }
    open_tool(s, "everything", "trigger-sampling-request").await;
    s.type_into("[data-testid=arg-prompt]", "What is the capital of France?")
        .await;
    s.click_css("[data-testid=call-tool]").await;
    s.wait_for(
        "[data-testid=review-dialog][data-kind=sampling_request]",
        SHORT,
    )
    .await;
    s.click_css("[data-testid=compare-open]").await;
    s.wait_for(
        "[data-testid=compare-model][data-model='right/gpt-4o-mini']",
        SHORT,
    )
    .await;
    let wanted = json!([["left/gpt-4o-mini", "right/gpt-4o-mini"]]);
    s.script(TICK_MODELS, wanted).await;
    s.click_css("[data-testid=compare-run]:not([disabled])")
        .await;
    s.wait_text("[data-testid=compare-columns]", LONG, |t| {
        t.matches("The capital of France is Paris.").count() >= 2
    })
    .await;
    s.wait_for("[data-testid=compare-use]:not([disabled])", SHORT)
        .await;
    // 24 tokens in at $2.50 and 7 out at $10 per million: $0.00013; right has no prices.
    let cost = |model: &str| {
        format!(
            "[data-testid=compare-column][data-model='{model}/gpt-4o-mini'] [data-testid=compare-cost]"
        )
    };
    s.wait_text(&cost("left"), SHORT, |t| t == "$0.00013").await;
    s.wait_text(&cost("right"), SHORT, |t| t.starts_with("cost unknown"))
        .await;
    desktop.screenshot("compare-models.png").await;
    s.click_css(
        "[data-testid=compare-column][data-model='right/gpt-4o-mini'] [data-testid=compare-use]",
    )
    .await;
    s.wait_text("[data-testid=tool-result]", SHORT, |t| {
        t.contains("The capital of France is Paris.")
    })
    .await;
    for provider in [&left, &right] {
        let requests = provider.requests();
        assert_eq!(requests.len(), 1, "{requests:?}");
        assert!(
            requests[0].1["messages"]
                .to_string()
                .contains("What is the capital of France?")
        );
    }
}
