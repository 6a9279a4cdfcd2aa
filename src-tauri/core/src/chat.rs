//! The chat: conversations kept in the store, and turns in which the chosen model may call the
//! running servers' tools. Tools are offered under collision-free names (`server__tool`); every
//! call the model makes goes through the approval door ([`Door::authorize_tool_call`]) with its
//! arguments shown and editable, and its result (or refusal) goes back to the model. Messages are
//! MCP sampling JSON (text, image, audio, `tool_use`, `tool_result` blocks), so the providers'
//! own mappings serve the chat too. With the manual provider the person writes the model's answers
//! ([`Door::write_answer`]), so every flow can be tried without a key.

use std::collections::HashMap;
use std::sync::Arc;

use futures::future::BoxFuture;
use rusqlite::{OptionalExtension, params};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use ts_rs::TS;

use crate::approvals::Door;
use crate::error::{Error, ErrorCode, Result};
use crate::providers::{self, Provider, ProviderKind};
use crate::store::{Store, now_ms};

/// How many model requests one turn may make (each tool round trip is one).
pub const MAX_STEPS: usize = 10;
/// The longest exposed tool name the providers accept.
const MAX_TOOL_NAME: usize = 64;

/// A conversation as the list shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct Conversation {
    pub id: String,
    pub title: String,
    /// The provider and model the next turn goes to.
    pub provider: String,
    pub model: String,
    #[ts(type = "number")]
    pub updated_ms: i64,
}

/// One message: `user` or `assistant`, with sampling content blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ChatMessage {
    #[ts(type = "number")]
    pub id: i64,
    pub role: String,
    /// An array of content blocks.
    #[ts(type = "unknown[]")]
    pub content: Value,
    #[ts(type = "number")]
    pub at_ms: i64,
}

/// A conversation with its messages, oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ConversationView {
    pub conversation: Conversation,
    pub messages: Vec<ChatMessage>,
}

/// The conversations in the store.
#[derive(Debug, Clone)]
pub struct Chats {
    store: Arc<Store>,
}

/// A `SELECT id, title, provider, model, updated_ms` row.
fn conversation_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Conversation> {
    Ok(Conversation {
        id: r.get(0)?,
        title: r.get(1)?,
        provider: r.get(2)?,
        model: r.get(3)?,
        updated_ms: r.get(4)?,
    })
}

fn not_found(id: &str) -> Error {
    Error::new(ErrorCode::InvalidInput, format!("no conversation {id:?}"))
}

impl Chats {
    /// Conversations kept in `store`.
    pub fn new(store: Arc<Store>) -> Self {
        Self { store }
    }

    /// Starts a conversation.
    pub fn create(&self, title: &str, provider: &str, model: &str) -> Result<Conversation> {
        let c = Conversation {
            id: crate::audit::new_id(),
            title: title.to_owned(),
            provider: provider.to_owned(),
            model: model.to_owned(),
            updated_ms: now_ms(),
        };
        self.store.with(|db| {
            db.execute(
                "INSERT INTO conversations (id, title, provider, model, updated_ms) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![c.id, c.title, c.provider, c.model, c.updated_ms],
            )
        })?;
        Ok(c)
    }

    /// Every conversation, most recent first.
    pub fn list(&self) -> Result<Vec<Conversation>> {
        self.store.with(|db| {
            let mut stmt = db.prepare(
                "SELECT id, title, provider, model, updated_ms FROM conversations ORDER BY updated_ms DESC",
            )?;
            let rows = stmt.query_map([], conversation_row)?;
            rows.collect()
        })
    }

