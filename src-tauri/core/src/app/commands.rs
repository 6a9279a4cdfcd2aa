//! Every command the window can invoke: its name, its argument type (from
//! [`requests`](super::requests) or the core's own types) and the TypeScript type of its result.
//! The shell registers exactly these (its test checks), and `cargo test -p switchboard-core`
//! writes them to `ui/src/bindings/Commands.ts`, so the UI's bindings generate without building
//! Tauri.

use ts_rs::TS;

use super::requests::*;
use crate::approvals::policy::PolicyEntry;
use crate::audit::AuditQuery;
use crate::chat::Conversation;

/// One command: name, argument type and result type, both as TypeScript.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    pub name: &'static str,
    pub args: String,
    pub result: &'static str,
}

macro_rules! command_table {
    ($($name:ident($args:ty) -> $result:literal;)*) => {
        /// Every command, in the order the UI's bindings list them.
        pub fn all() -> Vec<Command> {
            vec![$(Command {
                name: stringify!($name),
                args: <$args as TS>::name(&ts_rs::Config::default()),
                result: $result,
            }),*]
        }
    };
}

command_table! {
    list_servers(NoArgs) -> "ServerView[]";
    start_server(ServerName) -> "null";
    stop_server(ServerName) -> "null";
    restart_server(ServerName) -> "null";
    sign_in_server(ServerName) -> "null";
    cancel_sign_in(NoArgs) -> "null";
    sign_out_server(ServerName) -> "null";
    sign_in_info(ServerName) -> "SignInInfo | null";
    save_server(SaveServer) -> "null";
    trust_server(ServerName) -> "boolean";
    remove_server(ServerName) -> "null";
    set_server_enabled(SetEnabled) -> "null";
    import_candidates(NoArgs) -> "ImportCandidate[]";
    import_preview(ImportFrom) -> "ImportPlan | null";
    import_apply(ImportApply) -> "ImportReport";
    set_log_level(SetLogLevel) -> "null";
    config_path(NoArgs) -> "string";
    keychain_problem(NoArgs) -> "Error | null";
    list_tools(ServerName) -> "Mcp.Tool[]";
    call_tool(CallTool) -> "Mcp.CallToolResult";
    cancel_call(CallId) -> "null";
    list_tasks(NoArgs) -> "TaskView[]";
    cancel_task(TaskRef) -> "null";
    list_resources_page(ResourcesPage) -> "Mcp.ListResourcesResult";
    list_resource_templates(ServerName) -> "Mcp.ResourceTemplate[]";
    read_resource(ResourceUri) -> "Mcp.ReadResourceResult";
    subscribe_resource(ResourceUri) -> "null";
    unsubscribe_resource(ResourceUri) -> "null";
    list_prompts(ServerName) -> "Mcp.Prompt[]";
    get_prompt(GetPrompt) -> "Mcp.GetPromptResult";
    complete(Complete) -> "{ completion: Mcp.Completion }";
    get_roots(NoArgs) -> "RootsView";
    set_roots(SetRoots) -> "null";
    pick_folder(NoArgs) -> "string | null";
    open_external(Url) -> "null";
    save_bytes(SaveBytes) -> "string | null";
    pending_reviews(NoArgs) -> "Review[]";
    decide_review(DecideReview) -> "null";
    list_policies(NoArgs) -> "PolicyEntry[]";
    set_policy(PolicyEntry) -> "null";
    remove_policy(PolicyEntry) -> "null";
    search_audit(AuditQuery) -> "AuditEntry[]";
    export_audit(AuditQuery) -> "AuditExport | null";
    list_providers(NoArgs) -> "ProviderSettings[]";
    save_provider(SaveProvider) -> "null";
    remove_provider(ProviderId) -> "null";
    provider_models(ProviderId) -> "string[]";
    review_pins(ServerName) -> "PinItem[]";
    withheld_tools(NoArgs) -> "WithheldTool[]";
    approve_pins(ApprovePins) -> "number";
    list_conversations(NoArgs) -> "Conversation[]";
    get_conversation(ConversationId) -> "ConversationView";
    new_conversation(NewConversation) -> "Conversation";
    update_conversation(Conversation) -> "null";
    delete_conversation(ConversationId) -> "null";
    send_message(SendMessage) -> "null";
    cancel_turn(ConversationId) -> "null";
    open_app_view(OpenAppView) -> "AppView";
    close_app_view(ViewId) -> "null";
    app_call_tool(AppCallTool) -> "Mcp.CallToolResult";
    app_read_resource(AppReadResource) -> "Mcp.ReadResourceResult";
    app_open_link(AppOpenLink) -> "null";
    app_message(AppMessage) -> "null";
    app_update_context(AppUpdateContext) -> "null";
}

/// Result types named in the table that come from the core's bindings.
const RESULT_TYPES: &[&str] = &[
    "ServerView",
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

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::path::PathBuf;

    use super::*;

    /// Writes `ui/src/bindings/Commands.ts` and checks that `ui/src/backend/tauri.ts` invokes
    /// exactly the commands of the table, each once in the table.
    #[test]
    fn the_command_table_is_written_and_is_what_the_ui_invokes() {
        // At run time: a binary built in another clone (a shared target directory) writes here.
        let root = std::env::var_os("CARGO_MANIFEST_DIR")
            .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
            .join("../..");
        std::fs::write(root.join("ui/src/bindings/Commands.ts"), typescript()).unwrap();
        let table: BTreeSet<&str> = all().iter().map(|c| c.name).collect();
        assert_eq!(table.len(), all().len(), "a command is listed twice");
        let backend = std::fs::read_to_string(root.join("ui/src/backend/tauri.ts")).unwrap();
        let re = regex::Regex::new(r#"call\(\s*"([a-z_]+)""#).unwrap();
        let used: BTreeSet<&str> = re
            .captures_iter(&backend)
            .filter_map(|c| c.get(1).map(|m| m.as_str()))
            .collect();
        assert_eq!(
            table, used,
            "ui/src/backend/tauri.ts must invoke exactly the commands of the table"
        );
    }
}
