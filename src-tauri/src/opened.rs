//! What the app is asked to open from outside: a `.mcpb` (its file association, a drop on the
//! window, a path on the command line) or an install link (`switchboard://install?…`, its URL
//! scheme). Each becomes an `opened` event for the window, which shows the install form; a
//! bundle is remembered as the one `install_bundle` installs. Nothing is installed here.

use std::path::PathBuf;

use switchboard_core::app::{App, Opened};
use tauri::{AppHandle, Emitter, Manager, Runtime};

use crate::commands::BundlePick;

/// The event the window receives for each thing opened.
pub const OPENED: &str = "opened";

/// Handles each of `args` (a launch's arguments, a dropped file's path) that is a bundle or an
/// install link, in order; the rest are ignored.
pub fn open_all<R: Runtime>(app: AppHandle<R>, args: Vec<String>) {
    tauri::async_runtime::spawn(async move {
        for arg in args {
            open(&app, &arg).await;
        }
    });
}

async fn open<R: Runtime>(app: &AppHandle<R>, arg: &str) {
    let core = app.state::<App>().inner().clone();
    let Some(opened) = core.open_argument(arg).await else {
        return;
    };
    if let Opened::Bundle { .. } = &opened {
        app.state::<BundlePick>().set(Some(PathBuf::from(arg)));
    }
    if let Some(window) = app.get_webview_window("main") {
        let _ = window.unminimize();
        let _ = window.set_focus();
    }
    if let Err(e) = app.emit(OPENED, opened) {
        tracing::warn!("the window was not told what was opened: {e}");
    }
}
