//! A small W3C WebDriver client over HTTP: just what the end-to-end tests use (sessions, finding
//! elements by CSS, clicking, typing, reading text and attributes, running a script, frames,
//! screenshots).

use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The key WebDriver knows as the element reference in JSON.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// Records, in the page, the events that reach the document from now on (type, target, value,
/// time) and each script's setting of a select's value or an option's selectedness (with the first
/// frames of the script that did it), so that a choice the page does not keep can say what
/// happened around it and who put the old value back.
const EVENT_TRAIL: &str = "window.__e2eTrail = []; \
    if (!window.__e2eTrailOn) { window.__e2eTrailOn = true; \
      for (const type of ['change', 'input', 'keydown', 'mousedown', 'click', 'focusin']) { \
        document.addEventListener(type, (e) => { const t = e.target; \
          window.__e2eTrail.push(`${Math.round(performance.now())} ${type} ${t.tagName || ''}\
${t.dataset && t.dataset.testid ? '[' + t.dataset.testid + ']' : ''}\
${t.dataset && t.dataset.name ? '(' + t.dataset.name + ')' : ''} ${'value' in t ? t.value : ''}\
${e.isTrusted ? '' : ' synthetic'}`); }, true); } \
      const setters = [[HTMLSelectElement, 'value'], [HTMLSelectElement, 'selectedIndex'], [HTMLOptionElement, 'selected']]; \
      for (const [type, name] of setters) { \
        const d = Object.getOwnPropertyDescriptor(type.prototype, name); \
        Object.defineProperty(type.prototype, name, { ...d, set(v) { \
          const from = (new Error().stack || '').split('\\n').slice(1, 4).join(' < '); \
          window.__e2eTrail.push(`${Math.round(performance.now())} set ${type.name}.${name} ${this.value ?? ''}=${v} by ${from}`); \
          d.set.call(this, v); } }); } }";

pub struct Session {
    http: reqwest::Client,
    base: String,
}

#[derive(Clone, Debug)]
pub struct Element(String);

