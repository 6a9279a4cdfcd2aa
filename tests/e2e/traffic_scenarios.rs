//! The Traffic screen as a person uses it: a call they made is there with its answer, paired and
//! timed, its body a tree; and the window stays responsive while a server floods it with 10,000
//! messages a second for a minute.

use serde_json::json;

use super::desktop::Desktop;
use super::{LONG, SHORT, open_tool};

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
    wait_for_list(s, SHORT, |t| {
        t.contains("tools/call") && !t.contains("server/discover")
    })
    .await;
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
        assert!(
            std::time::Instant::now() < deadline,
            "the traffic list never showed what was expected; last: {text}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

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
