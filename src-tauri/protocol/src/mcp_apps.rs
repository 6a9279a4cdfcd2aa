//! MCP Apps (the `io.modelcontextprotocol/ui` extension, SEP-1865) on the host side: which tools
//! have a view and who may see them (the model, the view, or both), the views the window opened
//! (their HTML is kept here and served by the shell on a scheme of its own, never in the app's
//! origin) and the Content Security Policy each is served with, built from the resource's
//! `_meta.ui.csp` and nothing else ([`csp`]).

pub mod csp;
mod views;

pub use csp::{AppCsp, AppPermissions};
pub use views::{Admitted, AppView, MAX_PENDING, MAX_PER_WINDOW, Page, RATE_WINDOW, Views};

use serde_json::{Value, json};

/// The extension's identifier in capabilities.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/ui";

/// The MIME type of a view's HTML; the only one Switchboard renders.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The scheme the shell serves views on.
pub const SCHEME: &str = "mcp-app";

/// What Switchboard declares under `capabilities.extensions[EXTENSION_ID]`.
pub fn capability() -> Value {
    json!({ "mimeTypes": [MIME_TYPE] })
}

/// The `ui://` resource a tool's view is in (`_meta.ui.resourceUri`, or the older flat
/// `_meta["ui/resourceUri"]`); none when absent or not a `ui://` URI.
pub fn resource_uri(tool: &Value) -> Option<&str> {
    let meta = tool.get("_meta")?;
    meta.get("ui")
        .and_then(|ui| ui.get("resourceUri"))
        .or_else(|| meta.get("ui/resourceUri"))
        .and_then(Value::as_str)
        .filter(|uri| uri.starts_with("ui://"))
}

/// Who may see and call a tool: the model, the views of its server, or both (the default).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Visibility {
    pub model: bool,
    pub app: bool,
}

/// A tool's `_meta.ui.visibility`. A malformed value counts as absent (both), but an explicit
/// list is taken as written, even an empty one (nobody).
pub fn visibility(tool: &Value) -> Visibility {
    let listed = tool
        .get("_meta")
        .and_then(|m| m.get("ui"))
        .and_then(|ui| ui.get("visibility"))
        .and_then(Value::as_array);
    match listed {
        None => Visibility {
            model: true,
            app: true,
        },
        Some(list) => {
            let has = |who: &str| list.iter().any(|v| v.as_str() == Some(who));
            Visibility {
                model: has("model"),
                app: has("app"),
            }
        }
    }
}

/// Whether `mime` is the MCP App HTML type (case and spaces around parameters aside).
pub fn is_app_mime(mime: &str) -> bool {
    let normal: String = mime
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    normal == MIME_TYPE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_resource_in_either_form_and_only_ui_uris() {
        let nested = json!({"_meta": {"ui": {"resourceUri": "ui://a/app.html"}}});
        let flat = json!({"_meta": {"ui/resourceUri": "ui://b/app.html"}});
        let other = json!({"_meta": {"ui": {"resourceUri": "https://evil.example/app.html"}}});
        assert_eq!(resource_uri(&nested), Some("ui://a/app.html"));
        assert_eq!(resource_uri(&flat), Some("ui://b/app.html"));
        assert_eq!(resource_uri(&other), None);
        assert_eq!(resource_uri(&json!({"name": "x"})), None);
    }

    #[test]
    fn visibility_defaults_to_both_and_is_taken_as_written() {
        let tool = |v: Value| json!({"_meta": {"ui": {"visibility": v}}});
        assert_eq!(
            visibility(&json!({})),
            Visibility {
                model: true,
                app: true
            }
        );
        assert_eq!(
            visibility(&tool(json!(["app"]))),
            Visibility {
                model: false,
                app: true
            }
        );
        assert_eq!(
            visibility(&tool(json!(["model"]))),
            Visibility {
                model: true,
                app: false
            }
        );
        assert_eq!(
            visibility(&tool(json!([]))),
            Visibility {
                model: false,
                app: false
            }
        );
    }

    #[test]
    fn recognises_the_app_mime_type() {
        assert!(is_app_mime("text/html;profile=mcp-app"));
        assert!(is_app_mime("Text/HTML; profile=mcp-app"));
        assert!(!is_app_mime("text/html"));
        assert!(!is_app_mime("text/html;profile=other"));
    }
}
