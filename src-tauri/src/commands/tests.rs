//! The window's command surface: the shell registers the core's command table, the app manifest
//! and the capability are that table, a page from anywhere but the app can invoke nothing, the
//! window cannot name a file to import, and the commands with a rule of their own keep it.
//!
//! The invoke tests run Tauri's own IPC and ACL code (`Webview::on_message`) on the mock runtime
//! (`tauri::test`), with the app's real context (`generate_context!`: tauri.conf.json, the
//! capability, the app manifest build.rs makes) and the real handler and core. The one step
//! they stand in for is WebKit telling Tauri which page a request came from: the request names
//! its page's URL, as the real IPC does from the page's origin. Loading a foreign page in the
//! real window is not possible to begin with (the navigation guard refuses it; the e2e test
//! shows so), and a second real window needs a display that unit tests do not have.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::{Value, json};
use switchboard_core::app::AppBuilder;
use switchboard_core::app::BaseEnv;
use switchboard_core::app::MemoryStore;
use switchboard_core::app::Paths;
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{INVOKE_KEY, MockRuntime};
use tauri::webview::InvokeRequest;
use tauri::{WebviewUrl, WebviewWindow, WebviewWindowBuilder};

/// Where the built UI is served from (Linux and macOS).
const APP_PAGE: &str = "tauri://localhost/index.html";
const FOREIGN_PAGE: &str = "https://example.com/";

fn table() -> BTreeSet<String> {
    switchboard_core::app::commands::all()
        .iter()
        .map(|c| c.name.to_owned())
        .collect()
}

/// The shell registers exactly the commands of the core's table (which the UI's bindings
/// and backend are checked against).
#[test]
fn the_shell_registers_exactly_the_core_command_table() {
    let registered: BTreeSet<String> = super::names().into_iter().map(String::from).collect();
    assert_eq!(registered, table());
}

/// The app manifest build.rs read from the table, and the capability granted to the main window,
/// list exactly the table's commands (plus listening to the host's events, which the UI's
/// backend does); neither grants anything to another window or to a remote page.
#[test]
fn the_manifest_and_the_capability_are_the_command_table() {
    let manifests: Value = serde_json::from_str(include_str!(concat!(
        env!("OUT_DIR"),
        "/acl-manifests.json"
    )))
    .unwrap();
    let mut in_manifest = BTreeSet::new();
    for permission in manifests["__app-acl__"]["permissions"]
        .as_object()
        .unwrap()
        .values()
    {
        for command in permission["commands"]["allow"].as_array().unwrap() {
            in_manifest.insert(command.as_str().unwrap().to_owned());
        }
    }
    assert_eq!(in_manifest, table(), "build.rs's app manifest");

    let capability: Value =
        serde_json::from_str(include_str!("../../capabilities/default.json")).unwrap();
    assert_eq!(capability["windows"], json!(["main"]));
    assert!(capability.get("webviews").is_none(), "{capability}");
    assert!(capability.get("remote").is_none(), "{capability}");
    let granted: BTreeSet<String> = capability["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().expect("a permission without a scope").to_owned())
        .collect();
    let expected: BTreeSet<String> = ["core:event:allow-listen", "core:event:allow-unlisten"]
        .into_iter()
        .map(String::from)
        .chain(
            table()
                .iter()
                .map(|c| format!("allow-{}", c.replace('_', "-"))),
        )
        .collect();
    assert_eq!(
        granted.difference(&expected).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "granted beyond the table"
    );
    assert_eq!(
        expected.difference(&granted).collect::<Vec<_>>(),
        Vec::<&String>::new(),
        "in the table, not granted"
    );
}

/// A mock app with the real context, handler and core (on an empty config), and a window.
struct Mock {
    app: tauri::App<MockRuntime>,
    dir: tempfile::TempDir,
}

impl Mock {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let paths = Paths {
            config_file: dir.path().join("config.json"),
            data_dir: dir.path().join("data"),
        };
        let core = tauri::async_runtime::block_on(
            AppBuilder::new(paths)
                .secrets(Arc::new(MemoryStore::default()))
                .base_env(BaseEnv::from_current())
                .build(),
        )
        .unwrap();
        let app = tauri::test::mock_builder()
            .invoke_handler(super::handler())
            // As the app has it: Tauri counts this scheme's pages as its own ("local").
            .register_asynchronous_uri_scheme_protocol(
                switchboard_core::app::SCHEME,
                crate::views::serve,
            )
            .manage(core)
            .manage(super::ImportChoice::default())
            .build(tauri::generate_context!())
            .unwrap();
        Self { app, dir }
    }

    fn window(&self, label: &str, page: &str) -> WebviewWindow<MockRuntime> {
        let url = if page.starts_with("tauri:") {
            WebviewUrl::App("index.html".into())
        } else {
            WebviewUrl::External(page.parse().unwrap())
        };
        WebviewWindowBuilder::new(&self.app, label, url)
            .build()
            .unwrap()
    }
}

