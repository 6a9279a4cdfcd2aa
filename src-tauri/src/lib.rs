//! The thin Tauri shell: commands are short adapters onto `switchboard-core`, and core events are
//! forwarded to the window from one place. Nothing here knows MCP.

mod commands;
#[cfg(test)]
mod lint;
mod navigation;
mod opened;
pub mod rendering;
mod views;

use switchboard_core::app::Paths;
use switchboard_core::app::{App, AppBuilder};
use switchboard_core::app::{CoreEvent, Listener};
use tauri::{AppHandle, Emitter, Manager};

/// The event name the UI listens on for state changes ([`CoreEvent`]s, `resync` included).
pub const CORE_EVENT: &str = "core-event";
/// The event name the UI listens on for streamed text, progress and server logs.
pub const CORE_STREAM: &str = "core-stream";

/// Starts the desktop app.
pub fn run() {
    // Through the core's filter: no level puts message contents (typed passwords) in the log.
    let filter = std::env::var("SWITCHBOARD_LOG")
        .ok()
        .and_then(|spec| switchboard_core::app::log_filter(&spec))
        .or_else(|| switchboard_core::app::log_filter("info,rmcp=warn"))
        .unwrap_or_default();
    tracing_subscriber::fmt().with_env_filter(filter).init();
    let result = tauri::Builder::default()
        // First: a second launch focuses the running window instead of starting another host
        // that would spawn every server twice.
        .plugin(tauri_plugin_single_instance::init(|app, args, _cwd| {
            if let Some(window) = app.get_webview_window("main") {
                let _ = window.unminimize();
                let _ = window.set_focus();
            }
            // A bundle or an install link handed to a second launch goes to this one.
            opened::open_all(app.clone(), args.into_iter().skip(1).collect());
        }))
        // The window never leaves the app, whatever its content or script asks.
        .plugin(navigation::guard())
        .plugin(tauri_plugin_window_state::Builder::default().build())
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_opener::init())
        .register_asynchronous_uri_scheme_protocol(switchboard_core::app::SCHEME, views::serve)
        .setup(|app| {
            let paths = Paths::resolve(None, None)?;
            // Supervisors are tokio tasks; they live on Tauri's async runtime.
            let core = tauri::async_runtime::block_on(AppBuilder::new(paths).build())?;
            forward(app.handle().clone(), core.events().control(), CORE_EVENT);
            forward(app.handle().clone(), core.events().streams(), CORE_STREAM);
            exit_on_signal(app.handle().clone());
            app.manage(core);
            app.manage(commands::ImportChoice::default());
            app.manage(commands::BundlePick::default());
            opened::open_all(app.handle().clone(), std::env::args().skip(1).collect());
            Ok(())
        })
        .on_window_event(|window, event| {
            if let tauri::WindowEvent::DragDrop(tauri::DragDropEvent::Drop { paths, .. }) = event {
                let paths = paths
                    .iter()
                    .map(|p| p.to_string_lossy().into_owned())
                    .collect();
                opened::open_all(window.app_handle().clone(), paths);
            }
        })
        .invoke_handler(commands::handler())
        .build(tauri::generate_context!());
    let app = match result {
        Ok(app) => app,
        Err(e) => {
            eprintln!("Switchboard could not start: {e}");
            std::process::exit(1);
        }
    };
    app.run(|handle, event| {
        if let tauri::RunEvent::Exit = event {
            // No server process may outlive the app.
            let core = handle.state::<App>();
            tauri::async_runtime::block_on(core.shutdown());
        }
    });
}

/// Ctrl+C in the terminal, `kill` and a session logout end the app as closing its window does:
/// servers are shut down and the window's size and place are saved for the next start (both
/// happen on `RunEvent::Exit`, which a signal's default action would skip).
fn exit_on_signal(app: AppHandle) {
    #[cfg(unix)]
    tauri::async_runtime::spawn(async move {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut term), Ok(mut int)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::interrupt()),
        ) else {
            tracing::warn!("cannot listen for SIGTERM/SIGINT; a signal ends the app abruptly");
            return;
        };
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
        tracing::info!("signal received; closing");
        app.exit(0);
    });
    #[cfg(not(unix))]
    let _ = app;
}

/// Emits what `events` hears to the window as `name`. A `resync` means state events were lost,
/// so the window re-reads everything it shows; lost stream events (text, progress, logs) need no
/// such reload, as the messages and results they lead to are state events of their own.
fn forward(window: AppHandle, mut events: Listener, name: &'static str) {
    tauri::async_runtime::spawn(async move {
        while let Some(event) = events.recv().await {
            if name == CORE_STREAM && matches!(event, CoreEvent::Resync(_)) {
                continue;
            }
            let _ = window.emit(name, event);
        }
    });
}
