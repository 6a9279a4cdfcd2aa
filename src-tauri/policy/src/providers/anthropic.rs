//! Anthropic Messages API (`POST /v1/messages`, streamed). Text, images, tool use and tool
//! results map one to one; audio is not accepted by the API and is refused with a clear error.

use serde_json::{Map, Value, json};

use super::{
    Completion, Provider, Streamed, Usage, block_type, blocks, finished, get_json, read_sse, send,
};
use crate::error::{Error, ErrorCode, Result};

const VERSION: &str = "2023-06-01";

/// The request body for `model`.
pub fn request_body(model: &str, req: &Value) -> Result<Value> {
    let mut messages = Vec::new();
    for m in req
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("user");
        let content = blocks(m.get("content").unwrap_or(&Value::Null))
            .into_iter()
            .map(content_block)
            .collect::<Result<Vec<_>>>()?;
        messages.push(json!({"role": role, "content": content}));
    }
    let mut body = Map::new();
    body.insert("model".into(), model.into());
    body.insert("messages".into(), messages.into());
    body.insert(
        "max_tokens".into(),
        req.get("maxTokens").cloned().unwrap_or(json!(1024)),
    );
    body.insert("stream".into(), true.into());
    if let Some(s) = req.get("systemPrompt").and_then(Value::as_str) {
        body.insert("system".into(), s.into());
    }
    if let Some(t) = super::temperature(req) {
        body.insert("temperature".into(), t);
    }
    if let Some(s) = req.get("stopSequences").filter(|s| s.is_array()) {
        body.insert("stop_sequences".into(), s.clone());
    }
    if let Some(tools) = req.get("tools").and_then(Value::as_array) {
        let mode = req
            .pointer("/toolChoice/mode")
            .and_then(Value::as_str)
            .unwrap_or("auto");
        body.insert(
            "tools".into(),
            tools
                .iter()
                .map(|t| {
                    json!({
                        "name": t.get("name"),
                        "description": t.get("description"),
                        "input_schema": t.get("inputSchema").cloned().unwrap_or(json!({"type": "object"})),
                    })
                })
                .collect(),
        );
        let choice = match mode {
            "required" => "any",
            "none" => "none",
            _ => "auto",
        };
        body.insert("tool_choice".into(), json!({"type": choice}));
    }
    Ok(Value::Object(body))
}

fn content_block(b: &Value) -> Result<Value> {
    Ok(match block_type(b) {
        "text" => json!({"type": "text", "text": b.get("text")}),
        "image" => json!({"type": "image", "source": {
            "type": "base64", "media_type": b.get("mimeType"), "data": b.get("data")}}),
        "tool_use" => json!({"type": "tool_use", "id": b.get("id"), "name": b.get("name"),
            "input": b.get("input").cloned().unwrap_or(json!({}))}),
        "tool_result" => {
            let content = blocks(b.get("content").unwrap_or(&Value::Null))
                .into_iter()
                .map(|c| match block_type(c) {
                    "text" => json!({"type": "text", "text": c.get("text")}),
                    "image" => json!({"type": "image", "source": {
                        "type": "base64", "media_type": c.get("mimeType"), "data": c.get("data")}}),
                    _ => json!({"type": "text", "text": c.to_string()}),
                })
                .collect::<Vec<_>>();
            let mut r = json!({"type": "tool_result", "tool_use_id": b.get("toolUseId"), "content": content});
            if b.get("isError").and_then(Value::as_bool) == Some(true) {
                r["is_error"] = true.into();
            }
            r
        }
        "audio" => {
            return Err(Error::new(
                ErrorCode::Provider,
                "Anthropic models do not accept audio; choose another model or remove the audio",
            ));
        }
        other => {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!("unsupported sampling content type {other:?}"),
            ));
        }
    })
}

/// Maps Anthropic's `stop_reason` to MCP's `stopReason`.
pub fn stop_reason(s: &str) -> String {
    match s {
        "end_turn" => "endTurn",
        "max_tokens" => "maxTokens",
        "stop_sequence" => "stopSequence",
        "tool_use" => "toolUse",
        other => other,
    }
    .to_owned()
}

/// Assembles a completion from the stream's events.
#[derive(Debug, Default)]
pub struct Assembler {
    model: String,
    blocks: Vec<Value>,
    partial_json: Vec<String>,
    /// The block whose tool input grew with the last event.
    grown: Option<usize>,
    stop: String,
    usage: Usage,
}