    /// One conversation with its messages.
    pub fn get(&self, id: &str) -> Result<ConversationView> {
        let found = self.store.with(|db| {
            let conversation = db
                .query_row(
                    "SELECT id, title, provider, model, updated_ms FROM conversations WHERE id = ?1",
                    params![id],
                    conversation_row,
                )
                .optional()?;
            let mut stmt = db.prepare(
                "SELECT id, role, content, at_ms FROM chat_messages WHERE conversation = ?1 ORDER BY id",
            )?;
            let messages = stmt
                .query_map(params![id], |r| {
                    let content: String = r.get(2)?;
                    Ok(ChatMessage {
                        id: r.get(0)?,
                        role: r.get(1)?,
                        content: serde_json::from_str(&content).unwrap_or(Value::Null),
                        at_ms: r.get(3)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            Ok(conversation.map(|conversation| ConversationView {
                conversation,
                messages,
            }))
        })?;
        found.ok_or_else(|| not_found(id))
    }

    /// Adds a message (content: a block or an array of blocks).
    pub fn append(&self, id: &str, role: &str, content: Value) -> Result<ChatMessage> {
        let content = match content {
            Value::Array(_) => content,
            one => Value::Array(vec![one]),
        };
        let at = now_ms();
        let text = content.to_string();
        let row = self.store.with(|db| {
            let tx = db.transaction()?;
            let changed = tx.execute(
                "UPDATE conversations SET updated_ms = ?2 WHERE id = ?1",
                params![id, at],
            )?;
            if changed == 0 {
                return Ok(None);
            }
            tx.execute(
                "INSERT INTO chat_messages (conversation, role, content, at_ms) VALUES (?1, ?2, ?3, ?4)",
                params![id, role, text, at],
            )?;
            let row = tx.last_insert_rowid();
            tx.commit()?;
            Ok(Some(row))
        })?;
        let row = row.ok_or_else(|| not_found(id))?;
        Ok(ChatMessage {
            id: row,
            role: role.to_owned(),
            content,
            at_ms: at,
        })
    }

    /// Changes the conversation's title or model.
    pub fn update(&self, c: &Conversation) -> Result<()> {
        let changed = self.store.with(|db| {
            db.execute(
                "UPDATE conversations SET title = ?2, provider = ?3, model = ?4 WHERE id = ?1",
                params![c.id, c.title, c.provider, c.model],
            )
        })?;
        if changed == 0 {
            return Err(not_found(&c.id));
        }
        Ok(())
    }

    /// Deletes a conversation and its messages.
    pub fn delete(&self, id: &str) -> Result<()> {
        self.store
            .with(|db| db.execute("DELETE FROM conversations WHERE id = ?1", params![id]))?;
        Ok(())
    }
}

/// A tool a running server offers, as the chat sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct OfferedTool {
    pub server: String,
    /// The tool's full definition (`name`, `description`, `inputSchema`, …).
    pub definition: Value,
    /// The server's instructions (pinned with its tools).
    pub instructions: Option<String>,
}

/// Where the chat finds tools and calls them: the running servers.
///
/// Implemented by [`crate::host::Host`]; tests use their own.
pub trait ToolHost: Send + Sync {
    /// The tools of every running, enabled server.
    fn tools(&self) -> Vec<OfferedTool>;
    /// Calls `tool` on `server`; resolves with the `CallToolResult` as JSON.
    fn call(&self, server: &str, tool: &str, arguments: Value)
    -> BoxFuture<'static, Result<Value>>;
}

impl ToolHost for crate::host::Host {
    fn tools(&self) -> Vec<OfferedTool> {
        let mut out = Vec::new();
        for handle in self.servers().all() {
            let (Ok(connection), Some(catalog)) = (handle.connection(), handle.catalog()) else {
                continue;
            };
            let instructions = connection.summary().instructions.clone();
            for tool in &catalog.tools {
                if let Ok(definition) = serde_json::to_value(tool) {
                    out.push(OfferedTool {
                        server: handle.name().to_owned(),
                        definition,
                        instructions: instructions.clone(),
                    });
                }
            }
        }
        out
    }

    fn call(
        &self,
        server: &str,
        tool: &str,
        arguments: Value,
    ) -> BoxFuture<'static, Result<Value>> {
        let host = self.clone();
        let (server, tool) = (server.to_owned(), tool.to_owned());
        Box::pin(async move {
            let call_id = format!("chat-{}", crate::audit::new_id());
            // A turn that is stopped drops this future; the call must not run on unseen, and
            // the server is told (notifications/cancelled) when the call's task is aborted.
            let mut guard = CancelOnDrop {
                host: host.clone(),
                call_id: call_id.clone(),
                armed: true,
            };
            let result = host
                .call_tool(&server, &tool, Some(arguments), &call_id)
                .await;
            guard.armed = false;
            let result = result?;
            serde_json::to_value(result).map_err(|e| Error::new(ErrorCode::Internal, e.to_string()))
        })
    }
}

/// Cancels a tool call whose caller went away before it finished.
struct CancelOnDrop {
    host: crate::host::Host,
    call_id: String,
    armed: bool,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if self.armed {
            let _ = self.host.cancel_call(&self.call_id);
        }
    }
}

fn sanitize(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The tools offered to the model under collision-free names: `server__tool`, made of the
/// characters every provider accepts, starting with a letter or `_`, at most 64 long, with a
/// numeric suffix when two would meet.
#[derive(Debug, Clone, Default)]
pub struct ToolNames {
    by_name: HashMap<String, OfferedTool>,
    order: Vec<String>,
}

impl ToolNames {
    /// Names `tools`.
    pub fn new(tools: Vec<OfferedTool>) -> Self {
        let mut names = Self::default();
        for t in tools {
            let tool = t.definition["name"].as_str().unwrap_or_default();
            let mut base = format!("{}__{}", sanitize(&t.server), sanitize(tool));
            // Gemini wants a name to start with a letter or an underscore.
            if !base.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
                base.insert(0, '_');
            }
            let base: String = base.chars().take(MAX_TOOL_NAME).collect();
            let mut name = base.clone();
            let mut n = 2;
            while names.by_name.contains_key(&name) {
                let suffix = format!("_{n}");
                name = base
                    .chars()
                    .take(MAX_TOOL_NAME - suffix.len())
                    .collect::<String>()
                    + &suffix;
                n += 1;
            }
            names.order.push(name.clone());
            names.by_name.insert(name, t);
        }
        names
    }

    /// The tool behind an exposed name.
    pub fn get(&self, name: &str) -> Option<&OfferedTool> {
        self.by_name.get(name)
    }

    /// The `tools` of a sampling request.
    pub fn request_tools(&self) -> Value {
        Value::Array(
            self.order
                .iter()
                .filter_map(|name| {
                    let t = self.by_name.get(name)?;
                    let d = &t.definition;
                    let description = format!(
                        "[{}] {}",
                        t.server,
                        d["description"].as_str().unwrap_or_default()
                    );
                    Some(json!({
                        "name": name,
                        "description": description,
                        "inputSchema": d.get("inputSchema").cloned().unwrap_or(json!({"type": "object"})),
                    }))
                })
                .collect(),
        )
    }
}

/// What a turn reports as it goes.
pub trait TurnEvents: Send {
    /// Text of the model's answer as it streams.
    fn text(&mut self, text: &str);
    /// A message was added to the conversation.
    fn message(&mut self, message: &ChatMessage);
}

/// Reports a turn on the host's event channel, for the window.
pub struct BroadcastTurn {
    pub conversation: String,
    pub events: crate::events::EventSender,
}

impl TurnEvents for BroadcastTurn {
    fn text(&mut self, text: &str) {
        let _ = self.events.send(crate::events::HostEvent::ChatText {
            conversation: self.conversation.clone(),
            text: text.to_owned(),
        });
    }

