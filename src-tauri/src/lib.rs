//! The thin Tauri shell: commands are short adapters onto `switchboard-core`, and core events are
//! forwarded to the window from one place. Nothing here knows MCP.

mod commands;

use std::sync::Arc;

use switchboard_core::approvals::Door;
use switchboard_core::approvals::policy::Policies;
use switchboard_core::approvals::queue::ReviewQueue;
use switchboard_core::audit::Audit;
use switchboard_core::config::Config;
use switchboard_core::events;
use switchboard_core::host::Host;
use switchboard_core::paths::Paths;
use switchboard_core::pins::Pins;
use switchboard_core::process::BaseEnv;
use switchboard_core::providers::settings::ProviderSettingsStore;
use switchboard_core::providers::{Provider, ProviderKind};
use switchboard_core::sampling::{Models, Sampling};
use switchboard_core::secrets::Keychain;
use switchboard_core::servers::{HostContext, RestartPolicy};
use switchboard_core::store::Store;
use tauri::{Emitter, Manager};

/// What every command can reach.
pub struct AppState {
    pub host: Host,
    /// Decides sampling, elicitation and the model's tool calls; holds policies and the audit log.
    pub door: Door,
    /// The reviews waiting for the user, answered from the approval dialog.
    pub reviews: Arc<ReviewQueue>,
    /// The user's LLM providers and models (keys in the keychain).
    pub providers: ProviderSettingsStore,
    /// Chat conversations.
    pub chats: switchboard_core::chat::Chats,
    /// Chat turns in progress, by conversation, so they can be cancelled.
    pub turns: std::sync::Mutex<std::collections::HashMap<String, tokio::task::AbortHandle>>,
    pub paths: Paths,
    /// Why the config could not be loaded, shown instead of an empty list.
    pub config_error: Option<switchboard_core::Error>,
}

/// The event name the UI listens on for [`switchboard_core::events::HostEvent`]s.
pub const HOST_EVENT: &str = "host-event";

/// Starts the desktop app.
pub fn run() {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("SWITCHBOARD_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,rmcp=warn")),
        )
        .init();
    let result = tauri::Builder::default()
        // First: a second launch focuses the running window instead of starting another host
        // that would spawn every server twice.
        .plugin(tauri_plugin_single_instance::init(|app, _args, _cwd| {
            if let Some(window) = app.get_webview_window("main") {
                let _ = window.unminimize();
                let _ = window.set_focus();
            }
        }))
        .plugin(tauri_plugin_window_state::Builder::default().build())
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_opener::init())
        .setup(|app| {
            let paths = Paths::resolve(None, None)?;
            let (config, config_error) = match Config::load(&paths.config_file) {
                Ok(c) => (c, None),
                Err(e) => (Config::default(), Some(e)),
            };
            let events = events::channel(4096);
            let store = Arc::new(Store::open(&paths.data_dir)?);
            let reviews = Arc::new(ReviewQueue::new(events.clone()));
            // Sampling limits come from the live configuration, which the host owns; the host
            // is created after the door it hands to every connection.
            let host_cell: Arc<std::sync::OnceLock<Host>> = Arc::default();
            let limits_host = host_cell.clone();
            let limits = Arc::new(move |server: &str| {
                limits_host
                    .get()
                    .and_then(|h| h.config().ok())
                    .and_then(|c| c.mcp_servers.get(server).and_then(|s| s.sampling))
                    .unwrap_or_default()
            });
            let secrets: Arc<dyn switchboard_core::secrets::SecretStore> =
                Arc::new(Keychain::default());
            let providers = ProviderSettingsStore::new(store.clone(), secrets.clone());
            let chats = switchboard_core::chat::Chats::new(store.clone());
            let models = providers.models().or_else(|e| {
                tracing::error!(error = %e, "could not read the providers; sampling is manual");
                Provider::new("manual", ProviderKind::Manual, None, None)
                    .map(|p| Models::single(p, "manual"))
            })?;
            let door = Door::new(
                reviews.clone(),
                Policies::new(store.clone()),
                Pins::new(store.clone()),
                Audit::new(store.clone()),
                Sampling::new(models, limits, store),
            );
            let ctx = HostContext {
                config_file: paths.config_file.clone(),
                approver: Arc::new(door.clone()),
                events: events.clone(),
                base_env: BaseEnv::detect(),
                secrets,
                restart: RestartPolicy::default(),
            };
            // Supervisors are tokio tasks; they live on Tauri's async runtime.
            let host = tauri::async_runtime::block_on(async { Host::start(config, ctx) });
            let _ = host_cell.set(host.clone());
            let handle = app.handle().clone();
            let mut rx = events.subscribe();
            tauri::async_runtime::spawn(async move {
                loop {
                    match rx.recv().await {
                        Ok(event) => {
                            let _ = handle.emit(HOST_EVENT, event);
                        }
                        Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                        Err(_) => break,
                    }
                }
            });
            app.manage(AppState {
                host,
                door,
                reviews,
                providers,
                chats,
                turns: Default::default(),
                paths,
                config_error,
            });
            Ok(())
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
            let state = handle.state::<AppState>();
            tauri::async_runtime::block_on(state.host.shutdown());
        }
    });
}
