//! Every command the window can invoke: its name, its argument type (from
//! [`requests`](super::requests) or the core's own types) and the TypeScript type of its result.
//! The shell registers exactly these (its test checks), and `cargo test -p switchboard-core`
//! writes them to `ui/src/bindings/Commands.ts`, so the UI's bindings generate without building
//! Tauri.

use ts_rs::TS;

use super::gallery::{
    BundleChoice, IconUrl, InstallRequest, RegistryList, RegistryRef, RegistrySearch,
};
use super::requests::*;
use crate::approvals::policy::PolicyEntry;
use crate::audit::AuditQuery;
use crate::chat::Conversation;
use crate::tool_switches::ToolSet;
use crate::traffic::{TrafficLimits, TrafficQuery};

/// One command: name, argument type and result type, both as TypeScript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    pub name: &'static str,
    pub args: String,
    pub result: &'static str,
}

macro_rules! command_table {
    (
        $d:tt
        plain { $($name:ident($args:ty) -> $rust:ty as $result:literal;)* }
        window { $($wname:ident($wargs:ty) -> $wresult:literal;)* }
    ) => {
        /// Every command, in the order the UI's bindings list them.
        pub fn all() -> Vec<Command> {
            vec![
                $(Command {
                    name: stringify!($name),
                    args: <$args as TS>::name(&ts_rs::Config::default()),
                    result: $result,
                },)*
                $(Command {
                    name: stringify!($wname),
                    args: <$wargs as TS>::name(&ts_rs::Config::default()),
                    result: $wresult,
                },)*
            ]
        }

        /// Hands `$adapter!` every command the shell adapts with one line, as
        /// `name(Args) -> Result;`: the shell generates its `#[tauri::command]` from this, so
        /// such a command is declared only here.
        #[macro_export]
        macro_rules! plain_commands {
            ($d adapter:ident) => {
                $d adapter! { $($name($args) -> $rust;)* }
            };
        }

        /// Hands `$register!` every command's name, for the shell's handler: what the window
        /// may invoke is exactly this table.
        #[macro_export]
        macro_rules! command_names {
            ($d register:ident) => {
                $d register! { $($name,)* $($wname,)* }
            };
        }
    };
}