/// Invokes `cmd` with `body` as the page at `page` in `window` would.
fn invoke(
    window: &WebviewWindow<MockRuntime>,
    page: &str,
    cmd: &str,
    body: Value,
) -> Result<Value, Value> {
    // As WebKit sends it over the IPC protocol: the page's scheme and host.
    let page_url: tauri::Url = page.parse().unwrap();
    let origin = format!(
        "{}://{}",
        page_url.scheme(),
        page_url.host_str().unwrap_or("")
    );
    invoke_from(window, page, Some(&origin), cmd, body)
}

/// [`invoke`] with the request's `Origin` header, as a frame's request carries its own.
fn invoke_from(
    window: &WebviewWindow<MockRuntime>,
    page: &str,
    origin: Option<&str>,
    cmd: &str,
    body: Value,
) -> Result<Value, Value> {
    let mut headers = tauri::http::HeaderMap::new();
    if let Some(origin) = origin {
        headers.insert(tauri::http::header::ORIGIN, origin.parse().unwrap());
    }
    tauri::test::get_ipc_response(
        window,
        InvokeRequest {
            cmd: cmd.into(),
            callback: CallbackFn(0),
            error: CallbackFn(1),
            url: page.parse().unwrap(),
            body: InvokeBody::Json(body),
            headers,
            invoke_key: INVOKE_KEY.into(),
        },
    )
    .map(|b| b.deserialize::<Value>().unwrap())
}

fn refused_by_the_acl(answer: &Result<Value, Value>) -> bool {
    matches!(answer, Err(Value::String(why)) if why.contains("not allowed"))
}

/// A foreign page, even in the main window, reaches no command and cannot listen to events.
#[test]
fn a_foreign_page_can_invoke_nothing() {
    let mock = Mock::new();
    let main = mock.window("main", FOREIGN_PAGE);
    // No `args`: a command the ACL let through would fail on its arguments, not open a dialog.
    for cmd in table() {
        let answer = invoke(&main, FOREIGN_PAGE, &cmd, json!({}));
        assert!(refused_by_the_acl(&answer), "{cmd}: {answer:?}");
    }
    let listen = json!({"event": "core-event", "target": {"kind": "Any"}, "handler": 3});
    let answer = invoke(&main, FOREIGN_PAGE, "plugin:event|listen", listen.clone());
    assert!(refused_by_the_acl(&answer), "{answer:?}");
}

/// The app's own page in the main window reaches the commands and events; in any other window
/// it does not.
#[test]
fn the_apps_own_page_in_the_main_window_invokes() {
    let mock = Mock::new();
    let main = mock.window("main", APP_PAGE);
    let config = mock.dir.path().join("config.json").display().to_string();
    let args = json!({"args": {}});
    assert_eq!(
        invoke(&main, APP_PAGE, "config_path", args.clone()),
        Ok(json!(config))
    );
    let listen = json!({"event": "core-event", "target": {"kind": "Any"}, "handler": 3});
    assert!(invoke(&main, APP_PAGE, "plugin:event|listen", listen).is_ok());
    let other = mock.window("other", APP_PAGE);
    let answer = invoke(&other, APP_PAGE, "config_path", args);
    assert!(refused_by_the_acl(&answer), "{answer:?}");
}

