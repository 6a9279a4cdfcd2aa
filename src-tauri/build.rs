//! Runs tauri-build with the app's commands in an app manifest, so that capabilities scope them:
//! the window may invoke only what src-tauri/capabilities grants it, and no other page anything.

/// The core's command table: the one list of commands (the UI's bindings come from it too).
const COMMAND_TABLE: &str = "src-tauri/core/src/app/commands.rs";

fn main() {
    println!("cargo:rerun-if-changed=src-tauri/capabilities");
    println!("cargo:rerun-if-changed={COMMAND_TABLE}");
    tauri_build::try_build(
        tauri_build::Attributes::new()
            .capabilities_path_pattern("./src-tauri/capabilities/**/*")
            .app_manifest(tauri_build::AppManifest::new().commands(app_commands())),
    )
    .expect("failed to run tauri-build");
}

/// The names in the core's `command_table! { name(Args) -> "Result"; … }`, each of which gets
/// an `allow-…` permission. Read from the source, since the table's crate is not a build
/// dependency; the shell's tests check the manifest built from this against the table itself.
fn app_commands() -> &'static [&'static str] {
    let source = std::fs::read_to_string(COMMAND_TABLE).expect("read the core's command table");
    let (_, table) = source
        .split_once("command_table! {")
        .expect("a command_table! block in the core's command table");
    let (body, _) = table
        .split_once("\n}")
        .expect("the end of the command_table! block");
    let names: Vec<&'static str> = body
        .lines()
        .filter_map(|line| line.trim().split_once('(').map(|(name, _)| name))
        .filter(|name| {
            !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        })
        .map(|name| &*Box::leak(name.to_owned().into_boxed_str()))
        .collect();
    assert!(!names.is_empty(), "no command found in {COMMAND_TABLE}");
    Box::leak(names.into_boxed_slice())
}
