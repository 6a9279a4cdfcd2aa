// Prevents an extra console window on Windows in release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    switchboard_lib::rendering::configure();
    switchboard_lib::run();
}