command_table! { $
    // Adapted by the shell with one generated line each: `app.name(args).await`.
    plain {
        list_servers(NoArgs) -> Vec<ServerView> as "ServerView[]";
        start_server(ServerName) -> () as "null";
        stop_server(ServerName) -> () as "null";
        restart_server(ServerName) -> () as "null";
        sign_in_info(ServerName) -> Option<SignInInfo> as "SignInInfo | null";
        remove_server(ServerName) -> () as "null";
        set_server_enabled(SetEnabled) -> () as "null";
        import_candidates(NoArgs) -> Vec<ImportCandidate> as "ImportCandidate[]";
        set_log_level(SetLogLevel) -> () as "null";
        config_path(NoArgs) -> String as "string";
        keychain_problem(NoArgs) -> Option<Error> as "Error | null";
        list_tools(ServerName) -> Vec<Tool> as "Mcp.Tool[]";
        cancel_call(CallId) -> () as "null";
        list_tasks(NoArgs) -> Vec<TaskView> as "TaskView[]";
        cancel_task(TaskRef) -> () as "null";
        list_resources_page(ResourcesPage) -> ListResourcesResult as "Mcp.ListResourcesResult";
        list_resource_templates(ServerName) -> Vec<ResourceTemplate> as "Mcp.ResourceTemplate[]";
        read_resource(ResourceUri) -> ReadResourceResult as "Mcp.ReadResourceResult";
        subscribe_resource(ResourceUri) -> () as "null";
        unsubscribe_resource(ResourceUri) -> () as "null";
        list_prompts(ServerName) -> Vec<Prompt> as "Mcp.Prompt[]";
        get_prompt(GetPrompt) -> GetPromptResult as "Mcp.GetPromptResult";
        list_skills(ServerName) -> Vec<Skill> as "Skill[]";
        load_skill(SkillRef) -> SkillForChat as "SkillForChat";
        read_skill_file(SkillFileRef) -> String as "string";
        skill_folder(SkillFolderRef) -> Vec<DirectoryEntry> as "DirectoryEntry[]";
        complete(Complete) -> CompleteResult as "{ completion: Mcp.Completion }";
        get_roots(NoArgs) -> RootsView as "RootsView";
        pending_reviews(NoArgs) -> Vec<Review> as "Review[]";
        decide_review(DecideReview) -> () as "null";
        list_policies(NoArgs) -> Vec<PolicyEntry> as "PolicyEntry[]";
        set_policy(PolicyEntry) -> () as "null";
        remove_policy(PolicyEntry) -> () as "null";
        search_audit(AuditQuery) -> Vec<AuditEntry> as "AuditEntry[]";
        list_providers(NoArgs) -> Vec<ProviderSettings> as "ProviderSettings[]";
        sandbox_server(ServerName) -> () as "null";
        save_provider(SaveProvider) -> () as "null";
        remove_provider(ProviderId) -> () as "null";
        provider_models(ProviderId) -> Vec<String> as "string[]";
        review_pins(ServerName) -> Vec<PinItem> as "PinItem[]";
        withheld_tools(NoArgs) -> Vec<WithheldTool> as "WithheldTool[]";
        tool_switches(NoArgs) -> ToolSwitchesView as "ToolSwitchesView";
        tool_tokens(TokensFor) -> TokenMeter as "TokenMeter";
        set_tool_enabled(SetToolEnabled) -> () as "null";
        set_new_tools_enabled(SetNewToolsEnabled) -> () as "null";
        set_context_limits(ContextLimits) -> () as "null";
        save_tool_set(ToolSet) -> () as "null";
        delete_tool_set(ToolSetName) -> () as "null";
        approve_pins(ApprovePins) -> usize as "number";
        list_conversations(NoArgs) -> Vec<Conversation> as "Conversation[]";
        get_conversation(ConversationId) -> ConversationView as "ConversationView";
        new_conversation(NewConversation) -> Conversation as "Conversation";
        update_conversation(Conversation) -> () as "null";
        delete_conversation(ConversationId) -> () as "null";
        send_message(SendMessage) -> () as "null";
        cancel_turn(ConversationId) -> () as "null";
        open_app_view(OpenAppView) -> AppView as "AppView";
        close_app_view(ViewId) -> () as "null";
        app_call_tool(AppCallTool) -> CallToolResult as "Mcp.CallToolResult";
        app_read_resource(AppReadResource) -> ReadResourceResult as "Mcp.ReadResourceResult";
        app_message(AppMessage) -> () as "null";
        app_update_context(AppUpdateContext) -> () as "null";
        registry_search(RegistrySearch) -> Page as "RegistryPage";
        registry_cached(RegistrySearch) -> Page as "RegistryPage";
        registry_refresh(RegistrySearch) -> usize as "number";
        install_form(RegistryRef) -> InstallForm as "InstallForm";
        uninstall_server(ServerName) -> () as "null";
        check_updates(NoArgs) -> Vec<UpdateView> as "UpdateView[]";
        registry_icon(IconUrl) -> Option<String> as "string | null";
        registries(NoArgs) -> Vec<String> as "string[]";
        registry_settings(NoArgs) -> RegistrySettings as "RegistrySettings";
        set_registries(RegistryList) -> RegistryList as "RegistryList";
        registry_versions(RegistryRef) -> Vec<Listing> as "RegistryListing[]";
        compare_sampling(CompareSampling) -> Vec<ComparedAnswer> as "ComparedAnswer[]";
        replay_sampling(ReplaySampling) -> Vec<ComparedAnswer> as "ComparedAnswer[]";
        traffic(TrafficQuery) -> TrafficPage as "TrafficPage";
        traffic_messages(TrafficSeqs) -> Vec<TrafficMessage> as "TrafficMessage[]";
        traffic_limits(NoArgs) -> TrafficLimits as "TrafficLimits";
        set_traffic_limits(TrafficLimits) -> () as "null";
        keep_traffic(NoArgs) -> KeptSession as "KeptSession";
        stop_keeping_traffic(NoArgs) -> Option<KeptSession> as "KeptSession | null";
        kept_traffic_sessions(NoArgs) -> KeptSessions as "KeptSessions";
        delete_kept_traffic(KeptSessionId) -> () as "null";
    }
    // Adapted by hand in the shell: they need the window (a native dialog, the browser, a
    // progress channel, the file the person chose).
    window {
        sign_in_server(ServerName) -> "null";
        cancel_sign_in(NoArgs) -> "null";
        sign_out_server(ServerName) -> "null";
        save_server(SaveServer) -> "null";
        trust_server(ServerName) -> "boolean";
        set_roots(SetRoots) -> "null";
        import_preview(ImportFrom) -> "ImportPlan | null";
        import_apply(ImportApply) -> "ImportReport";
        call_tool(CallTool) -> "Mcp.CallToolResult";
        pick_folder(NoArgs) -> "string | null";
        open_external(Url) -> "null";
        save_bytes(SaveBytes) -> "string | null";
        export_audit(AuditQuery) -> "AuditExport | null";
        app_open_link(AppOpenLink) -> "null";
        install_server(InstallRequest) -> "string";
        update_server(ServerName) -> "boolean";
        pick_bundle(NoArgs) -> "BundleForm | null";
        install_bundle(BundleChoice) -> "string";
        pick_file(NoArgs) -> "string | null";
        export_traffic(TrafficSeqs) -> "TrafficExport | null";
    }
}