    fn message(&mut self, message: &ChatMessage) {
        let _ = self.events.send(crate::events::HostEvent::ChatMessage {
            conversation: self.conversation.clone(),
            message: message.clone(),
        });
    }
}

/// A tool result as sampling content the providers take: text, images and audio as they are,
/// anything else (links, embedded resources, structured content) as JSON text.
fn result_blocks(result: &Value) -> Vec<Value> {
    let mut out: Vec<Value> = result["content"]
        .as_array()
        .map(|blocks| {
            blocks
                .iter()
                .map(|b| match b["type"].as_str() {
                    Some("text" | "image" | "audio") => b.clone(),
                    _ => json!({"type": "text", "text": b.to_string()}),
                })
                .collect()
        })
        .unwrap_or_default();
    if out.is_empty()
        && let Some(s) = result.get("structuredContent")
    {
        out.push(json!({"type": "text", "text": s.to_string()}));
    }
    out
}

/// What the model is told of a call that never returned (the turn was stopped, or the app quit).
const STOPPED: &str = "The call was stopped before it returned; it may or may not have run.";

/// The conversation as sampling messages, with every `tool_use` answered: a turn stopped during
/// a call (or an app killed then) leaves a call without its result, which providers refuse in
/// every later request, so each missing result is given as an error saying what happened.
pub fn with_unanswered_calls_closed(history: &[ChatMessage]) -> Vec<Value> {
    let results_of = |m: &ChatMessage| -> Vec<String> {
        if m.role != "user" {
            return Vec::new();
        }
        providers::blocks(&m.content)
            .into_iter()
            .filter(|b| providers::block_type(b) == "tool_result")
            .filter_map(|b| b["toolUseId"].as_str().map(str::to_owned))
            .collect()
    };
    let mut out = Vec::with_capacity(history.len());
    let mut rest = history.iter().peekable();
    while let Some(m) = rest.next() {
        out.push(json!({"role": m.role, "content": m.content}));
        if m.role != "assistant" {
            continue;
        }
        let answered = rest.peek().map(|n| results_of(n)).unwrap_or_default();
        let missing: Vec<Value> = providers::blocks(&m.content)
            .into_iter()
            .filter(|b| providers::block_type(b) == "tool_use")
            .filter_map(|b| b["id"].as_str())
            .filter(|id| !answered.iter().any(|a| a == id))
            .map(|id| {
                json!({
                    "type": "tool_result",
                    "toolUseId": id,
                    "content": [{"type": "text", "text": STOPPED}],
                    "isError": true,
                })
            })
            .collect();
        if missing.is_empty() {
            continue;
        }
        let mut blocks: Vec<Value> = Vec::new();
        // Some results arrived: the missing ones join them in the same message.
        if !answered.is_empty()
            && let Some(n) = rest.next()
        {
            blocks.extend(providers::blocks(&n.content).into_iter().cloned());
        }
        blocks.extend(missing);
        out.push(json!({"role": "user", "content": blocks}));
    }
    out
}

/// Runs one turn of conversation `id` after the user's message was appended: asks the model,
/// and while it calls tools, has each call approved, makes it, and gives the model the result.
/// Returns the messages the turn added.
pub async fn run_turn(
    chats: &Chats,
    door: &Door,
    provider: &Provider,
    tools: &dyn ToolHost,
    id: &str,
    events: &mut dyn TurnEvents,
) -> Result<Vec<ChatMessage>> {
    let view = chats.get(id)?;
    let model = view.conversation.model.clone();
    let names = ToolNames::new(tools.tools());
    let mut added = Vec::new();
    for _ in 0..MAX_STEPS {
        let messages = with_unanswered_calls_closed(&chats.get(id)?.messages);
        let mut request = json!({"messages": messages, "maxTokens": 4096});
        let offered = names.request_tools();
        if offered.as_array().is_some_and(|a| !a.is_empty()) {
            request["tools"] = offered;
            request["toolChoice"] = json!({"mode": "auto"});
        }
        let completion = if provider.kind == ProviderKind::Manual {
            door.write_answer(&model, &request).await?
        } else {
            let mut on_text = |t: &str| events.text(t);
            provider
                .complete(&model, &request, &mut on_text)
                .await?
                .result
        };
        let content = completion["content"].clone();
        let message = chats.append(id, "assistant", content.clone())?;
        events.message(&message);
        added.push(message);
        let uses: Vec<Value> = providers::blocks(&content)
            .into_iter()
            .filter(|b| providers::block_type(b) == "tool_use")
            .cloned()
            .collect();
        if uses.is_empty() {
            return Ok(added);
        }
        let mut results = Answered {
            chats,
            id,
            blocks: Vec::with_capacity(uses.len()),
        };
        for call in uses {
            let use_id = call["id"].as_str().unwrap_or_default().to_owned();
            let name = call["name"].as_str().unwrap_or_default();
            let input = call.get("input").cloned().unwrap_or(json!({}));
            let outcome = match names.get(name) {
                None => Err(Error::new(
                    ErrorCode::InvalidInput,
                    format!("there is no tool named {name}"),
                )),
                Some(t) => call_tool(door, tools, t, input.clone()).await,
            };
            results.blocks.push(match outcome {
                Ok((sent, result)) => {
                    let mut content = result_blocks(&result);
                    // The model should know what was really called.
                    if sent != input {
                        content.insert(
                            0,
                            json!({"type": "text", "text": format!("The user changed the arguments before the call to: {sent}")}),
                        );
                    }
                    json!({
                        "type": "tool_result",
                        "toolUseId": use_id,
                        "content": content,
                        "isError": result["isError"].as_bool().unwrap_or(false),
                    })
                }
                Err(e) => json!({
                    "type": "tool_result",
                    "toolUseId": use_id,
                    "content": [{"type": "text", "text": format!("The tool was not called: {}", e.message)}],
                    "isError": true,
                }),
            });
        }
        let message = chats.append(id, "user", Value::Array(results.take()))?;
        events.message(&message);
        added.push(message);
    }
    Err(Error::new(
        ErrorCode::LimitExceeded,
        format!("the model kept calling tools; stopped after {MAX_STEPS} requests"),
    ))
}

/// The results of a step's tool calls as they come in. If the turn is stopped part way, those
/// that did return are kept (the rest are answered as stopped when the conversation goes on).
struct Answered<'a> {
    chats: &'a Chats,
    id: &'a str,
    blocks: Vec<Value>,
}

