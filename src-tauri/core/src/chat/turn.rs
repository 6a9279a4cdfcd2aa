//! One turn of a conversation: the model answers, calls tools through the approval door, gets
//! their results, until it answers without a call; and the registry of turns in progress, which
//! lets at most one run per conversation and stops it on request.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::{Value, json};

use super::tools::SEARCH_TOOL;
use super::{
    ChatMessage, Chats, OfferedTool, ToolNames, ToolSource, WithheldTool, accepted, chosen,
};
use crate::approvals::Door;
use crate::error::{Error, ErrorCode, Result};
use crate::events::{Bus, ChatEvent};
use crate::providers::{self, Provider, ProviderKind, Streamed};
use crate::visible;

/// How many model requests one turn may make (each tool round trip is one).
pub const MAX_STEPS: usize = 10;

/// What a turn reports as it goes.
pub trait TurnEvents: Send {
    /// Text of the model's answer as it streams.
    fn text(&mut self, text: &str);
    /// A message was added to the conversation.
    fn message(&mut self, message: &ChatMessage);
    /// The turn began without offering the model these tools (empty when none was held back).
    fn withheld(&mut self, tools: &[WithheldTool]);
    /// The arguments of the answer's `index`th tool call (of `name`, as offered to the model)
    /// so far, cut back and closed, while the model writes them.
    fn tool_input(&mut self, _index: usize, _name: &str, _arguments: Value) {}
    /// The person approved the model's call `tool_use_id`: it goes out with `arguments` (as
    /// they were approved, edits included). Only now may a view of the tool see them.
    fn tool_call(&mut self, _tool_use_id: &str, _arguments: &Value) {}
}

/// Reports a turn on the host's event channel, for the window.
pub struct BroadcastTurn {
    pub conversation: String,
    pub events: Bus,
}

impl TurnEvents for BroadcastTurn {
    fn text(&mut self, text: &str) {
        self.events.publish(ChatEvent::ChatText {
            conversation: self.conversation.clone(),
            text: text.to_owned(),
        });
    }

    fn message(&mut self, message: &ChatMessage) {
        self.events.publish(ChatEvent::ChatMessage {
            conversation: self.conversation.clone(),
            message: message.clone(),
        });
    }

    fn withheld(&mut self, tools: &[WithheldTool]) {
        self.events.publish(ChatEvent::ChatToolsWithheld {
            conversation: self.conversation.clone(),
            tools: tools.to_vec(),
        });
    }

    fn tool_call(&mut self, tool_use_id: &str, arguments: &Value) {
        self.events.publish(ChatEvent::ChatToolCall {
            conversation: self.conversation.clone(),
            tool_use_id: tool_use_id.to_owned(),
            arguments: arguments.clone(),
        });
    }

