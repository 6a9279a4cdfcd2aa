//! Tauri commands. Every command is declared once, in the core's command table
//! (`switchboard_core::app::commands`): the one-line adapters onto the core's [`App`] and the
//! handler's list are generated from it here, and only the few that need the window (native
//! dialogs, the browser, a progress channel, the file the person chose) are written by hand.
//! Every command takes one argument struct from the core (generated into the UI's bindings) and
//! fails with the core's `{code, message}` error.

use std::path::PathBuf;
use std::sync::Mutex;

use base64::Engine as _;
use rmcp::model::{
    CallToolResult, CompleteResult, GetPromptResult, ListResourcesResult, Prompt,
    ReadResourceResult, ResourceTemplate, Tool,
};
use switchboard_core::app::requests::*;
use switchboard_core::app::{
    App, AppView, AuditEntry, AuditQuery, ComparedAnswer, Confirm, ConfirmRoots, Conversation,
    ConversationView, DirectoryEntry, ImportCandidate, ImportPlan, ImportReport, KeptSession,
    KeptSessions, PinItem, PolicyEntry, ProviderSettings, Review, RootsView, ServerView,
    SignInInfo, Skill, SkillForChat, TaskView, TokenMeter, ToolSet, ToolSwitchesView,
    TrafficLimits, TrafficMessage, TrafficPage, TrafficQuery, WithheldTool,
    import_locations as locations,
};
use switchboard_core::app::{
    BundleChoice, BundleForm, BundleInstall, IconUrl, InstallForm, InstallRequest, Listing, Page,
    RegistryList, RegistryRef, RegistrySearch, RegistrySettings, UpdateView,
};
use switchboard_core::{Error, ErrorCode};
use tauri::ipc::Channel;
use tauri::{AppHandle, Runtime, State};
use tauri_plugin_dialog::DialogExt;
use tauri_plugin_opener::OpenerExt;

type Result<T> = std::result::Result<T, Error>;

/// Every command name, as registered.
macro_rules! registered {
    ($($name:ident),* $(,)?) => {
        /// The command handler registered with the app.
        /// Only the app's own page may invoke them (`navigation::admit_invoke`).
        pub fn handler<R: Runtime>() -> impl Fn(tauri::ipc::Invoke<R>) -> bool + Send + Sync + 'static {
            let commands = every_command::<R>();
            move |invoke| {
                if !crate::navigation::admit_invoke(&invoke) {
                    return true;
                }
                commands(invoke)
            }
        }

        fn every_command<R: Runtime>() -> impl Fn(tauri::ipc::Invoke<R>) -> bool + Send + Sync + 'static {
            tauri::generate_handler![$($name),*]
        }

        #[cfg(test)]
        fn names() -> Vec<&'static str> {
            vec![$(stringify!($name)),*]
        }
    };
}

switchboard_core::command_names!(registered);

/// A command the core's table lists as plain: the window's call goes straight to the app.
macro_rules! adapters {
    ($($name:ident($args:ty) -> $result:ty;)*) => {$(
        #[tauri::command]
        async fn $name(app: State<'_, App>, args: $args) -> Result<$result> {
            app.$name(args).await
        }
    )*};
}

switchboard_core::plain_commands!(adapters);

/// Saves a server; a definition that would run something not yet trusted is first shown in a
/// native dialog, which the web view can neither draw nor click.
#[tauri::command]
async fn save_server<R: Runtime>(
    window: AppHandle<R>,
    app: State<'_, App>,
    args: SaveServer,
) -> Result<()> {
    app.save_server(args, confirm_in_dialog(window)).await
}

/// Shows a server's launch definition in a native dialog and trusts it if the person says so.
#[tauri::command]
async fn trust_server<R: Runtime>(
    window: AppHandle<R>,
    app: State<'_, App>,
    args: ServerName,
) -> Result<bool> {
    app.trust_server(args, confirm_in_dialog(window)).await
}

/// Sets roots; a trusted server's new roots are first shown in a native dialog.
#[tauri::command]
async fn set_roots<R: Runtime>(
    window: AppHandle<R>,
    app: State<'_, App>,
    args: SetRoots,
) -> Result<()> {
    let confirm = confirm_in_dialog(window.clone());
    app.set_roots(args, confirm, confirm_roots_in_dialog(window))
        .await
}