impl Answered<'_> {
    fn take(&mut self) -> Vec<Value> {
        std::mem::take(&mut self.blocks)
    }
}

impl Drop for Answered<'_> {
    fn drop(&mut self) {
        if self.blocks.is_empty() {
            return;
        }
        let blocks = self.take();
        if let Err(e) = self.chats.append(self.id, "user", Value::Array(blocks)) {
            tracing::error!(error = %e, "could not keep the results of a stopped turn");
        }
    }
}

/// Has the call approved, makes it; returns the arguments sent and the result.
async fn call_tool(
    door: &Door,
    tools: &dyn ToolHost,
    tool: &OfferedTool,
    arguments: Value,
) -> Result<(Value, Value)> {
    let (flow, arguments) = door
        .authorize_tool_call(
            &tool.server,
            &tool.definition,
            tool.instructions.as_deref(),
            arguments,
        )
        .await?;
    let name = tool.definition["name"].as_str().unwrap_or_default();
    let mut unfinished = Unfinished {
        door,
        flow: &flow,
        armed: true,
    };
    let result = tools.call(&tool.server, name, arguments.clone()).await;
    unfinished.armed = false;
    door.tool_call_finished(&flow, result.as_ref());
    Ok((arguments, result?))
}

/// Ends the audit of a call whose turn was stopped (dropped) before the call returned.
struct Unfinished<'a> {
    door: &'a Door,
    flow: &'a crate::audit::Flow,
    armed: bool,
}

impl Drop for Unfinished<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.door.tool_call_stopped(self.flow, STOPPED);
        }
    }
}

#[cfg(test)]
mod tests;
