//! Tauri commands: one-line adapters onto the core's [`App`], plus the few that need the window
//! (native dialogs, the browser, a progress channel). Every command takes one argument struct
//! from the core (generated into the UI's bindings) and fails with the core's `{code, message}`
//! error. The core's command table (`switchboard_core::app::commands`) lists them for the UI; a
//! test checks that this file registers exactly that set.

use std::path::PathBuf;
use std::sync::Mutex;

use base64::Engine as _;
use rmcp::model::{
    CallToolResult, CompleteResult, GetPromptResult, ListResourcesResult, Prompt,
    ReadResourceResult, ResourceTemplate, Tool,
};
use switchboard_core::app::requests::*;
use switchboard_core::app::{
    App, AppView, AuditEntry, AuditQuery, Confirm, Conversation, ConversationView, ImportCandidate,
    ImportPlan, ImportReport, PinItem, PolicyEntry, ProviderSettings, Review, RootsView,
    ServerView, SignInInfo, TaskView, WithheldTool, import_locations as locations,
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
        pub fn handler<R: Runtime>() -> impl Fn(tauri::ipc::Invoke<R>) -> bool + Send + Sync + 'static {
            tauri::generate_handler![$($name),*]
        }

        #[cfg(test)]
        fn names() -> Vec<&'static str> {
            vec![$(stringify!($name)),*]
        }
    };
}

registered! {
        list_servers,
        start_server,
        stop_server,
        restart_server,
        sign_in_server,
        cancel_sign_in,
        sign_out_server,
        sign_in_info,
        save_server,
        trust_server,
        remove_server,
        set_server_enabled,
        import_candidates,
        import_preview,
        import_apply,
        set_log_level,
        config_path,
        keychain_problem,
        list_tools,
        cancel_call,
        list_tasks,
        cancel_task,
        list_resources_page,
        list_resource_templates,
        read_resource,
        subscribe_resource,
        unsubscribe_resource,
        list_prompts,
        get_prompt,
        complete,
        get_roots,
        set_roots,
        pending_reviews,
        decide_review,
        list_policies,
        set_policy,
        remove_policy,
        search_audit,
        list_providers,
        save_provider,
        remove_provider,
        provider_models,
        review_pins,
        withheld_tools,
        approve_pins,
        list_conversations,
        get_conversation,
        new_conversation,
        update_conversation,
        delete_conversation,
        send_message,
        cancel_turn,
        call_tool,
        pick_folder,
        open_external,
        save_bytes,
        export_audit,
        open_app_view,
        close_app_view,
        app_call_tool,
        app_read_resource,
        app_open_link,
        app_message,
        app_update_context,
}

#[tauri::command]
async fn list_servers(app: State<'_, App>, args: NoArgs) -> Result<Vec<ServerView>> {
    app.list_servers(args).await
}

#[tauri::command]
async fn start_server(app: State<'_, App>, args: ServerName) -> Result<()> {
    app.start_server(args).await
}

#[tauri::command]
async fn stop_server(app: State<'_, App>, args: ServerName) -> Result<()> {
    app.stop_server(args).await
}

#[tauri::command]
async fn restart_server(app: State<'_, App>, args: ServerName) -> Result<()> {
    app.restart_server(args).await
}

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

/// The native dialog that shows exactly what a server would run.
fn confirm_in_dialog<R: Runtime>(window: AppHandle<R>) -> Confirm {
    use tauri_plugin_dialog::{MessageDialogButtons, MessageDialogKind};
    Box::new(move |review| {
        Box::pin(async move {
            let (tx, rx) = tokio::sync::oneshot::channel();
            window
                .dialog()
                .message(format!(
                    "Switchboard runs this only if you trust it. Check every line:\n\n{}",
                    review.text()
                ))
                .title(format!("Trust server {:?}?", review.server))
                .kind(MessageDialogKind::Warning)
                .buttons(MessageDialogButtons::OkCancelCustom(
                    "Trust and run".into(),
                    "Cancel".into(),
                ))
                .show(move |trusted| {
                    let _ = tx.send(trusted);
                });
            rx.await.unwrap_or(false)
        })
    })
}