    fn tool_input(&mut self, index: usize, name: &str, arguments: Value) {
        self.events.publish(ChatEvent::ChatToolInput {
            conversation: self.conversation.clone(),
            index,
            name: name.to_owned(),
            arguments,
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

/// `content` (one block or an array of them) with hidden characters stripped from its text,
/// that of tool results included.
fn strip_text(content: &mut Value) {
    match content {
        Value::Array(blocks) => blocks.iter_mut().for_each(strip_text),
        Value::Object(block) => {
            if let Some(Value::String(text)) = block.get_mut("text")
                && let Cow::Owned(stripped) = visible::strip(text)
            {
                *text = stripped;
            }
            if block.get("type").and_then(Value::as_str) == Some("tool_result") {
                block.remove(SENT_ARGUMENTS);
                block.remove(FOUND_TOOLS);
                if let Some(inner) = block.get_mut("content") {
                    strip_text(inner);
                }
            }
        }
        _ => {}
    }
}

/// The conversation as the model reads it: the text of every message (what tools returned,
/// prompts and resources a server supplied, the person's and the model's own words) without
/// the characters a person cannot see ([`visible::strip`]). The conversation keeps them.
fn visible_to_the_model(mut messages: Vec<Value>) -> Vec<Value> {
    for m in &mut messages {
        if let Some(content) = m.get_mut("content") {
            strip_text(content);
        }
    }
    messages
}

/// What the model is told of a call that never returned (the turn was stopped, or the app quit).
pub(crate) const STOPPED: &str =
    "The call was stopped before it returned; it may or may not have run.";

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
/// The model is offered only the tools the person approved as they are ([`accepted`]); the
/// others are reported to `events` and, if the model names one anyway, not called. Nothing the
/// model reads carries hidden characters ([`visible_to_the_model`]). Returns the messages the
/// turn added.
pub async fn run_turn(
    chats: &Chats,
    door: &Door,
    provider: &Provider,
    tools: &dyn ToolSource,
    id: &str,
    events: &mut dyn TurnEvents,
) -> Result<Vec<ChatMessage>> {
    let view = chats.get(id).await?;
    let model = view.conversation.model.clone();
    let (pins, policies) = (door.pins().clone(), door.policies().clone());
    let (switches, sets) = (
        chats.switches().clone(),
        view.conversation.tool_sets.clone(),
    );
    let offered = tools.tools();
    let (offered, withheld) = crate::store::off_thread(move || {
        let sets = sets.map(|names| switches.members(&names)).transpose()?;
        accepted(&pins, &policies, chosen(&switches, sets.as_ref(), offered)?)
    })
    .await?;
    events.withheld(&withheld);
    let earlier = found_before(&view.messages);
    let mut names = ToolNames::new(offered).searching(tools.search_above(), &earlier);
    let mut added = Vec::new();
    for _ in 0..MAX_STEPS {
        let messages =
            visible_to_the_model(with_unanswered_calls_closed(&chats.get(id).await?.messages));
        let request = model_request(messages, &names);
        let (completion, cut) = answer(door, provider, &model, &request, events).await?;
        let content = completion["content"].clone();
        let message = chats.append(id, "assistant", content.clone()).await?;
        events.message(&message);
        added.push(message);
        // What arrived is kept in the conversation; the turn ends there, saying why.
        if let Some(why) = cut {
            return Err(Error::new(
                ErrorCode::Provider,
                format!(
                    "The model's answer was cut off before it finished ({why}); what arrived is kept above."
                ),
            ));
        }
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
            let block = if names.is_searching() && call["name"] == SEARCH_TOOL {
                search_result(&mut names, &call)
            } else {
                tool_result(door, tools, &names, id, &call, events).await
            };
            results.blocks.push(block);
        }
        let message = chats
            .append(id, "user", Value::Array(results.take()))
            .await?;
        events.message(&message);
        added.push(message);
    }
    Err(Error::new(
        ErrorCode::LimitExceeded,
        format!("the model kept calling tools; stopped after {MAX_STEPS} requests"),
    ))
}

/// What the model is asked: the conversation as it may read it, and the tools it is offered.
fn model_request(messages: Vec<Value>, names: &ToolNames) -> Value {
    let mut request = json!({"messages": messages, "maxTokens": 4096});
    let offered = names.request_tools();
    if offered.as_array().is_some_and(|a| !a.is_empty()) {
        request["tools"] = offered;
        request["toolChoice"] = json!({"mode": "auto"});
    }
    request
}

/// The model's answer to `request`: written by the person for the manual provider, else
/// streamed from the provider (text and the tool calls being written shown as they come), with
/// why it was cut off, if it was.
async fn answer(
    door: &Door,
    provider: &Provider,
    model: &str,
    request: &Value,
    events: &mut dyn TurnEvents,
) -> Result<(Value, Option<String>)> {
    if provider.kind == ProviderKind::Manual {
        return Ok((door.write_answer(model, request).await?, None));
    }
    let mut shown = super::partial::Throttle::default();
    let mut on_stream = |s: Streamed<'_>| match s {
        Streamed::Text(t) => events.text(t),
        Streamed::ToolInput { index, name, json } => {
            if shown.due(index)
                && let Some(arguments) = super::partial::close(json)
            {
                shown.shown(index);
                events.tool_input(index, name, arguments);
            }
        }
    };
    let c = provider.complete(model, request, &mut on_stream).await?;
    Ok((c.result, c.cut))
}

/// The names earlier tool searches of the conversation found.
fn found_before(messages: &[ChatMessage]) -> Vec<String> {
    messages
        .iter()
        .filter(|m| m.role == "user")
        .flat_map(|m| providers::blocks(&m.content))
        .filter(|b| providers::block_type(b) == "tool_result")
        .filter_map(|b| b.get(FOUND_TOOLS)?.as_array().cloned())
        .flatten()
        .filter_map(|n| n.as_str().map(str::to_owned))
        .collect()
}

/// The model's tool search, answered here (it reaches no server and needs no approval: it
/// shows only tools the person already made available): the tools found, now offered.
fn search_result(names: &mut ToolNames, call: &Value) -> Value {
    let use_id = call["id"].as_str().unwrap_or_default();
    let query = call["input"]["query"].as_str().unwrap_or_default();
    let found = names.search(query);
    let lines: Vec<String> = found
        .iter()
        .filter_map(|n| {
            let d = &names.get(n)?.definition;
            let about = visible::strip(d["description"].as_str().unwrap_or_default()).into_owned();
            Some(format!(
                "- {n}: {}",
                about.chars().take(300).collect::<String>()
            ))
        })
        .collect();
    let text = if lines.is_empty() {
        format!("No tool matches {query:?}; try other words.")
    } else {
        format!("Found, and callable from now on:\n{}", lines.join("\n"))
    };
    json!({
        "type": "tool_result",
        "toolUseId": use_id,
        "content": [{"type": "text", "text": text}],
        "isError": false,
        FOUND_TOOLS: found,
    })
}

/// One of the model's tool calls, made if it names a tool it was offered and is approved: the
/// `tool_result` block the model reads next (what went out, or why it did not).
async fn tool_result(
    door: &Door,
    tools: &dyn ToolSource,
    names: &ToolNames,
    conversation: &str,
    call: &Value,
    events: &mut dyn TurnEvents,
) -> Value {
    let use_id = call["id"].as_str().unwrap_or_default().to_owned();
    let name = call["name"].as_str().unwrap_or_default();
    let input = call.get("input").cloned().unwrap_or(json!({}));
    let outcome = match names.get(name) {
        None => Err(Error::new(
            ErrorCode::InvalidInput,
            format!("there is no tool named {name}"),
        )),
        Some(t) => {
            let call_id = super::tools::call_id(conversation, &use_id);
            let mut approved = |sent: &Value| events.tool_call(&use_id, sent);
            call_tool(door, tools, t, input.clone(), &call_id, &mut approved).await
        }
    };
    match outcome {
        Ok((sent, result)) => went_out(&use_id, &input, sent, result),
        Err(e) => json!({
            "type": "tool_result",
            "toolUseId": use_id,
            "content": [{"type": "text", "text": format!("The tool was not called: {}", e.message)}],
            "isError": true,
        }),
    }
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
        // Queued ahead of whatever the person sends next, so the results stay in order.
        self.chats
            .append_detached(self.id, "user", Value::Array(blocks));
    }
}

/// Where a chat's tool result keeps the arguments the call went out with, edits included:
/// written by the core alone (a tool's own text cannot pass for it), read by the window, never
/// shown to the model (which is told in words).
pub const SENT_ARGUMENTS: &str = "sentArguments";

/// Where the result of a tool search keeps the names of the tools it found (and so offered from
/// then on, in this conversation's later turns too): written by the core alone, read by the
/// window and the next turn, never shown to the model (which reads them in words).
pub const FOUND_TOOLS: &str = "foundTools";

/// The result block of a call that went out with `sent` (the model asked for `input`), whether
/// the tool answered or the call failed on the way.
fn went_out(use_id: &str, input: &Value, sent: Value, result: Result<Value>) -> Value {
    let (mut content, is_error) = match &result {
        Ok(r) => (result_blocks(r), r["isError"].as_bool().unwrap_or(false)),
        Err(e) => (
            vec![json!({"type": "text", "text": format!("The call failed: {}", e.message)})],
            true,
        ),
    };
    // The model should know what was really called.
    if sent != *input {
        content.insert(
            0,
            json!({"type": "text", "text": format!("The user changed the arguments before the call to: {sent}")}),
        );
    }
    json!({
        "type": "tool_result",
        "toolUseId": use_id,
        "content": content,
        "isError": is_error,
        SENT_ARGUMENTS: sent,
    })
}

/// Has the call approved, makes it; the arguments it went out with and how it ended. An error
/// means it never went out (refused, or its review failed).
async fn call_tool(
    door: &Door,
    tools: &dyn ToolSource,
    tool: &OfferedTool,
    arguments: Value,
    call_id: &str,
    approved: &mut (dyn FnMut(&Value) + Send),
) -> Result<(Value, Result<Value>)> {
    let (flow, arguments) = door
        .authorize_tool_call(
            &tool.server,
            &tool.definition,
            tool.instructions.as_deref(),
            arguments,
        )
        .await?;
    approved(&arguments);
    let name = tool.definition["name"].as_str().unwrap_or_default();
    let mut unfinished = Unfinished {
        door,
        flow: &flow,
        armed: true,
    };
    let result = tools
        .call(&tool.server, name, arguments.clone(), call_id)
        .await;
    unfinished.armed = false;
    door.tool_call_finished(&flow, result.as_ref()).await;
    Ok((arguments, result))
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

/// The turns in progress, by conversation: at most one each. A conversation is reserved before
/// anything of a new turn happens, so two sends at once cannot start two turns (the second is
/// refused), and Stop always reaches the one that runs. Each reservation has a token, so a
/// send that was stopped while it set up cannot take over (or release) a later one's slot.
#[derive(Debug, Default)]
pub struct Turns {
    slots: Mutex<HashMap<String, Slot>>,
    tokens: std::sync::atomic::AtomicU64,
}

#[derive(Debug)]
enum Slot {
    /// Reserved by a send that has not started its turn yet.
    Reserved(u64),
    Running(tokio::task::JoinHandle<()>),
    /// Stopped; its task is winding down (writing what it must) before another may start.
    Stopping,
}

/// A conversation reserved for a turn; released when dropped before the turn starts.
#[derive(Debug)]
pub struct Reservation<'a> {
    turns: &'a Turns,
    id: String,
    token: u64,
    started: bool,
}

impl Turns {
    fn slots(&self) -> std::sync::MutexGuard<'_, HashMap<String, Slot>> {
        // The map stays consistent whatever panicked while holding it: each change is one call.
        self.slots
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Reserves conversation `id` for a new turn; refused while one is reserved, running or
    /// stopping.
    pub fn reserve(&self, id: &str) -> Result<Reservation<'_>> {
        let mut slots = self.slots();
        slots.retain(|_, slot| !matches!(slot, Slot::Running(task) if task.is_finished()));
        if slots.contains_key(id) {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                "the model is still answering in this conversation",
            ));
        }
        let token = self
            .tokens
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        slots.insert(id.to_owned(), Slot::Reserved(token));
        Ok(Reservation {
            turns: self,
            id: id.to_owned(),
            token,
            started: false,
        })
    }

    /// Whether a turn of conversation `id` is reserved, running or stopping.
    pub fn is_running(&self, id: &str) -> bool {
        match self.slots().get(id) {
            Some(Slot::Running(task)) => !task.is_finished(),
            Some(_) => true,
            None => false,
        }
    }

    /// Stops the turn of conversation `id` (or the send about to start one) and waits until it
    /// has wound down, so what it wrote on the way out comes before anything sent next. Returns
    /// whether there was one to stop.
    pub async fn cancel(&self, id: &str) -> bool {
        let task = {
            let mut slots = self.slots();
            match slots.remove(id) {
                Some(Slot::Running(task)) => {
                    slots.insert(id.to_owned(), Slot::Stopping);
                    task
                }
                Some(Slot::Reserved(_)) => return true,
                Some(Slot::Stopping) => {
                    slots.insert(id.to_owned(), Slot::Stopping);
                    return false;
                }
                None => return false,
            }
        };
        let running = !task.is_finished();
        task.abort();
        let _ = task.await;
        let mut slots = self.slots();
        if matches!(slots.get(id), Some(Slot::Stopping)) {
            slots.remove(id);
        }
        running
    }
}