/// The native dialog that shows exactly what a server would run.
fn confirm_in_dialog<R: Runtime>(window: AppHandle<R>) -> Confirm {
    Box::new(move |review| {
        let message = format!(
            "Switchboard runs this only if you trust it. Check every line:\n\n{}",
            review.text()
        );
        let title = format!("Trust server {:?}?", review.server);
        Box::pin(ask_in_dialog(window, title, message, "Trust and run"))
    })
}

/// The native dialog that shows new global roots and every server that would get them.
fn confirm_roots_in_dialog<R: Runtime>(window: AppHandle<R>) -> ConfirmRoots {
    Box::new(move |review| {
        let title = "Trust servers with new roots?".to_owned();
        Box::pin(ask_in_dialog(
            window,
            title,
            review.text(),
            "Trust and change",
        ))
    })
}

/// Asks in a native warning dialog (the web view can neither draw nor click it); whether the
/// person chose `yes`.
async fn ask_in_dialog<R: Runtime>(
    window: AppHandle<R>,
    title: String,
    message: String,
    yes: &str,
) -> bool {
    use tauri_plugin_dialog::{MessageDialogButtons, MessageDialogKind};
    let (tx, rx) = tokio::sync::oneshot::channel();
    window
        .dialog()
        .message(message)
        .title(title)
        .kind(MessageDialogKind::Warning)
        .buttons(MessageDialogButtons::OkCancelCustom(
            yes.into(),
            "Cancel".into(),
        ))
        .show(move |trusted| {
            let _ = tx.send(trusted);
        });
    rx.await.unwrap_or(false)
}

/// A file the person chose in a native picker, remembered for the command that uses it (the
/// window never names a path); one kind of file per `K`.
pub struct Chosen<K>(Mutex<Option<PathBuf>>, std::marker::PhantomData<K>);

impl<K> Default for Chosen<K> {
    fn default() -> Self {
        Self(Mutex::default(), std::marker::PhantomData)
    }
}

impl<K> Chosen<K> {
    pub fn set(&self, path: Option<PathBuf>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = path;
    }