#[tauri::command]
async fn remove_server(app: State<'_, App>, args: ServerName) -> Result<()> {
    app.remove_server(args).await
}

#[tauri::command]
async fn set_server_enabled(app: State<'_, App>, args: SetEnabled) -> Result<()> {
    app.set_server_enabled(args).await
}

/// The file the person last chose to import in the native picker. `import_apply` imports only
/// it, so the window can never name a file to read.
#[derive(Default)]
pub struct ImportChoice(Mutex<Option<PathBuf>>);

impl ImportChoice {
    fn set(&self, path: Option<PathBuf>) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = path;
    }

    fn get(&self) -> Option<PathBuf> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// The Claude Desktop and VS Code files found in their usual places.
#[tauri::command]
async fn import_candidates(app: State<'_, App>, args: NoArgs) -> Result<Vec<ImportCandidate>> {
    app.import_candidates(args).await
}

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

#[tauri::command]
async fn set_log_level(app: State<'_, App>, args: SetLogLevel) -> Result<()> {
    app.set_log_level(args).await
}

#[tauri::command]
async fn config_path(app: State<'_, App>, args: NoArgs) -> Result<String> {
    app.config_path(args).await
}

#[tauri::command]
async fn keychain_problem(app: State<'_, App>, args: NoArgs) -> Result<Option<Error>> {
    app.keychain_problem(args).await
}

#[tauri::command]
async fn list_tools(app: State<'_, App>, args: ServerName) -> Result<Vec<Tool>> {
    app.list_tools(args).await
}

#[tauri::command]
async fn cancel_call(app: State<'_, App>, args: CallId) -> Result<()> {
    app.cancel_call(args).await
}

#[tauri::command]
async fn list_tasks(app: State<'_, App>, args: NoArgs) -> Result<Vec<TaskView>> {
    app.list_tasks(args).await
}

#[tauri::command]
async fn cancel_task(app: State<'_, App>, args: TaskRef) -> Result<()> {
    app.cancel_task(args).await
}

#[tauri::command]
async fn list_resources_page(
    app: State<'_, App>,
    args: ResourcesPage,
) -> Result<ListResourcesResult> {
    app.list_resources_page(args).await
}

#[tauri::command]
async fn list_resource_templates(
    app: State<'_, App>,
    args: ServerName,
) -> Result<Vec<ResourceTemplate>> {
    app.list_resource_templates(args).await
}

#[tauri::command]
async fn read_resource(app: State<'_, App>, args: ResourceUri) -> Result<ReadResourceResult> {
    app.read_resource(args).await
}

#[tauri::command]
async fn subscribe_resource(app: State<'_, App>, args: ResourceUri) -> Result<()> {
    app.subscribe_resource(args).await
}

#[tauri::command]
async fn unsubscribe_resource(app: State<'_, App>, args: ResourceUri) -> Result<()> {
    app.unsubscribe_resource(args).await
}

#[tauri::command]
async fn list_prompts(app: State<'_, App>, args: ServerName) -> Result<Vec<Prompt>> {
    app.list_prompts(args).await
}

#[tauri::command]
async fn get_prompt(app: State<'_, App>, args: GetPrompt) -> Result<GetPromptResult> {
    app.get_prompt(args).await
}

#[tauri::command]
async fn complete(app: State<'_, App>, args: Complete) -> Result<CompleteResult> {
    app.complete(args).await
}

#[tauri::command]
async fn get_roots(app: State<'_, App>, args: NoArgs) -> Result<RootsView> {
    app.get_roots(args).await
}

#[tauri::command]
async fn set_roots(app: State<'_, App>, args: SetRoots) -> Result<()> {
    app.set_roots(args).await
}

#[tauri::command]
async fn pending_reviews(app: State<'_, App>, args: NoArgs) -> Result<Vec<Review>> {
    app.pending_reviews(args).await
}

#[tauri::command]
async fn decide_review(app: State<'_, App>, args: DecideReview) -> Result<()> {
    app.decide_review(args).await
}