impl Reservation<'_> {
    /// Whether this reservation still holds its conversation (it was not stopped meanwhile).
    pub fn held(&self) -> bool {
        matches!(self.turns.slots().get(&self.id), Some(Slot::Reserved(t)) if *t == self.token)
    }

    /// The turn started as `task`. If it was stopped while being set up, it is stopped now.
    pub fn start(mut self, task: tokio::task::JoinHandle<()>) {
        self.started = true;
        let mut slots = self.turns.slots();
        let ours = matches!(slots.get(&self.id), Some(Slot::Reserved(t)) if *t == self.token);
        if ours {
            slots.insert(self.id.clone(), Slot::Running(task));
        } else {
            task.abort();
        }
    }
}

impl Drop for Reservation<'_> {
    fn drop(&mut self) {
        if self.started {
            return;
        }
        let mut slots = self.turns.slots();
        if matches!(slots.get(&self.id), Some(Slot::Reserved(t)) if *t == self.token) {
            slots.remove(&self.id);
        }
    }
}

#[cfg(test)]
mod registry_tests {
    use super::*;

    fn never() -> tokio::task::JoinHandle<()> {
        tokio::spawn(std::future::pending())
    }

    #[tokio::test]
    async fn a_send_stopped_while_it_sets_up_neither_starts_nor_frees_a_later_one() {
        let turns = Turns::default();
        let first = turns.reserve("c").unwrap();
        assert!(turns.cancel("c").await, "the reserved send is stopped");
        let second = turns.reserve("c").unwrap();
        assert!(!first.held());
        let stale = never();
        let stale_abort = stale.abort_handle();
        first.start(stale);
        tokio::task::yield_now().await;
        assert!(
            stale_abort.is_finished(),
            "the stopped send's turn never runs"
        );
        assert!(second.held(), "nor does it take the later send's place");
        assert!(turns.reserve("c").is_err(), "one turn at a time still");
        second.start(never());
        assert!(turns.is_running("c"));
        assert!(turns.cancel("c").await);
        assert!(!turns.is_running("c"));
        turns.reserve("c").unwrap();
    }

    #[tokio::test]
    async fn a_failed_send_releases_only_its_own_reservation() {
        let turns = Turns::default();
        let first = turns.reserve("c").unwrap();
        turns.cancel("c").await;
        let second = turns.reserve("c").unwrap();
        drop(first);
        assert!(second.held());
        assert!(turns.reserve("c").is_err());
    }
}