/// Result types named in the table that come from the core's bindings.
const RESULT_TYPES: &[&str] = &[
    "ServerView",
    "RegistrySettings",
    "DirectoryEntry",
    "Skill",
    "SkillForChat",
    "ToolSwitchesView",
    "TokenMeter",
    "ImportCandidate",
    "ImportPlan",
    "ImportReport",
    "RootsView",
    "Review",
    "PolicyEntry",
    "AuditEntry",
    "AuditExport",
    "ProviderSettings",
    "PinItem",
    "Conversation",
    "ConversationView",
    "SignInInfo",
    "AppView",
    "TaskView",
    "WithheldTool",
    "Error",
    "RegistryPage",
    "RegistryListing",
    "InstallForm",
    "BundleForm",
    "UpdateView",
    "ComparedAnswer",
    "TrafficPage",
    "TrafficMessage",
    "TrafficLimits",
    "TrafficExport",
    "KeptSession",
    "KeptSessions",
];

/// `ui/src/bindings/Commands.ts`: the typed table of every command.
pub fn typescript() -> String {
    let commands = all();
    let mut ts = String::from(
        "// Generated from src-tauri/core/src/app/commands.rs by `cargo test`. Do not edit.\n",
    );
    let mut imports: Vec<String> = commands
        .iter()
        .map(|c| c.args.clone())
        .chain(RESULT_TYPES.iter().map(|s| s.to_string()))
        .collect();
    imports.sort();
    imports.dedup();
    ts.push_str("import type * as Mcp from \"../mcp\";\n");
    for name in &imports {
        ts.push_str(&format!("import type {{ {name} }} from \"./{name}\";\n"));
    }
    ts.push_str(
        "\n/** Every command the shell registers: its argument object and its result. */\n",
    );
    ts.push_str("export type Commands = {\n");
    for c in &commands {
        ts.push_str(&format!(
            "  {}: {{ args: {}; result: {} }};\n",
            c.name, c.args, c.result
        ));
    }
    ts.push_str("};\n\n/** The names, for runtime checks. */\nexport const COMMAND_NAMES = [\n");
    for c in &commands {
        ts.push_str(&format!("  \"{}\",\n", c.name));
    }
    ts.push_str("] as const satisfies readonly (keyof Commands)[];\n");
    ts
}

/// `src-tauri/capabilities/default.json`: the main window, and only it, may listen to the core's
/// events and invoke exactly the commands of this table.
pub fn capability() -> String {
    let permissions: Vec<String> = ["core:event:allow-listen", "core:event:allow-unlisten"]
        .into_iter()
        .map(String::from)
        .chain(
            all()
                .iter()
                .map(|c| format!("allow-{}", c.name.replace('_', "-"))),
        )
        .collect();
    let capability = serde_json::json!({
        "$schema": "../../gen/schemas/desktop-schema.json",
        "identifier": "default",
        "description": "Generated from src-tauri/core/src/app/commands.rs by `cargo test`: the main window, and only it, may listen to the core's events and invoke exactly the commands of the core's command table; the shell's tests check that this list is that table.",
        "windows": ["main"],
        "permissions": permissions,
    });
    let mut text = serde_json::to_string_pretty(&capability).unwrap_or_default();
    text.push('\n');
    text
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::PathBuf;

    use super::*;

    /// The UI's own source files (not its tests, not the generated bindings).
    fn ui_sources(dir: &std::path::Path) -> Vec<PathBuf> {
        let mut files = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if path.is_dir() && name != "bindings" {
                files.extend(ui_sources(&path));
            } else if (name.ends_with(".ts") || name.ends_with(".tsx")) && !name.contains(".test.")
            {
                files.push(path);
            }
        }
        files
    }

    /// Writes `ui/src/bindings/Commands.ts` and the window's capability, and checks that
    /// `ui/src/backend/tauri.ts` invokes exactly the commands of the table, each once in it.
    #[test]
    fn the_command_table_is_written_and_is_what_the_ui_invokes() {
        // At run time: a binary built in another clone (a shared target directory) writes here.
        let root = std::env::var_os("CARGO_MANIFEST_DIR")
            .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
            .join("../..");
        std::fs::write(root.join("ui/src/bindings/Commands.ts"), typescript()).unwrap();
        std::fs::write(
            root.join("src-tauri/capabilities/default.json"),
            capability(),
        )
        .unwrap();
        let table: BTreeSet<&str> = all().iter().map(|c| c.name).collect();
        assert_eq!(table.len(), all().len(), "a command is listed twice");
        let backend = std::fs::read_to_string(root.join("ui/src/backend/tauri.ts")).unwrap();
        let re = regex::Regex::new(r#"call\(\s*"([a-z_]+)""#).unwrap();
        let mut used: BTreeSet<String> = re
            .captures_iter(&backend)
            .filter_map(|c| c.get(1).map(|m| m.as_str().to_owned()))
            .collect();
        // A command without a method of its own is used by name from the screens.
        let by_name = regex::Regex::new(r#"\.invoke\(\s*"([a-z_]+)""#).unwrap();
        for file in ui_sources(&root.join("ui/src")) {
            let code = std::fs::read_to_string(file).unwrap();
            used.extend(by_name.captures_iter(&code).map(|c| c[1].to_owned()));
        }
        let used: BTreeSet<&str> = used.iter().map(String::as_str).collect();
        assert_eq!(
            table, used,
            "the UI (ui/src/backend/tauri.ts, or `.invoke(name)` in a screen) must use exactly \
             the commands of the table"
        );
    }
}
