//! What a server's view (MCP Apps) asks of the host, through the door like everything else: a
//! tool call is decided as the model's are (rules, pins, a review that says a view asks); a link
//! is always shown in full and opened only on consent; reads, messages and context updates are
//! written down as they come.

use serde_json::{Value, json};

use super::{Caller, Door, ReviewKind, Verdict};
use crate::audit::{Flow, FlowKind, Step};
use crate::error::{Error, ErrorCode, Result};

impl Door {
    /// Decides a view's call of `tool` (its full definition) on `server`, as
    /// [`Door::authorize_tool_call`] does for the model's.
    pub async fn authorize_view_tool_call(
        &self,
        server: &str,
        tool: &Value,
        instructions: Option<&str>,
        arguments: Value,
    ) -> Result<(Flow, Value)> {
        self.authorize_call(Caller::View, server, tool, instructions, arguments)
            .await
    }

    /// Asks the person whether the view of `tool` on `server` may open `url` in the browser.
    /// No standing rule applies: every link is shown.
    pub async fn authorize_link(&self, server: &str, tool: &str, url: &str) -> Result<()> {
        let flow = Flow::new(FlowKind::View, server, Some(tool.to_owned()));
        let shown = json!({ "url": url });
        self.note(
            &flow,
            Step::Requested,
            "view",
            None,
            json!({"request": "ui/open-link", "url": url}),
        )
        .await;
        let context = json!({ "tool": tool, "from": "view" });
        match self.ask(&flow, ReviewKind::OpenLink, shown, context).await {
            // The link opened is the one shown, whatever came back with the approval.
            Verdict::Approve { .. } => {
                self.note(
                    &flow,
                    Step::Decided,
                    self.0.reviewer.actor(),
                    Some("approved"),
                    Value::Null,
                )
                .await;
                Ok(())
            }
            other => {
                self.refused(&flow, &other).await;
                Err(Error::new(
                    ErrorCode::Denied,
                    format!("you did not let the view open {url}"),
                ))
            }
        }
    }

    /// Writes down a request from the view of `tool` on `server` that needs no decision
    /// (`ui/message`, `ui/update-model-context`, `resources/read`, opening the view itself).
    /// What is kept of `detail` is capped at [`MAX_VIEW_DETAIL_BYTES`].
    pub async fn view_request(&self, server: &str, tool: &str, request: &str, detail: Value) {
        let flow = Flow::new(FlowKind::View, server, Some(tool.to_owned()));
        let detail = crate::audit::capped(detail, MAX_VIEW_DETAIL_BYTES);
        self.note(
            &flow,
            Step::Requested,
            "view",
            None,
            json!({ "request": request, "detail": detail }),
        )
        .await;
    }
}

/// The most a view's note (a message, a context update) takes in the audit log: a view can send
/// many, and a megabyte each would grow the log without end.
pub const MAX_VIEW_DETAIL_BYTES: usize = 4 * 1024;