/// A view's page (MCP Apps) is on a scheme the app registers, which Tauri's ACL counts as the
/// app's own: in the main window it would pass the ACL. It invokes nothing all the same, and
/// neither does a request from the app's window that says it comes from a view.
#[test]
fn a_view_page_in_the_main_window_can_invoke_nothing() {
    let view = "mcp-app://localhost/0123456789abcdef";
    let mock = Mock::new();
    let main = mock.window("main", view);
    let args = json!({"args": {}});
    for cmd in ["config_path", "list_servers", "list_policies"] {
        let answer = invoke(&main, view, cmd, args.clone());
        assert!(refused_as_not_the_app(&answer), "{cmd}: {answer:?}");
    }
    let mock = Mock::new();
    let main = mock.window("main", APP_PAGE);
    let answer = invoke_from(
        &main,
        APP_PAGE,
        Some("mcp-app://localhost"),
        "config_path",
        args.clone(),
    );
    assert!(refused_as_not_the_app(&answer), "{answer:?}");
    let answer = invoke_from(&main, APP_PAGE, Some("null"), "config_path", args.clone());
    assert!(refused_as_not_the_app(&answer), "{answer:?}");
    let answer = invoke_from(
        &main,
        APP_PAGE,
        Some("tauri://localhost"),
        "config_path",
        args,
    );
    assert!(answer.is_ok(), "{answer:?}");
}

fn refused_as_not_the_app(answer: &Result<Value, Value>) -> bool {
    matches!(answer, Err(e) if e["code"] == "denied" && e["message"] == "Only Switchboard's own window may do this.")
}

/// Import reads only the file the person chose in the native picker: a path from the window is
/// no argument of any import command, and applying without a choice is refused.
#[test]
fn the_window_cannot_name_a_file_to_import() {
    let mock = Mock::new();
    let secret = mock.dir.path().join("secret.json");
    std::fs::write(&secret, r#"{"mcpServers": {"x": {"command": "true"}}}"#).unwrap();
    let main = mock.window("main", APP_PAGE);
    let args = json!({"args": {
        "path": secret.display().to_string(),
        "inputs": {},
        "sourceDigest": "",
    }});
    let answer = invoke(&main, APP_PAGE, "import_apply", args);
    let Err(error) = answer else {
        panic!("imported a file the window named: {answer:?}");
    };
    assert_eq!(error["code"], "invalid_input", "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("choose a file to import first"),
        "{error}"
    );
    assert!(
        std::fs::read_to_string(mock.dir.path().join("config.json")).is_err(),
        "nothing was imported"
    );
}

/// The browser is asked to open https URLs only: no `file:`, `javascript:`, plain http or other
/// scheme a server might put in a link.
#[test]
fn open_external_refuses_everything_but_https() {
    let mock = Mock::new();
    let main = mock.window("main", APP_PAGE);
    for (url, code) in [
        ("file:///etc/passwd", "denied"),
        ("javascript:alert(1)", "denied"),
        ("http://example.com/", "denied"),
        ("data:text/html,<script>alert(1)</script>", "denied"),
        ("vscode://open?file=/etc/passwd", "denied"),
        ("not a url", "invalid_input"),
    ] {
        let answer = invoke(
            &main,
            APP_PAGE,
            "open_external",
            json!({"args": {"url": url}}),
        );
        let Err(error) = answer else {
            panic!("{url} was opened");
        };
        assert_eq!(error["code"], code, "{url}: {error}");
    }
    assert!(super::browser_url("https://example.com/docs").is_ok());
}

/// A name a server suggests for a saved file is only ever a file name: the folder is the one the
/// person picks in the save dialog.
#[test]
fn a_saved_file_keeps_only_the_suggested_name() {
    for (suggested, kept) in [
        ("report.pdf", "report.pdf"),
        ("../../.bashrc", ".bashrc"),
        ("/etc/cron.d/job", "job"),
        ("a/b/c.txt", "c.txt"),
        ("..", "resource.bin"),
        ("/", "resource.bin"),
        ("", "resource.bin"),
    ] {
        assert_eq!(super::file_name_only(suggested), kept, "{suggested}");
    }
}
