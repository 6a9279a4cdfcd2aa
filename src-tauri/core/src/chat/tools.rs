//! The tools the chat offers the model: the running servers' tools that the person approved
//! (pinned) as they are now, under collision-free names, with hidden characters stripped from
//! what the model reads; and how a call reaches the server.

use std::collections::{HashMap, HashSet};

use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::{WithheldReason, WithheldTool};
use crate::approvals::policy::{Policies, PolicyKind, Rule};
use crate::error::{Error, ErrorCode, Result};
use crate::pins::{self, PinState, Pins};
use crate::tool_switches::{ToolRef, ToolSwitches};
use crate::visible;

/// The longest exposed tool name the providers accept.
pub(crate) const MAX_TOOL_NAME: usize = 64;

/// Above how many tools the model searches instead of being offered them all, unless the
/// configuration says otherwise (`toolSearchAbove`).
pub const DEFAULT_SEARCH_ABOVE: usize = 40;

/// The name of the tool the model searches the others with.
pub const SEARCH_TOOL: &str = "search_tools";

/// How many tools one search adds at most.
pub const SEARCH_LIMIT: usize = 5;

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
pub trait ToolSource: Send + Sync {
    /// The tools of every running, enabled server.
    fn tools(&self) -> Vec<OfferedTool>;
    /// Above how many tools the model is offered a search over them instead of them all.
    fn search_above(&self) -> usize {
        DEFAULT_SEARCH_ABOVE
    }
    /// Calls `tool` on `server` as call `call_id` ([`call_id`]); resolves with the
    /// `CallToolResult` as JSON.
    fn call(
        &self,
        server: &str,
        tool: &str,
        arguments: Value,
        call_id: &str,
    ) -> BoxFuture<'static, Result<Value>>;
}

/// The id of the call the chat makes for a model's `tool_use` in conversation `conversation`:
/// the window finds a call's task by it (turns of one conversation run one at a time, and its
/// calls one after another, so it names one call in flight). The model's id is cut short.
pub fn call_id(conversation: &str, tool_use: &str) -> String {
    let tool_use: String = tool_use.chars().take(128).collect();
    format!("chat:{conversation}:{tool_use}")
}

