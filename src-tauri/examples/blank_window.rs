//! The anchor of `scripts/bench-app.sh`: a blank Tauri window, built from the same package (so the
//! same Tauri version, features and build script as Switchboard), that shows one line of text
//! (so the page records a first contentful paint) and does nothing else. No plugins, no commands,
//! no state: what any Tauri app pays before it does anything. It draws as Switchboard's window
//! does (`rendering::configure`).

const PAGE: &[u8] = b"<!doctype html><title>Blank</title><p>Blank window</p>";

fn main() {
    // Drawn as Switchboard's window is, so the comparison is of the app, not of two ways to draw.
    switchboard_lib::rendering::configure();
    let mut context = tauri::generate_context!();
    // The app's own window would load Switchboard's UI; this one makes its own.
    context.config_mut().app.windows.clear();
    let built = tauri::Builder::default()
        // The page comes from a scheme of its own, as Switchboard's UI comes from `tauri://`.
        .register_uri_scheme_protocol("blank", |_, _| {
            tauri::http::Response::builder()
                .header("Content-Type", "text/html")
                .body(PAGE.to_vec())
                .unwrap_or_default()
        })
        .setup(|app| {
            let url = tauri::WebviewUrl::CustomProtocol("blank://localhost/".parse()?);
            tauri::WebviewWindowBuilder::new(app, "main", url)
                .title("Blank")
                .inner_size(1200.0, 780.0)
                .build()?;
            Ok(())
        })
        .run(context);
    if let Err(e) = built {
        eprintln!("blank_window: {e}");
        std::process::exit(1);
    }
}