    fn get(&self) -> Option<PathBuf> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// The file to import, chosen by the person and previewed.
pub enum ImportFile {}
/// The bundle `install_bundle` installs: picked, or opened with the app.
pub enum BundleFile {}

pub type ImportChoice = Chosen<ImportFile>;
pub type BundlePick = Chosen<BundleFile>;

/// Previews one of the files found in the usual places, or asks for a Claude Desktop or VS Code
/// file in the native picker; `None` when the person cancels.
#[tauri::command]
async fn import_preview<R: Runtime>(
    window: AppHandle<R>,
    app: State<'_, App>,
    choice: State<'_, ImportChoice>,
    args: ImportFrom,
) -> Result<Option<ImportPlan>> {
    choice.set(None);
    let path = match args.known {
        Some(known) => Some(locations::known(&known)?),
        None => pick_import_file(&window).await?,
    };
    let Some(path) = path else {
        return Ok(None);
    };
    let plan = app.import_preview(path.clone()).await?;
    choice.set(Some(path));
    Ok(Some(plan))
}

/// Imports the file chosen and previewed by [`import_preview`], as previewed.
#[tauri::command]
async fn import_apply(
    app: State<'_, App>,
    choice: State<'_, ImportChoice>,
    args: ImportApply,
) -> Result<ImportReport> {
    let path = choice.get().ok_or_else(|| {
        Error::new(
            ErrorCode::InvalidInput,
            "choose a file to import first".to_owned(),
        )
    })?;
    app.import_apply(path, args).await
}

/// Installs a registry server after the native dialog showed exactly what it runs.
#[tauri::command]
async fn install_server<R: Runtime>(
    window: AppHandle<R>,
    app: State<'_, App>,
    args: InstallRequest,
) -> Result<String> {
    app.install_server(args, confirm_in_dialog(window)).await
}

/// Moves an installed server to its registry's latest version after the native dialog showed
/// what changes.
#[tauri::command]
async fn update_server<R: Runtime>(
    window: AppHandle<R>,
    app: State<'_, App>,
    args: ServerName,
) -> Result<bool> {
    app.update_server(args, confirm_in_dialog(window)).await
}

/// Asks for a `.mcpb` in the native picker and reads it; `None` when the person cancels.
#[tauri::command]
async fn pick_bundle<R: Runtime>(
    window: AppHandle<R>,
    app: State<'_, App>,
    pick: State<'_, BundlePick>,
    _args: NoArgs,
) -> Result<Option<BundleForm>> {
    pick.set(None);
    let (tx, rx) = tokio::sync::oneshot::channel();
    window
        .dialog()
        .file()
        .set_title("Install an MCP Bundle")
        .add_filter("MCP Bundle", &["mcpb"])
        .pick_file(move |picked| {
            let _ = tx.send(picked);
        });
    let Some(path) = picked_path(rx.await.ok().flatten())?.map(PathBuf::from) else {
        return Ok(None);
    };
    let form = app.bundle_form(path.clone()).await?;
    pick.set(Some(path));
    Ok(Some(form))
}

/// Installs the bundle chosen by [`pick_bundle`] (or opened with the app), after the native
/// dialog showed what it runs and who signed it.
#[tauri::command]
async fn install_bundle<R: Runtime>(
    window: AppHandle<R>,
    app: State<'_, App>,
    pick: State<'_, BundlePick>,
    args: BundleChoice,
) -> Result<String> {
    let path = pick
        .get()
        .ok_or_else(|| Error::new(ErrorCode::InvalidInput, "choose a bundle to install first"))?;
    let install = BundleInstall {
        path,
        name: args.name,
        values: args.values,
    };
    app.install_bundle(install, confirm_in_dialog(window)).await
}

/// Calls a tool, streaming its progress over the call's own channel (`onProgress`, beside `args`:
/// a channel is a command argument of its own, not a field).
#[tauri::command]
async fn call_tool(
    app: State<'_, App>,
    args: CallTool,
    on_progress: Channel<CallProgress>,
) -> Result<CallToolResult> {
    app.call_tool(args, move |p| on_progress.send(p).is_ok())
        .await
}

/// A file the person chooses for a setting (a bundle's `file` setting); `None` when cancelled.
#[tauri::command]
async fn pick_file<R: Runtime>(window: AppHandle<R>, _args: NoArgs) -> Result<Option<String>> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    window.dialog().file().pick_file(move |picked| {
        let _ = tx.send(picked);
    });
    picked_path(rx.await.ok().flatten())
}

#[tauri::command]
async fn pick_folder<R: Runtime>(window: AppHandle<R>, _args: NoArgs) -> Result<Option<String>> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    window.dialog().file().pick_folder(move |picked| {
        let _ = tx.send(picked);
    });
    picked_path(rx.await.ok().flatten())
}

/// The file to import, chosen by the person in the native picker.
async fn pick_import_file<R: Runtime>(window: &AppHandle<R>) -> Result<Option<PathBuf>> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let mut picker = window
        .dialog()
        .file()
        .set_title("Import servers from")
        .add_filter("MCP configuration", &["json", "jsonc"]);
    // Where such files are, rather than the picker's empty "Recent".
    if let Some(folder) = locations::picker_folder() {
        picker = picker.set_directory(folder);
    }
    picker.pick_file(move |picked| {
        let _ = tx.send(picked);
    });
    Ok(picked_path(rx.await.ok().flatten())?.map(PathBuf::from))
}

/// Opens an `https` URL in the system browser; anything else (file:, javascript:, custom
/// schemes a server might send) is refused.
#[tauri::command]
async fn open_external<R: Runtime>(window: AppHandle<R>, args: Url) -> Result<()> {
    let url = browser_url(&args.url)?;
    window
        .opener()
        .open_url(url.as_str(), None::<&str>)
        .map_err(|e| Error::new(ErrorCode::Io, format!("cannot open the browser: {e}")))
}