impl ToolSource for crate::host::Host {
    fn search_above(&self) -> usize {
        self.config()
            .ok()
            .and_then(|c| c.tool_search_above)
            .unwrap_or(DEFAULT_SEARCH_ABOVE)
    }

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
        call_id: &str,
    ) -> BoxFuture<'static, Result<Value>> {
        let host = self.clone();
        let (server, tool, call_id) = (server.to_owned(), tool.to_owned(), call_id.to_owned());
        Box::pin(async move {
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

/// The tools the person chose for the model: those switched on (a tool seen for the first time
/// gets its server's choice for new tools), and, when the conversation is limited to tool sets,
/// only their members. What is left out is the person's choice, not held back: it is not
/// reported as withheld. Blocking (reads and records the switches).
pub fn chosen(
    switches: &ToolSwitches,
    sets: Option<&HashSet<ToolRef>>,
    tools: Vec<OfferedTool>,
) -> Result<Vec<OfferedTool>> {
    let mut by_server: Vec<(String, Vec<OfferedTool>)> = Vec::new();
    for t in tools {
        match by_server.iter_mut().find(|(s, _)| *s == t.server) {
            Some((_, list)) => list.push(t),
            None => by_server.push((t.server.clone(), vec![t])),
        }
    }
    let mut kept = Vec::new();
    for (server, list) in by_server {
        let names: Vec<String> = list.iter().map(tool_name).collect();
        let on = switches.observe(&server, &names)?;
        for ((t, on), name) in list.into_iter().zip(on).zip(names) {
            let member = ToolRef {
                server: server.clone(),
                tool: name,
            };
            if on && sets.is_none_or(|s| s.contains(&member)) {
                kept.push(t);
            }
        }
    }
    Ok(kept)
}

fn tool_name(t: &OfferedTool) -> String {
    t.definition["name"].as_str().unwrap_or_default().to_owned()
}

/// Splits `tools` into those the model may be offered and those withheld, with the reason; tools
/// their server shows only to its views (MCP Apps) are neither. A tool is offered only when its current definition is pinned and so are its server's
/// instructions, if it has any (new or changed ones are the person's to review first, on the
/// Approvals screen or in a call's review), and only when its name and the property names of
/// its input schema have no hidden characters: a name must stay exact to be called, so it
/// cannot be stripped. A tool a "deny" rule covers is never offered. Blocking (reads the pins
/// and rules).
pub fn accepted(
    pins: &Pins,
    policies: &Policies,
    tools: Vec<OfferedTool>,
) -> Result<(Vec<OfferedTool>, Vec<WithheldTool>)> {
    let state = |server: &str, item: String, definition: &Value| -> Result<PinState> {
        let review = pins.review(server, &[(item, definition.clone())])?;
        Ok(review.first().map_or(PinState::New, |i| i.state))
    };
    let mut instructions: HashMap<(String, String), PinState> = HashMap::new();
    let (mut offered, mut withheld) = (Vec::new(), Vec::new());
    for t in tools {
        // A tool its server shows only to its views is not the model's, nor withheld from it.
        if !crate::mcp_apps::visibility(&t.definition).model {
            continue;
        }
        let name = t.definition["name"].as_str().unwrap_or_default().to_owned();
        let instructions_state = match &t.instructions {
            None => PinState::Pinned,
            Some(text) => {
                let key = (t.server.clone(), text.clone());
                match instructions.get(&key) {
                    Some(s) => *s,
                    None => {
                        let s = state(
                            &t.server,
                            pins::INSTRUCTIONS.into(),
                            &Value::String(text.clone()),
                        )?;
                        instructions.insert(key, s);
                        s
                    }
                }
            }
        };
        let hidden = name.chars().any(visible::is_stripped)
            || t.definition
                .get("inputSchema")
                .is_some_and(visible::keys_have_hidden);
        let denied = policies.rule(&t.server, PolicyKind::ToolCall, Some(&name))? == Rule::Deny;
        let reason = if denied {
            Some(WithheldReason::Denied)
        } else if hidden {
            Some(WithheldReason::HiddenCharacters)
        } else {
            match (
                state(&t.server, pins::tool_item(&name), &t.definition)?,
                instructions_state,
            ) {
                (PinState::Changed, _) => Some(WithheldReason::Changed),
                (_, PinState::Changed) => Some(WithheldReason::InstructionsChanged),
                (PinState::New, _) => Some(WithheldReason::NotApproved),
                (_, PinState::New) => Some(WithheldReason::InstructionsNotApproved),
                (PinState::Pinned, PinState::Pinned) => None,
            }
        };
        match reason {
            None => offered.push(t),
            Some(reason) => withheld.push(WithheldTool {
                server: t.server,
                tool: name,
                reason,
            }),
        }
    }
    Ok((offered, withheld))
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
///
/// Above a number of tools ([`ToolNames::searching`]) the model is offered only a search over
/// them ([`SEARCH_TOOL`]) and the tools it found so far: a tool is callable once found.
#[derive(Debug, Clone, Default)]
pub struct ToolNames {
    by_name: HashMap<String, OfferedTool>,
    order: Vec<String>,
    /// When searching: the names found so far (the only ones offered and callable).
    found: Option<Vec<String>>,
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

    /// These names, searched when there are more than `above` tools, with the tools `earlier`
    /// searches of the conversation found already offered.
    pub fn searching(mut self, above: usize, earlier: &[String]) -> Self {
        if self.order.len() > above {
            let found = earlier
                .iter()
                .filter(|n| self.by_name.contains_key(*n))
                .cloned()
                .collect();
            self.found = Some(found);
        }
        self
    }

    /// Whether the model searches for tools instead of being offered them all.
    pub fn is_searching(&self) -> bool {
        self.found.is_some()
    }

    /// The tool behind an exposed name, if the model may call it (when searching: once found).
    pub fn get(&self, name: &str) -> Option<&OfferedTool> {
        match &self.found {
            Some(found) if !found.iter().any(|f| f == name) => None,
            _ => self.by_name.get(name),
        }
    }

    /// Searches the tools for `query`: the names found (each now offered), best first.
    pub fn search(&mut self, query: &str) -> Vec<String> {
        let tools: Vec<OfferedTool> = self
            .order
            .iter()
            .filter_map(|n| self.by_name.get(n))
            .map(|t| OfferedTool {
                server: t.server.clone(),
                definition: visible::strip_json(&t.definition),
                instructions: None,
            })
            .collect();
        let hits = super::search::ToolIndex::new(&tools).search(query, SEARCH_LIMIT);
        let names: Vec<String> = hits
            .iter()
            .filter_map(|h| {
                self.order.iter().find(|n| {
                    self.by_name.get(*n).is_some_and(|t| {
                        t.server == h.server && t.definition["name"].as_str() == Some(&h.tool)
                    })
                })
            })
            .cloned()
            .collect();
        if let Some(found) = &mut self.found {
            for n in &names {
                if !found.contains(n) {
                    found.push(n.clone());
                }
            }
        }
        names
    }

    /// The `tools` of a sampling request, without hidden characters: the model reads what a
    /// person reviewing the definition could see ([`visible::strip`]).
    pub fn request_tools(&self) -> Value {
        let offered: Vec<&String> = match &self.found {
            Some(found) => found.iter().collect(),
            None => self.order.iter().collect(),
        };
        let mut tools: Vec<Value> = offered
            .into_iter()
            .filter_map(|name| {
                let t = self.by_name.get(name)?;
                let d = &t.definition;
                let description = format!(
                    "[{}] {}",
                    visible::strip(&t.server),
                    visible::strip(d["description"].as_str().unwrap_or_default())
                );
                let schema = d
                    .get("inputSchema")
                    .map_or_else(|| json!({"type": "object"}), visible::strip_json);
                Some(json!({
                    "name": name,
                    "description": description,
                    "inputSchema": schema,
                }))
            })
            .collect();
        if self.is_searching() {
            tools.push(search_tool(self.order.len()));
        }
        Value::Array(tools)
    }
}

/// The search tool as the model is offered it.
pub fn search_tool(count: usize) -> Value {
    json!({
        "name": SEARCH_TOOL,
        "description": format!(
            "Finds tools by what they do among the {count} tools the user made available. \
             Describe the task in a few words; the best matching tools (at most \
             {SEARCH_LIMIT}) are listed and can be called from then on."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {"query": {"type": "string", "description": "What the tool should do"}},
            "required": ["query"],
        },
    })
}