#[tauri::command]
async fn list_policies(app: State<'_, App>, args: NoArgs) -> Result<Vec<PolicyEntry>> {
    app.list_policies(args).await
}

#[tauri::command]
async fn set_policy(app: State<'_, App>, args: PolicyEntry) -> Result<()> {
    app.set_policy(args).await
}

#[tauri::command]
async fn remove_policy(app: State<'_, App>, args: PolicyEntry) -> Result<()> {
    app.remove_policy(args).await
}

#[tauri::command]
async fn search_audit(app: State<'_, App>, args: AuditQuery) -> Result<Vec<AuditEntry>> {
    app.search_audit(args).await
}

#[tauri::command]
async fn list_providers(app: State<'_, App>, args: NoArgs) -> Result<Vec<ProviderSettings>> {
    app.list_providers(args).await
}

#[tauri::command]
async fn save_provider(app: State<'_, App>, args: SaveProvider) -> Result<()> {
    app.save_provider(args).await
}

#[tauri::command]
async fn remove_provider(app: State<'_, App>, args: ProviderId) -> Result<()> {
    app.remove_provider(args).await
}

#[tauri::command]
async fn provider_models(app: State<'_, App>, args: ProviderId) -> Result<Vec<String>> {
    app.provider_models(args).await
}

#[tauri::command]
async fn withheld_tools(app: State<'_, App>, args: NoArgs) -> Result<Vec<WithheldTool>> {
    app.withheld_tools(args).await
}

#[tauri::command]
async fn review_pins(app: State<'_, App>, args: ServerName) -> Result<Vec<PinItem>> {
    app.review_pins(args).await
}

#[tauri::command]
async fn approve_pins(app: State<'_, App>, args: ApprovePins) -> Result<usize> {
    app.approve_pins(args).await
}

#[tauri::command]
async fn list_conversations(app: State<'_, App>, args: NoArgs) -> Result<Vec<Conversation>> {
    app.list_conversations(args).await
}

#[tauri::command]
async fn get_conversation(app: State<'_, App>, args: ConversationId) -> Result<ConversationView> {
    app.get_conversation(args).await
}

#[tauri::command]
async fn new_conversation(app: State<'_, App>, args: NewConversation) -> Result<Conversation> {
    app.new_conversation(args).await
}

#[tauri::command]
async fn update_conversation(app: State<'_, App>, args: Conversation) -> Result<()> {
    app.update_conversation(args).await
}

#[tauri::command]
async fn delete_conversation(app: State<'_, App>, args: ConversationId) -> Result<()> {
    app.delete_conversation(args).await
}

#[tauri::command]
async fn send_message(app: State<'_, App>, args: SendMessage) -> Result<()> {
    app.send_message(args).await
}

#[tauri::command]
async fn cancel_turn(app: State<'_, App>, args: ConversationId) -> Result<()> {
    app.cancel_turn(args).await
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

#[tauri::command]
async fn open_app_view(app: State<'_, App>, args: OpenAppView) -> Result<AppView> {
    app.open_app_view(args).await
}

#[tauri::command]
async fn close_app_view(app: State<'_, App>, args: ViewId) -> Result<()> {
    app.close_app_view(args).await
}

#[tauri::command]
async fn app_call_tool(app: State<'_, App>, args: AppCallTool) -> Result<CallToolResult> {
    app.app_call_tool(args).await
}

#[tauri::command]
async fn app_read_resource(
    app: State<'_, App>,
    args: AppReadResource,
) -> Result<ReadResourceResult> {
    app.app_read_resource(args).await
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

#[tauri::command]
async fn app_message(app: State<'_, App>, args: AppMessage) -> Result<()> {
    app.app_message(args).await
}

#[tauri::command]
async fn app_update_context(app: State<'_, App>, args: AppUpdateContext) -> Result<()> {
    app.app_update_context(args).await
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
async fn sign_in_info(app: State<'_, App>, args: ServerName) -> Result<Option<SignInInfo>> {
    app.sign_in_info(args).await
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