impl Assembler {
    /// Applies one event; returns text to show, if any.
    pub fn apply(&mut self, event: &str, data: &Value) -> Result<Option<String>> {
        match event {
            "message_start" => {
                if let Some(m) = data.pointer("/message/model").and_then(Value::as_str) {
                    self.model = m.to_owned();
                }
                self.usage.input_tokens = num(data.pointer("/message/usage/input_tokens"));
            }
            "content_block_start" => {
                if self.blocks.len() >= super::MAX_STREAMED_PARTS {
                    return Err(Error::new(
                        ErrorCode::Provider,
                        format!(
                            "anthropic: more than {} content blocks in one answer",
                            super::MAX_STREAMED_PARTS
                        ),
                    ));
                }
                let block = data.get("content_block").cloned().unwrap_or(Value::Null);
                self.blocks.push(block);
                self.partial_json.push(String::new());
            }
            "content_block_delta" => {
                let i = data.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
                let delta = data.get("delta").unwrap_or(&Value::Null);
                match block_type(delta) {
                    "text_delta" => {
                        let t = delta.get("text").and_then(Value::as_str).unwrap_or("");
                        // Appended in place: copying the text so far for each delta is
                        // quadratic in a long answer.
                        match self.blocks.get_mut(i).and_then(|b| b.get_mut("text")) {
                            Some(Value::String(text)) => text.push_str(t),
                            _ => {
                                if let Some(b) = self.blocks.get_mut(i) {
                                    b["text"] = t.into();
                                }
                            }
                        }
                        return Ok(Some(t.to_owned()));
                    }
                    "input_json_delta" => {
                        let t = delta
                            .get("partial_json")
                            .and_then(Value::as_str)
                            .unwrap_or("");
                        if let Some(p) = self.partial_json.get_mut(i) {
                            p.push_str(t);
                            self.grown = Some(i);
                        }
                    }
                    _ => {}
                }
            }
            "message_delta" => {
                if let Some(s) = data.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop = stop_reason(s);
                }
                self.usage.output_tokens = num(data.pointer("/usage/output_tokens"));
            }
            "error" => {
                let msg = data
                    .pointer("/error/message")
                    .and_then(Value::as_str)
                    .unwrap_or("unknown error");
                return Err(Error::new(ErrorCode::Provider, format!("anthropic: {msg}")));
            }
            _ => {}
        }
        Ok(None)
    }

    /// The tool call whose input grew with the last event, with its input so far.
    pub fn grown_tool_input(&mut self) -> Option<Streamed<'_>> {
        let i = self.grown.take()?;
        Some(Streamed::ToolInput {
            index: i,
            name: self.blocks.get(i)?.get("name")?.as_str()?,
            json: self.partial_json.get(i)?,
        })
    }

    /// The MCP result.
    pub fn finish(self, requested_model: &str) -> Result<Completion> {
        let mut content = Vec::new();
        for (block, partial) in self.blocks.into_iter().zip(self.partial_json) {
            match block_type(&block) {
                "text" => content.push(json!({"type": "text", "text": block.get("text").cloned().unwrap_or_else(|| "".into())})),
                "tool_use" => {
                    let input = if partial.trim().is_empty() {
                        block.get("input").cloned().unwrap_or(json!({}))
                    } else {
                        serde_json::from_str(&partial).map_err(|e| {
                            Error::new(ErrorCode::Provider, format!("anthropic sent invalid tool input: {e}"))
                        })?
                    };
                    content.push(json!({"type": "tool_use", "id": block.get("id"), "name": block.get("name"), "input": input}));
                }
                _ => {}
            }
        }
        Ok(finished(
            content,
            &self.model,
            requested_model,
            &self.stop,
            self.usage,
        ))
    }
}

fn num(v: Option<&Value>) -> u32 {
    v.and_then(Value::as_u64).unwrap_or(0) as u32
}

pub(super) async fn complete(
    p: &Provider,
    model: &str,
    req: &Value,
    on_stream: &mut (dyn FnMut(Streamed<'_>) + Send),
) -> Result<Completion> {
    let body = request_body(model, req)?;
    let mut http = p
        .post("/v1/messages")?
        .header("anthropic-version", VERSION)
        .header("accept", "text/event-stream")
        .body(body.to_string());
    if let Some(k) = p.key() {
        http = http.header("x-api-key", k);
    }
    let resp = send(p, http).await?;
    let mut asm = Assembler::default();
    read_sse(p, resp, |ev| {
        let data: Value = serde_json::from_str(&ev.data)
            .map_err(|e| p.error(format_args!("invalid stream event: {e}")))?;
        let name = if ev.event.is_empty() {
            data.get("type")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        } else {
            ev.event
        };
        if let Some(t) = asm.apply(&name, &data)? {
            on_stream(Streamed::Text(&t));
        }
        if let Some(input) = asm.grown_tool_input() {
            on_stream(input);
        }
        Ok(())
    })
    .await?;
    asm.finish(model)
}

pub(super) async fn models(p: &Provider) -> Result<Vec<String>> {
    let mut http = p
        .get("/v1/models?limit=1000")?
        .header("anthropic-version", VERSION);
    if let Some(k) = p.key() {
        http = http.header("x-api-key", k);
    }
    let v = get_json(p, http).await?;
    Ok(v.get("data")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|m| m.get("id").and_then(Value::as_str).map(str::to_owned))
        .collect())
}
