//! How the window's web view draws on Linux. WebKitGTK composites with OpenGL by default; where
//! that GL is software (a VM, a remote desktop, no GPU driver: where a developer tool often runs)
//! every frame of a long list costs tens of milliseconds, and on some GPU drivers the window
//! stays blank. Switchboard draws lists, forms and dialogs, which WebKit's own painter handles
//! without compositing, so that is the default. `SWITCHBOARD_GPU_COMPOSITING=1` keeps WebKit's
//! compositing, and a `WEBKIT_DISABLE_COMPOSITING_MODE` already in the environment is left as set.

/// The environment variable WebKitGTK reads when it starts.
const COMPOSITING: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";
/// The person's way to keep compositing on (a GPU desktop that animates views, say).
const KEEP: &str = "SWITCHBOARD_GPU_COMPOSITING";

/// Turns WebKitGTK's compositing off unless the environment already says what it wants. Call
/// first thing in `main`, before any thread exists (it sets a variable of this process).
pub fn configure() {
    #[cfg(target_os = "linux")]
    if std::env::var_os(COMPOSITING).is_none() && std::env::var_os(KEEP).is_none_or(|v| v != "1") {
        // SAFETY: called at the start of `main`, before any other thread could read the
        // environment at the same time.
        unsafe { std::env::set_var(COMPOSITING, "1") };
    }
}
