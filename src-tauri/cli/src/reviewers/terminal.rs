//! `--approve ask`: server→client requests shown on the terminal, one at a time.

use std::io::{BufRead, Write};
use std::sync::Arc;

use futures::future::BoxFuture;
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationAction, ErrorData as McpError,
};
use serde_json::{Map, Value};
use switchboard_core::approvals::{Approver, Origin, rejected_sampling, schema_defaults};
use tokio::sync::Mutex;

/// Asks on stderr/stdin; a queue (the mutex) keeps prompts from interleaving.
#[derive(Default)]
pub struct TerminalApprover {
    queue: Arc<Mutex<()>>,
}

/// Prints `question` to stderr and reads one line from stdin (`None` at end of input).
pub fn prompt_line(question: &str) -> Option<String> {
    let mut err = std::io::stderr().lock();
    let _ = write!(err, "{question}");
    let _ = err.flush();
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line.trim_end_matches(['\r', '\n']).to_owned()),
    }
}

async fn ask(question: String) -> Option<String> {
    tokio::task::spawn_blocking(move || prompt_line(&question))
        .await
        .ok()
        .flatten()
}

impl Approver for TerminalApprover {
    #[allow(deprecated)]
    fn sampling(
        &self,
        origin: Origin,
        params: CreateMessageRequestParams,
    ) -> BoxFuture<'static, Result<CreateMessageResult, McpError>> {
        let queue = self.queue.clone();
        Box::pin(async move {
            let _turn = queue.lock().await;
            let shown = serde_json::to_string_pretty(&params).unwrap_or_default();
            eprintln!(
                "\nServer {:?} asks to sample an LLM:\n{shown}",
                origin.server
            );
            eprintln!("No LLM provider is configured for the CLI; the request is rejected.");
            Err(rejected_sampling())
        })
    }

    fn elicitation(
        &self,
        origin: Origin,
        params: ElicitRequestParams,
    ) -> BoxFuture<'static, Result<ElicitResult, McpError>> {
        let queue = self.queue.clone();
        Box::pin(async move {
            let _turn = queue.lock().await;
            let request = serde_json::to_value(&params).unwrap_or(Value::Null);
            let message = request.get("message").and_then(Value::as_str).unwrap_or("");
            eprintln!("\nServer {:?} asks: {message}", origin.server);
            if let Some(url) = request.get("url").and_then(Value::as_str) {
                eprintln!("It wants you to open: {url}");
                let answer = ask("Open it yourself and accept? [y/N] ".into()).await;
                let action = if answer
                    .as_deref()
                    .is_some_and(|a| a.eq_ignore_ascii_case("y"))
                {
                    ElicitationAction::Accept
                } else {
                    ElicitationAction::Decline
                };
                return Ok(ElicitResult::new(action));
            }
            let schema = request
                .get("requestedSchema")
                .cloned()
                .unwrap_or(Value::Null);
            let mut content: Map<String, Value> = schema_defaults(&schema);
            if let Some(props) = schema.get("properties").and_then(Value::as_object) {
                for (key, prop) in props {
                    let shown_default = content
                        .get(key)
                        .map(|d| format!(" [{d}]"))
                        .unwrap_or_default();
                    let title = prop.get("title").and_then(Value::as_str).unwrap_or(key);
                    let Some(answer) = ask(format!("{title}{shown_default}: ")).await else {
                        return Ok(ElicitResult::new(ElicitationAction::Cancel));
                    };
                    if answer.is_empty() {
                        continue;
                    }
                    let value = match prop.get("type").and_then(Value::as_str) {
                        Some("boolean") => {
                            Value::Bool(matches!(answer.as_str(), "y" | "yes" | "true"))
                        }
                        Some("number" | "integer") => {
                            serde_json::from_str(&answer).unwrap_or(Value::String(answer))
                        }
                        _ => Value::String(answer),
                    };
                    content.insert(key.clone(), value);
                }
            }
            let send = ask("Send this answer? [Y/n/c(ancel)] ".into()).await;
            Ok(
                match send.as_deref().map(str::to_ascii_lowercase).as_deref() {
                    Some("n") => ElicitResult::new(ElicitationAction::Decline),
                    Some("c") | None => ElicitResult::new(ElicitationAction::Cancel),
                    _ => ElicitResult::new(ElicitationAction::Accept)
                        .with_content(Value::Object(content)),
                },
            )
        })
    }
}