impl Session {
    /// Starts the app at `application` through tauri-driver on `port`.
    pub async fn start(port: u16, application: &str) -> Self {
        // No WebDriver call may hang the test run.
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(90))
            .build()
            .expect("http client");
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "wry",
            "tauri:options": {"application": application}
        }}});
        let mut last = String::new();
        for _ in 0..60 {
            match http
                .post(format!("http://127.0.0.1:{port}/session"))
                .json(&caps)
                .send()
                .await
            {
                Ok(r) => {
                    let body: Value = r.json().await.unwrap_or_default();
                    if let Some(id) = body["value"]["sessionId"].as_str() {
                        return Self {
                            http,
                            base: format!("http://127.0.0.1:{port}/session/{id}"),
                        };
                    }
                    last = body.to_string();
                }
                Err(e) => last = e.to_string(),
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        panic!("no WebDriver session: {last}");
    }

    async fn send(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let mut req = self.http.request(method, format!("{}{path}", self.base));
        if let Some(b) = body {
            req = req.json(&b);
        }
        let resp = req.send().await.expect("webdriver request");
        let v: Value = resp.json().await.expect("webdriver json");
        v["value"].clone()
    }

    async fn post(&self, path: &str, body: Value) -> Value {
        self.send(reqwest::Method::POST, path, Some(body)).await
    }

    async fn get(&self, path: &str) -> Value {
        self.send(reqwest::Method::GET, path, None).await
    }

    /// All elements matching `css` right now (through the page's own querySelectorAll, which
    /// handles every selector the UI's tests use).
    pub async fn all(&self, css: &str) -> Vec<Element> {
        let v = self
            .script(
                "return Array.from(document.querySelectorAll(arguments[0]))",
                json!([css]),
            )
            .await;
        v.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|e| e[ELEMENT].as_str().map(|s| Element(s.to_owned())))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Waits up to `timeout` for an element matching `css`.
    pub async fn wait_for(&self, css: &str, timeout: Duration) -> Element {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(e) = self.all(css).await.into_iter().next() {
                return e;
            }
            if Instant::now() > deadline {
                let body = self
                    .script("return document.body.innerText.slice(0, 2000)", json!([]))
                    .await;
                // An open dialog is where a scenario usually stands, and the screen behind it
                // fills the first 2,000 characters of the page.
                let dialogs = self
                    .script(
                        "return [...document.querySelectorAll('[role=dialog], [data-testid=compare]')].map(d => d.innerText.slice(0, 2000))",
                        json!([]),
                    )
                    .await;
                // A select's chosen value is not in the page's text; it is often the clue.
                let selects = self
                    .script(
                        "return [...document.querySelectorAll('select')].map(s => `${s.dataset.testid}=${s.value}`)",
                        json!([]),
                    )
                    .await;
                panic!(
                    "no element {css} after {timeout:?}; the selects hold {selects}; the dialogs \
                     say {dialogs}; the page says:\n{body}"
                );
            }
            tokio::time::sleep(Duration::from_millis(150)).await;
        }
    }

    /// Waits up to `timeout` until no element matches `css`.
    pub async fn wait_gone(&self, css: &str, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        while !self.all(css).await.is_empty() {
            assert!(
                Instant::now() < deadline,
                "{css} still there after {timeout:?}"
            );
            tokio::time::sleep(Duration::from_millis(150)).await;
        }
    }

    /// Waits until `check` holds for the text of the first element matching `css`.
    pub async fn wait_text(
        &self,
        css: &str,
        timeout: Duration,
        check: impl Fn(&str) -> bool,
    ) -> String {
        let deadline = Instant::now() + timeout;
        let mut last = String::new();
        loop {
            if let Some(e) = self.all(css).await.into_iter().next() {
                last = self.text(&e).await;
                if check(&last) {
                    return last;
                }
            }
            if Instant::now() > deadline {
                // The visible text can differ from the markup (hidden, clipped): show both.
                let html = self
                    .script(
                        "let e = document.querySelector(arguments[0]); const out = [e ? e.outerHTML.slice(0, 300) : null]; while (e) { const r = e.getBoundingClientRect(); const c = getComputedStyle(e); out.push(e.tagName + '.' + e.className + ' ' + [r.x, r.y, r.width, r.height].map(Math.round).join(',') + ' ' + c.display + ' ' + c.overflow + ' ' + c.visibility + ' ' + c.opacity); e = e.parentElement; } return out.join('\\n')",
                        json!([css]),
                    )
                    .await;
                panic!("{css} never had the expected text; last: {last:?}; markup: {html}");
            }
            tokio::time::sleep(Duration::from_millis(150)).await;
        }
    }

    /// WebDriver's errors for a click that did not happen, which may be done again.
    const NOT_CLICKED: [&str; 4] = [
        "stale element reference",
        "element click intercepted",
        "element not interactable",
        "no such element",
    ];

    /// Clicks `e`; WebDriver's answer is an object with `error` when it refused (an element
    /// the page re-drew since it was found, one covered by another).
    pub async fn click(&self, e: &Element) -> Value {
        self.post(&format!("/element/{}/click", e.0), json!({}))
            .await
    }

    /// Runs later commands inside the frame `e` until [`Session::leave_frame`].
    pub async fn enter_frame(&self, e: &Element) {
        let v = self.post("/frame", json!({"id": {ELEMENT: e.0}})).await;
        assert!(
            v.is_null() || v.get("error").is_none(),
            "cannot enter the frame: {v}"
        );
    }

    /// Back to the window's own document.
    pub async fn leave_frame(&self) {
        self.post("/frame/parent", json!({})).await;
    }

    /// Clicks the first element matching `css`, waiting for it and, as a person would, for it to
    /// be enabled (a click on a disabled button does nothing, and would fail the step later).
    /// A click WebDriver refuses is done again on the element found anew: one the page re-drew
    /// between finding and clicking is stale, and the click would be lost unseen.
    pub async fn click_css(&self, css: &str) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let e = self.wait_for(css, Duration::from_secs(20)).await;
            let disabled = self
                .script_on("return arguments[0].disabled === true", &e)
                .await;
            let refused = match disabled == json!(true) {
                true => json!("it stayed disabled"),
                false => match self.click(&e).await.get("error") {
                    None => return,
                    Some(error) if Self::NOT_CLICKED.contains(&error.as_str().unwrap_or("")) => {
                        error.clone()
                    }
                    // The click may have happened: doing it again could do its work twice.
                    Some(error) => panic!("clicking {css} was answered with {error}"),
                },
            };
            assert!(
                Instant::now() < deadline,
                "clicking {css} failed for 20 s: {refused}"
            );
            tokio::time::sleep(Duration::from_millis(150)).await;
        }
    }

    /// Replaces the value of an input or textarea as a person typing would. The field is found
    /// again and the typing done again when WebDriver refuses it: a field the page re-drew
    /// between finding and typing is a stale element, and the typing would be lost unseen.
    pub async fn type_into(&self, css: &str, text: &str) {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let e = self.wait_for(css, Duration::from_secs(20)).await;
            // WebKitWebDriver refuses keys of no text ("invalid argument"): a field is emptied
            // by deleting what it holds, key by key.
            if text.is_empty() {
                let deleted = self.delete_what_it_holds(&e).await;
                let Some(refused) = deleted.get("error") else {
                    return;
                };
                assert!(
                    Instant::now() < deadline,
                    "emptying {css} was refused for 20 s: {refused}"
                );
                continue;
            }
            // WebDriver's clear fires no `input` event, so a React-controlled field can put its
            // old value back before the keys arrive; empty it the way a person's edit would.
            let cleared = self
                .script_on(
                    "const el = arguments[0]; \
                     const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype; \
                     Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, ''); \
                     el.dispatchEvent(new Event('input', { bubbles: true }));",
                    &e,
                )
                .await;
            let typed = self
                .post(&format!("/element/{}/value", e.0), json!({ "text": text }))
                .await;
            let refused = [&cleared, &typed].into_iter().find_map(|v| v.get("error"));
            let Some(refused) = refused else {
                return;
            };
            assert!(
                Instant::now() < deadline,
                "typing into {css} was refused for 20 s: {refused}"
            );
        }
    }

    /// Deletes what field `e` holds as a person does: End, then one Backspace a character (key
    /// events the page cannot tell from a person's). A scripted emptying (the native setter and
    /// an `input` event) was lost twice in CI runs under load: the Tools screen's search kept its
    /// text, and every scenario after it saw a filtered list.
    async fn delete_what_it_holds(&self, e: &Element) -> Value {
        let held = self.script_on("return arguments[0].value", e).await;
        let Some(held) = held.as_str().filter(|h| !h.is_empty()) else {
            return held; // Empty already, or an error to act on.
        };
        let keys = format!("\u{E010}{}", "\u{E003}".repeat(held.chars().count()));
        self.post(&format!("/element/{}/value", e.0), json!({ "text": keys }))
            .await
    }

    /// Chooses an option of a <select> by value as a person does, with a click on the option
    /// (WebDriver selects it and fires the events a person's choice fires), and fails when the
    /// page did not keep the choice (the select gone, or back to another value within a few
    /// seconds).
    pub async fn select(&self, css: &str, value: &str) {
        let e = self.wait_for(css, Duration::from_secs(20)).await;
        let find = "const [el, v] = arguments; \
            const deadline = Date.now() + 15000; \
            for (;;) { \
              const o = [...el.options].find(o => o.value === v); \
              if (o) return o; \
              if (Date.now() > deadline) return false; \
              await new Promise(r => setTimeout(r, 100)); }";
        let found = self.script_async_el(find, &e, json!(value)).await;
        let Some(option) = found[ELEMENT].as_str() else {
            panic!("{css} never offered {value:?}")
        };
        // What the page sees from here on, said with a choice it did not keep.
        self.script(EVENT_TRAIL, json!([])).await;
        let clicked = self.click(&Element(option.to_owned())).await;
        assert!(
            clicked.get("error").is_none(),
            "choosing {value:?} in {css} was refused: {clicked}"
        );
        // Once the page has drawn what the choice changed: a page that puts the select back
        // does it by then.
        // A select the choice re-rendered is looked up again by `css`.
        let check = "const [first, {v, css}] = arguments; let el = first; \
            for (let i = 0; i < 2; i++) await new Promise(r => requestAnimationFrame(() => setTimeout(r, 0))); \
            const settled = Date.now() + 5000; \
            for (;;) { \
              if (!el.isConnected) el = document.querySelector(css) || el; \
              if (!el.isConnected) return 'the select is gone'; \
              if (el.value === v) return true; \
              if (Date.now() > settled) break; \
              await new Promise(r => setTimeout(r, 50)); } \
            return `the page set the select back to ${JSON.stringify(el.value)} \
              (options ${JSON.stringify([...el.options].map(o => o.value))}, shown ${el.offsetParent !== null}, \
              selects like it ${document.querySelectorAll('select[data-testid=' + el.dataset.testid + ']').length}; \
              events since the click: ${JSON.stringify((window.__e2eTrail || []).slice(0, 40))})`;";
        // Under load the page drew between the listeners of one `input` event and put the old
        // value back before the select's own listeners read it: choices were lost in CI runs (the
        // Traffic filter, the chat's model, the pins panel's and the Tools screen's server). The
        // UI's `Choice` reads the value the first listener of the event noted, so a choice not
        // kept is a bug; the trail above says who set the select back.
        let kept = self
            .script_async_el(check, &e, json!({"v": value, "css": css}))
            .await;
        assert_eq!(kept, Value::Bool(true), "choosing {value:?} in {css}");
    }

    async fn script_async_el(&self, body: &str, e: &Element, arg: Value) -> Value {
        // execute/async with a promise-returning function body.
        let script = format!(
            "const done = arguments[arguments.length - 1]; (async function() {{ {body} }}).apply(null, [arguments[0], arguments[1]]).then(done, e => done(String(e)));"
        );
        self.post(
            "/execute/async",
            json!({"script": script, "args": [{ELEMENT: e.0}, arg]}),
        )
        .await
    }

    pub async fn text(&self, e: &Element) -> String {
        self.get(&format!("/element/{}/text", e.0))
            .await
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// Runs a synchronous script in the page.
    pub async fn script(&self, script: &str, args: Value) -> Value {
        self.post("/execute/sync", json!({"script": script, "args": args}))
            .await
    }

    /// Runs an asynchronous script in the page: it answers by calling its last argument.
    pub async fn script_async(&self, script: &str) -> Value {
        self.post("/execute/async", json!({"script": script, "args": []}))
            .await
    }

    /// Asks WebDriver itself to load `url` in the window (what no script in the page could
    /// start); waits at most `timeout` for the load, and answers what WebDriver answered.
    pub async fn goto(&self, url: &str, timeout: Duration) -> Value {
        let ms = timeout.as_millis() as u64;
        self.post("/timeouts", json!({"pageLoad": ms})).await;
        let answered = self.post("/url", json!({"url": url})).await;
        // WebDriver's default again, for every later step.
        self.post("/timeouts", json!({"pageLoad": 300_000})).await;
        answered
    }

    /// Reloads the window and waits until the new document is up: the old one stays scriptable
    /// for a moment after `location.reload()`, so a step taken at once would land on it.
    pub async fn reload(&self) {
        self.script(
            "window.__beforeReload = true; setTimeout(() => location.reload(), 0)",
            json!([]),
        )
        .await;
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let fresh = self
                .script(
                    "return window.__beforeReload !== true && document.readyState === 'complete'",
                    json!([]),
                )
                .await;
            if fresh == json!(true) {
                return;
            }
            assert!(Instant::now() < deadline, "the window did not reload");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Runs a script with an element as `arguments[0]`.
    pub async fn script_on(&self, script: &str, e: &Element) -> Value {
        self.post(
            "/execute/sync",
            json!({"script": script, "args": [{ELEMENT: e.0}]}),
        )
        .await
    }

    /// Waits until the page has painted its latest state.
    pub async fn settle(&self) {
        self.post(
            "/execute/async",
            json!({"script": "const done = arguments[arguments.length - 1]; requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(done, 300)));", "args": []}),
        )
        .await;
    }

    /// The URL of the page the window shows.
    pub async fn url(&self) -> String {
        self.get("/url")
            .await
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    /// The window's place and size: `[x, y, width, height]`.
    pub async fn rect(&self) -> [i64; 4] {
        let r = self.get("/window/rect").await;
        ["x", "y", "width", "height"].map(|k| r[k].as_f64().unwrap_or(-1.0).round() as i64)
    }

    /// Moves and resizes the window as a person dragging it would.
    pub async fn set_rect(&self, [x, y, width, height]: [i64; 4]) {
        let r = self
            .post(
                "/window/rect",
                json!({"x": x, "y": y, "width": width, "height": height}),
            )
            .await;
        assert!(r.get("error").is_none(), "set window rect: {r}");
    }

    pub async fn end(self) {
        self.delete().await;
    }

    /// Ends the WebDriver session (WebKitWebDriver allows one at a time); the value is dead after.
    pub async fn delete(&self) {
        let _ = self.http.delete(&self.base).send().await;
    }
}
