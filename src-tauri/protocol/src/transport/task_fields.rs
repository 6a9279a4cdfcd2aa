//! The 2025-11-25 task fields rmcp 3.9's typed model has no place for, kept at the JSON layer of
//! the transports Switchboard writes itself (stdio): rmcp's `ServerCapabilities` drops the
//! server's `capabilities.tasks`, its `Tool` drops `execution.taskSupport`, its
//! `ClientCapabilities` cannot declare the client's `tasks`, and its `CreateMessageRequestParams`
//! and `ElicitRequestParams` drop a request's `task`. So: the client's `tasks` capability is added
//! to the `initialize` request on its way out; the server's capability and each listed tool's
//! task support are noted on their way in ([`TaskFields`], read by the connection); and a
//! task-augmented sampling or elicitation request is renamed so rmcp hands it to the handler
//! whole as a custom request ([`TASK_AUGMENTED`]). Over Streamable HTTP, rmcp decodes messages
//! before Switchboard sees them, so none of this applies there: the client's tasks are not
//! declared, and a tool that needs a task is found by its refusal and called again as one
//! (`Connection::call_tool_for`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use serde_json::{Value, json};

/// The prefix a task-augmented server→client request's method gets, so rmcp delivers it to
/// `on_custom_request` with its `task` field intact.
pub const TASK_AUGMENTED: &str = "switchboard/task-augmented:";

/// The most tools whose task support is remembered per connection.
const MAX_TOOLS: usize = 10_000;

/// What the transport saw of tasks that rmcp's types drop; shared with the connection.
#[derive(Debug, Clone, Default)]
pub struct TaskFields(Arc<Inner>);

#[derive(Debug, Default)]
struct Inner {
    /// Whether a transport reads the messages for these fields (stdio does; HTTP cannot).
    watched: std::sync::atomic::AtomicBool,
    server_tasks: OnceLock<Value>,
    tools_seen: std::sync::atomic::AtomicBool,
    // A plain lock: held for one map operation, never across an await.
    tool_support: Mutex<HashMap<String, String>>,
}