/// Opens a view's link in the browser once the person approved it at the door.
#[tauri::command]
async fn app_open_link<R: Runtime>(
    window: AppHandle<R>,
    app: State<'_, App>,
    args: AppOpenLink,
) -> Result<()> {
    let url = app.app_open_link(args).await?;
    open_external(window, Url { url }).await
}

/// `raw` if it is an https URL, the only kind the browser is asked to open.
fn browser_url(raw: &str) -> Result<url::Url> {
    let url = url::Url::parse(raw)
        .map_err(|e| Error::new(ErrorCode::InvalidInput, format!("not a URL: {e}")))?;
    if url.scheme() != "https" {
        return Err(Error::new(
            ErrorCode::Denied,
            format!(
                "only https links open in the browser, not {}:",
                url.scheme()
            ),
        ));
    }
    Ok(url)
}

/// Signs in through the system browser (the core checked the page is https, or on this machine).
#[tauri::command]
async fn sign_in_server<R: Runtime>(
    window: AppHandle<R>,
    app: State<'_, App>,
    args: ServerName,
) -> Result<()> {
    let open = Box::new(move |url: &str| {
        window
            .opener()
            .open_url(url, None::<&str>)
            .map_err(|e| Error::new(ErrorCode::Io, format!("cannot open the browser: {e}")))
    });
    app.sign_in_server(args, open).await
}

#[tauri::command]
async fn cancel_sign_in(app: State<'_, App>, args: NoArgs) -> Result<()> {
    app.cancel_sign_in(args)
}

#[tauri::command]
async fn sign_out_server(app: State<'_, App>, args: ServerName) -> Result<()> {
    app.sign_out_server(args).await
}

#[tauri::command]
async fn save_bytes<R: Runtime>(window: AppHandle<R>, args: SaveBytes) -> Result<Option<String>> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(args.base64.as_bytes())
        .map_err(|e| Error::new(ErrorCode::InvalidInput, format!("not base64: {e}")))?;
    let Some(path) = pick_save_path(&window, file_name_only(&args.suggested_name)).await? else {
        return Ok(None);
    };
    tokio::fs::write(&path, bytes)
        .await
        .map_err(|e| Error::new(ErrorCode::Io, format!("cannot write {path}: {e}")))?;
    Ok(Some(path))
}

/// Only the file name of a name a server suggested, never a path: the person picks the folder.
fn file_name_only(suggested: &str) -> String {
    std::path::Path::new(suggested)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "resource.bin".into())
}

/// Writes the audit rows the search matches, oldest first, as JSON Lines to a file the user
/// picks.
#[tauri::command]
async fn export_audit<R: Runtime>(
    window: AppHandle<R>,
    app: State<'_, App>,
    args: AuditQuery,
) -> Result<Option<AuditExport>> {
    let Some(path) = pick_save_path(&window, "switchboard-audit.jsonl".into()).await? else {
        return Ok(None);
    };
    app.export_audit(PathBuf::from(path), args).await.map(Some)
}

/// Writes the chosen messages as JSON Lines where the person chooses; `None` when they cancel.
#[tauri::command]
async fn export_traffic<R: Runtime>(
    window: AppHandle<R>,
    app: State<'_, App>,
    args: TrafficSeqs,
) -> Result<Option<TrafficExport>> {
    let Some(path) = pick_save_path(&window, "switchboard-traffic.jsonl".into()).await? else {
        return Ok(None);
    };
    app.export_traffic(PathBuf::from(path), args)
        .await
        .map(Some)
}

/// Asks where to save a file named `name`; `None` when the person cancels.
async fn pick_save_path<R: Runtime>(window: &AppHandle<R>, name: String) -> Result<Option<String>> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    window
        .dialog()
        .file()
        .set_file_name(name)
        .save_file(move |picked| {
            let _ = tx.send(picked);
        });
    picked_path(rx.await.ok().flatten())
}

fn picked_path(picked: Option<tauri_plugin_dialog::FilePath>) -> Result<Option<String>> {
    picked
        .map(|p| {
            p.into_path()
                .map(|p| p.display().to_string())
                .map_err(|e| Error::new(ErrorCode::Io, format!("unusable path: {e}")))
        })
        .transpose()
}

#[cfg(test)]
mod tests;
