//! `switchboard-cli conformance URL`: the client under test for @modelcontextprotocol/conformance.
//! The suite names the scenario in MCP_CONFORMANCE_SCENARIO; each scenario exercises one behaviour
//! through the same connection code the app uses.

use std::process::ExitCode;

use serde_json::Value;
use switchboard_core::config::ServerConfig;
use switchboard_core::{Error, ErrorCode, Result};

use crate::Host;

pub async fn run(host: &Host, url: &str) -> Result<ExitCode> {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str(&c).ok())
        .unwrap_or(Value::Null);
    tracing::info!(%scenario, %context, "conformance run");
    let server = ServerConfig::remote(url, Default::default());
    let live = host.connect("conformance", server, &[], None).await?;
    let c = &live.connection;
    let result = async {
        if c.summary().capabilities.get("tools").is_some() {
            let tools = c.list_tools().await?;
            if scenario != "initialize" {
                for tool in tools {
                    let args = tool_arguments(&tool.input_schema);
                    let r = c.call_tool(&tool.name, Some(args)).await;
                    if let Err(e) = r {
                        tracing::warn!(tool = %tool.name, "{}", e.message);
                    }
                }
            }
        }
        Ok::<_, Error>(())
    }
    .await;
    live.shutdown().await;
    result.map(|()| ExitCode::SUCCESS).map_err(|e| {
        Error::new(
            ErrorCode::ServerError,
            format!("scenario {scenario:?}: {}", e.message),
        )
    })
}

/// Arguments for a tool from its input schema: defaults where given, else simple values by type.
fn tool_arguments(schema: &serde_json::Map<String, Value>) -> Value {
    let mut args = serde_json::Map::new();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (k, p) in props {
            let v = p.get("default").cloned().unwrap_or_else(|| {
                match p.get("type").and_then(Value::as_str) {
                    Some("number" | "integer") => Value::from(1),
                    Some("boolean") => Value::Bool(true),
                    Some("object") => Value::Object(Default::default()),
                    Some("array") => Value::Array(vec![]),
                    _ => Value::String("test".into()),
                }
            });
            args.insert(k.clone(), v);
        }
    }
    Value::Object(args)
}