impl TaskFields {
    /// Marks these fields as read by the transport, so what they lack the server did not say.
    pub fn watch(&self) {
        self.0
            .watched
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Whether a transport reads the messages for these fields: if not, the server's task
    /// support is unknown rather than absent.
    pub fn watched(&self) -> bool {
        self.0.watched.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The server's `capabilities.tasks` from its `initialize` result, if it had one.
    pub fn server_tasks(&self) -> Option<Value> {
        self.0.server_tasks.get().cloned()
    }

    /// A tool's `execution.taskSupport` from the last `tools/list` that named it.
    pub fn tool_support(&self, tool: &str) -> Option<String> {
        self.lock().get(tool).cloned()
    }

    /// Whether a `tools/list` answer has passed (so a tool not noted has no task support).
    pub fn tools_seen(&self) -> bool {
        self.0.tools_seen.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, String>> {
        self.0
            .tool_support
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Notes what an incoming message says of tasks, and renames a task-augmented request.
    pub fn incoming(&self, message: &mut Value) {
        if let Some(result) = message.get("result") {
            self.note_result(result);
            return;
        }
        let augmented = message
            .pointer("/params/task")
            .is_some_and(Value::is_object);
        let Some(method) = message.get("method").and_then(Value::as_str) else {
            return;
        };
        if augmented && matches!(method, "sampling/createMessage" | "elicitation/create") {
            message["method"] = Value::String(format!("{TASK_AUGMENTED}{method}"));
        }
    }

    fn note_result(&self, result: &Value) {
        if result.get("protocolVersion").is_some()
            && let Some(tasks) = result.pointer("/capabilities/tasks")
        {
            let _ = self.0.server_tasks.set(tasks.clone());
        }
        let Some(tools) = result.get("tools").and_then(Value::as_array) else {
            return;
        };
        self.0
            .tools_seen
            .store(true, std::sync::atomic::Ordering::Relaxed);
        let mut support = self.lock();
        for tool in tools {
            let (Some(name), Some(mode)) = (
                tool.get("name").and_then(Value::as_str),
                tool.pointer("/execution/taskSupport")
                    .and_then(Value::as_str),
            ) else {
                continue;
            };
            if support.len() < MAX_TOOLS || support.contains_key(name) {
                support.insert(name.to_owned(), mode.to_owned());
            }
        }
    }
}

/// What Switchboard declares of tasks on 2025-11-25: task-augmented sampling and elicitation
/// (run in the background through the approval door), with `tasks/list` and `tasks/cancel`.
pub fn client_tasks_capability() -> Value {
    json!({
        "list": {},
        "cancel": {},
        "requests": {
            "sampling": {"createMessage": {}},
            "elicitation": {"create": {}}
        }
    })
}

/// Adds the client's `tasks` capability to an outgoing `initialize` request.
pub fn outgoing(message: &mut Value) {
    if message.get("method").and_then(Value::as_str) != Some("initialize") {
        return;
    }
    if let Some(capabilities) = message
        .pointer_mut("/params/capabilities")
        .and_then(Value::as_object_mut)
    {
        capabilities.insert("tasks".into(), client_tasks_capability());
    }
}

/// Whether a message may carry a task field (a cheap test before parsing it twice). Every
/// message is searched, a 4 MB result too: by SIMD search, not byte by byte.
pub fn mentions_tasks(text: &[u8]) -> bool {
    static NEEDLES: OnceLock<[memchr::memmem::Finder<'static>; 2]> = OnceLock::new();
    let needles = NEEDLES.get_or_init(|| {
        [
            memchr::memmem::Finder::new(b"\"task"),
            memchr::memmem::Finder::new(b"\"execution\""),
        ]
    });
    needles.iter().any(|n| n.find(text).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_capability_and_tool_support_are_noted() {
        let fields = TaskFields::default();
        fields.incoming(&mut json!({"jsonrpc": "2.0", "id": 0, "result": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"tasks": {"requests": {"tools": {"call": {}}}}},
            "serverInfo": {"name": "s", "version": "1"}
        }}));
        fields.incoming(&mut json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [
            {"name": "slow", "execution": {"taskSupport": "required"}},
            {"name": "fast"}
        ]}}));
        assert_eq!(
            fields.server_tasks(),
            Some(json!({"requests": {"tools": {"call": {}}}}))
        );
        assert_eq!(fields.tool_support("slow").as_deref(), Some("required"));
        assert_eq!(fields.tool_support("fast"), None);
    }

    #[test]
    fn a_task_augmented_request_is_renamed_and_a_plain_one_is_not() {
        let fields = TaskFields::default();
        let mut augmented = json!({"jsonrpc": "2.0", "id": 7, "method": "sampling/createMessage",
            "params": {"task": {"ttl": 1000}, "messages": [], "maxTokens": 5}});
        fields.incoming(&mut augmented);
        assert_eq!(
            augmented["method"],
            "switchboard/task-augmented:sampling/createMessage"
        );
        let mut plain = json!({"jsonrpc": "2.0", "id": 8, "method": "elicitation/create",
            "params": {"message": "?"}});
        fields.incoming(&mut plain);
        assert_eq!(plain["method"], "elicitation/create");
        let parsed: rmcp::service::RxJsonRpcMessage<rmcp::RoleClient> =
            serde_json::from_value(augmented).unwrap();
        let text = serde_json::to_string(&parsed).unwrap();
        assert!(text.contains("\"task\""), "{text}");
    }

    #[test]
    fn initialize_declares_the_client_tasks_capability() {
        let mut init = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"capabilities": {"roots": {}}}});
        outgoing(&mut init);
        assert_eq!(
            init["params"]["capabilities"]["tasks"],
            client_tasks_capability()
        );
        let mut other = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
        outgoing(&mut other);
        assert!(other.get("params").is_none());
        assert!(mentions_tasks(br#"{"task":{}}"#));
        assert!(!mentions_tasks(br#"{"tools":[]}"#));
    }
}
