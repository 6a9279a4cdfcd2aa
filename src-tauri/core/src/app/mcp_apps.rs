//! The window's MCP Apps commands: opening a tool's view (its `ui://` resource, read from the
//! tool's own server) and every request the view makes, each bound to the view's server and
//! through the approval door: tool calls only for tools the server shows to views, reads only on
//! that server, links only https and only on consent, messages and context only written down
//! (the window shows them before anything is sent). Each request is admitted under the view's
//! limits first (a few waiting, a bounded rate), and what is written down of it is capped.

use rmcp::model::{CallToolResult, ReadResourceResult};
use serde_json::{Value, json};

use super::App;
use super::requests::{
    AppCallTool, AppMessage, AppOpenLink, AppReadResource, AppUpdateContext, OpenAppView, ViewId,
};
use crate::error::{Error, ErrorCode, Result};
use crate::mcp_apps::{self, AppView};

impl App {
    /// Reads the view of `tool` (which must name `uri` as its view) and opens it.
    pub async fn open_app_view(&self, args: OpenAppView) -> Result<AppView> {
        let tool = self.tool_definition(&args.server, &args.tool).await?;
        if mcp_apps::resource_uri(&tool) != Some(args.uri.as_str()) {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!(
                    "{} on {} has no view at {}",
                    args.tool, args.server, args.uri
                ),
            ));
        }
        let read = self
            .connection(&args.server)?
            .read_resource(&args.uri)
            .await?;
        let view = self
            .0
            .views
            .open(&args.server, &args.tool, &args.uri, read)?;
        let detail = json!({"uri": args.uri, "csp": view.csp, "permissions": view.permissions});
        self.0
            .door
            .view_request(&view.server, &view.tool, "open", detail)
            .await;
        Ok(view)
    }

    /// Closes a view: its page is no longer served and its requests are refused.
    pub async fn close_app_view(&self, args: ViewId) -> Result<()> {
        self.0.views.close(&args.view_id);
        Ok(())
    }

    /// The view's page, for the shell to serve (once).
    pub fn serve_app_view(&self, view_id: &str) -> Option<mcp_apps::Page> {
        self.0.views.serve(view_id)
    }

    /// A view's `tools/call`: only a tool its server shows to views, decided at the door.
    pub async fn app_call_tool(&self, args: AppCallTool) -> Result<CallToolResult> {
        let admitted = self.0.views.admit(&args.view_id)?;
        let view = &admitted.view;
        let tool = self.tool_definition(&view.server, &args.name).await?;
        if !mcp_apps::visibility(&tool).app {
            return Err(Error::new(
                ErrorCode::Denied,
                format!("{} on {} is not offered to views", args.name, view.server),
            ));
        }
        let connection = self.connection(&view.server)?;
        let instructions = connection.summary().instructions.clone();
        let door = &self.0.door;
        let (flow, arguments) = door
            .authorize_view_tool_call(&view.server, &tool, instructions.as_deref(), args.args)
            .await?;
        let arguments = (!arguments.is_null()).then_some(arguments);
        let call_id = format!("view-{}", crate::canonical::new_id());
        let result = self
            .0
            .host
            .call_tool(&view.server, &args.name, arguments, &call_id)
            .await;
        door.tool_call_finished(&flow, result.as_ref()).await;
        result
    }

    /// A view's `resources/read`, on its own server only.
    pub async fn app_read_resource(&self, args: AppReadResource) -> Result<ReadResourceResult> {
        let admitted = self.0.views.admit(&args.view_id)?;
        let view = &admitted.view;
        self.0
            .door
            .view_request(
                &view.server,
                &view.tool,
                "resources/read",
                json!({"uri": args.uri}),
            )
            .await;
        self.connection(&view.server)?
            .read_resource(&args.uri)
            .await
    }

    /// A view's `ui/open-link`: an https URL, shown in full, approved by the person. Returns
    /// the URL to open (the shell opens it).
    pub async fn app_open_link(&self, args: AppOpenLink) -> Result<String> {
        let admitted = self.0.views.admit(&args.view_id)?;
        let view = &admitted.view;
        let url = url::Url::parse(&args.url)
            .map_err(|e| Error::new(ErrorCode::InvalidInput, format!("not a URL: {e}")))?;
        if url.scheme() != "https" {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!("a view may only open https links, not {:?}", url.scheme()),
            ));
        }
        let url = url.to_string();
        self.0
            .door
            .authorize_link(&view.server, &view.tool, &url)
            .await?;
        Ok(url)
    }

    /// A view's `ui/message`, written down; the window shows it and sends nothing by itself.
    pub async fn app_message(&self, args: AppMessage) -> Result<()> {
        self.view_note(&args.view_id, "ui/message", args.message)
            .await
    }

    /// A view's `ui/update-model-context`, written down; the window shows it with the next
    /// message.
    pub async fn app_update_context(&self, args: AppUpdateContext) -> Result<()> {
        self.view_note(&args.view_id, "ui/update-model-context", args.context)
            .await
    }

    async fn view_note(&self, view_id: &str, request: &str, detail: Value) -> Result<()> {
        let admitted = self.0.views.admit(view_id)?;
        let view = &admitted.view;
        self.0
            .door
            .view_request(&view.server, &view.tool, request, detail)
            .await;
        Ok(())
    }

    /// The full definition of `tool` on a running `server`.
    async fn tool_definition(&self, server: &str, tool: &str) -> Result<Value> {
        let tools = self
            .list_tools(super::requests::ServerName {
                server: server.to_owned(),
            })
            .await?;
        let found = tools.into_iter().find(|t| t.name == tool).ok_or_else(|| {
            Error::new(
                ErrorCode::ToolNotFound,
                format!("server {server:?} has no tool {tool:?}"),
            )
        })?;
        serde_json::to_value(found).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))
    }
}
