//! OpenAI Chat Completions (`POST {base}/chat/completions`, streamed) and every compatible server
//! (Ollama, LM Studio, vLLM, OpenRouter) at its own base URL. Images go as data URLs, audio as
//! `input_audio` (wav/mp3), tool use as `tool_calls`, tool results as `tool` messages.

use serde_json::{Map, Value, json};

use super::{
    Completion, Provider, Streamed, Usage, block_type, blocks, finished, get_json, read_sse,
    result_text, send,
};
use crate::error::{Error, ErrorCode, Result};

/// The request body for `model`. `official` selects OpenAI's own parameter names where they
/// differ from what compatible servers accept.
// Long on purpose: one mapping from an MCP sampling request to the Chat Completions wire shape,
// kept whole so it reads top to bottom against OpenAI's API reference.
pub fn request_body(model: &str, req: &Value, official: bool) -> Result<Value> {
    let mut messages = Vec::new();
    if let Some(s) = req.get("systemPrompt").and_then(Value::as_str) {
        messages.push(json!({"role": "system", "content": s}));
    }
    for m in req
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("user");
        let content = blocks(m.get("content").unwrap_or(&Value::Null));
        let (tool_uses, rest): (Vec<&Value>, Vec<&Value>) = content
            .into_iter()
            .partition(|b| block_type(b) == "tool_use");
        let (results, rest): (Vec<&Value>, Vec<&Value>) = rest
            .into_iter()
            .partition(|b| block_type(b) == "tool_result");
        for r in results {
            messages.push(json!({
                "role": "tool",
                "tool_call_id": r.get("toolUseId"),
                "content": result_text(r),
            }));
        }
        if rest.is_empty() && tool_uses.is_empty() {
            continue;
        }
        let parts = rest.into_iter().map(part).collect::<Result<Vec<_>>>()?;
        let mut msg = Map::new();
        msg.insert("role".into(), role.into());
        if role == "assistant" {
            // Assistant content is text only.
            let text: String = parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("");
            msg.insert(
                "content".into(),
                if text.is_empty() {
                    Value::Null
                } else {
                    text.into()
                },
            );
        } else if parts.len() == 1 && parts[0].get("type") == Some(&json!("text")) {
            msg.insert("content".into(), parts[0]["text"].clone());
        } else {
            msg.insert("content".into(), parts.into());
        }
        if !tool_uses.is_empty() {
            msg.insert(
                "tool_calls".into(),
                tool_uses
                    .iter()
                    .map(|t| {
                        json!({
                            "id": t.get("id"),
                            "type": "function",
                            "function": {
                                "name": t.get("name"),
                                "arguments": t.get("input").cloned().unwrap_or(json!({})).to_string(),
                            }
                        })
                    })
                    .collect(),
            );
        }
        messages.push(Value::Object(msg));
    }
    let mut body = Map::new();
    body.insert("model".into(), model.into());
    body.insert("messages".into(), messages.into());
    body.insert("stream".into(), true.into());
    body.insert("stream_options".into(), json!({"include_usage": true}));
    if let Some(n) = req.get("maxTokens").filter(|n| n.is_number()) {
        // OpenAI's reasoning models only take the newer name; compatible servers the older one.
        let key = if official {
            "max_completion_tokens"
        } else {
            "max_tokens"
        };
        body.insert(key.into(), n.clone());
    }
    if let Some(t) = super::temperature(req) {
        body.insert("temperature".into(), t);
    }
    if let Some(s) = req
        .get("stopSequences")
        .and_then(Value::as_array)
        .filter(|s| !s.is_empty())
    {
        body.insert("stop".into(), s.clone().into());
    }
    if let Some(tools) = req.get("tools").and_then(Value::as_array) {
        body.insert(
            "tools".into(),
            tools
                .iter()
                .map(|t| {
                    json!({"type": "function", "function": {
                        "name": t.get("name"),
                        "description": t.get("description"),
                        "parameters": t.get("inputSchema").cloned().unwrap_or(json!({"type": "object"})),
                    }})
                })
                .collect(),
        );
        let mode = req
            .pointer("/toolChoice/mode")
            .and_then(Value::as_str)
            .unwrap_or("auto");
        body.insert("tool_choice".into(), mode.into());
    }
    Ok(Value::Object(body))
}

fn part(b: &Value) -> Result<Value> {
    Ok(match block_type(b) {
        "text" => json!({"type": "text", "text": b.get("text")}),
        "image" => json!({"type": "image_url", "image_url": {"url": format!(
            "data:{};base64,{}",
            b.get("mimeType").and_then(Value::as_str).unwrap_or("image/png"),
            b.get("data").and_then(Value::as_str).unwrap_or(""))}}),
        "audio" => {
            let mime = b.get("mimeType").and_then(Value::as_str).unwrap_or("");
            let format = match mime {
                "audio/wav" | "audio/x-wav" | "audio/wave" => "wav",
                "audio/mpeg" | "audio/mp3" => "mp3",
                other => {
                    return Err(Error::new(
                        ErrorCode::Provider,
                        format!("OpenAI accepts wav or mp3 audio, not {other:?}"),
                    ));
                }
            };
            json!({"type": "input_audio", "input_audio": {"data": b.get("data"), "format": format}})
        }
        other => {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                format!("unsupported sampling content type {other:?}"),
            ));
        }
    })
}

/// Maps `finish_reason` to MCP's `stopReason`.
pub fn stop_reason(s: &str) -> String {
    match s {
        "stop" => "endTurn",
        "length" => "maxTokens",
        "tool_calls" | "function_call" => "toolUse",
        "content_filter" => "contentFilter",
        other => other,
    }
    .to_owned()
}

/// Assembles a completion from streamed chunks.
#[derive(Debug, Default)]
pub struct Assembler {
    model: String,
    text: String,
    /// Tool calls by index: id, name, argument text.
    calls: Vec<(String, String, String)>,
    /// The call whose arguments grew with the last chunk.
    grown: Option<usize>,
    stop: String,
    usage: Usage,
}

impl Assembler {
    /// Applies one chunk; returns text to show, if any.
    pub fn apply(&mut self, chunk: &Value) -> Result<Option<String>> {
        if let Some(e) = chunk.get("error") {
            let msg = e
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("unknown error");
            return Err(Error::new(ErrorCode::Provider, format!("openai: {msg}")));
        }
        if let Some(m) = chunk.get("model").and_then(Value::as_str) {
            self.model = m.to_owned();
        }
        if let Some(u) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage.input_tokens = num(u.get("prompt_tokens"));
            self.usage.output_tokens = num(u.get("completion_tokens"));
        }
        let mut shown = None;
        for choice in chunk
            .get("choices")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let delta = choice.get("delta").unwrap_or(&Value::Null);
            if let Some(t) = delta.get("content").and_then(Value::as_str) {
                self.text.push_str(t);
                shown = Some(t.to_owned());
            }
            for call in delta
                .get("tool_calls")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let i = call.get("index").and_then(Value::as_u64).unwrap_or(0);
                let i = usize::try_from(i)
                    .ok()
                    .filter(|i| *i < super::MAX_STREAMED_PARTS)
                    .ok_or_else(|| {
                        Error::new(
                            ErrorCode::Provider,
                            format!(
                                "openai: tool call index {i} is past the {} calls one answer may make",
                                super::MAX_STREAMED_PARTS
                            ),
                        )
                    })?;
                if self.calls.len() <= i {
                    self.calls.resize(i + 1, Default::default());
                }
                let slot = &mut self.calls[i];
                if let Some(id) = call.get("id").and_then(Value::as_str) {
                    slot.0 = id.to_owned();
                }
                if let Some(n) = call.pointer("/function/name").and_then(Value::as_str) {
                    slot.1.push_str(n);
                }
                if let Some(a) = call.pointer("/function/arguments").and_then(Value::as_str) {
                    slot.2.push_str(a);
                    self.grown = Some(i);
                }
            }
            if let Some(r) = choice.get("finish_reason").and_then(Value::as_str) {
                self.stop = stop_reason(r);
            }
        }
        Ok(shown)
    }

    /// The tool call whose arguments grew with the last chunk, with its arguments so far.
    pub fn grown_tool_input(&mut self) -> Option<Streamed<'_>> {
        let i = self.grown.take()?;
        let (_, name, json) = self.calls.get(i)?;
        Some(Streamed::ToolInput {
            index: i,
            name,
            json,
        })
    }

    /// The MCP result.
    pub fn finish(self, requested_model: &str) -> Result<Completion> {
        let mut content = Vec::new();
        if !self.text.is_empty() || self.calls.is_empty() {
            content.push(json!({"type": "text", "text": self.text}));
        }
        for (n, (id, name, args)) in self.calls.into_iter().enumerate() {
            let input: Value = if args.trim().is_empty() {
                json!({})
            } else {
                serde_json::from_str(&args).map_err(|e| {
                    Error::new(
                        ErrorCode::Provider,
                        format!("the model sent invalid tool arguments: {e}"),
                    )
                })?
            };
            let id = if id.is_empty() {
                format!("call_{n}")
            } else {
                id
            };
            content.push(json!({"type": "tool_use", "id": id, "name": name, "input": input}));
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

fn is_official(p: &Provider) -> bool {
    p.base_url().starts_with("https://api.openai.com")
}

pub(super) async fn complete(
    p: &Provider,
    model: &str,
    req: &Value,
    on_stream: &mut (dyn FnMut(Streamed<'_>) + Send),
) -> Result<Completion> {
    let body = request_body(model, req, is_official(p))?;
    let mut http = p
        .post("/chat/completions")?
        .header("accept", "text/event-stream")
        .body(body.to_string());
    if let Some(k) = p.key() {
        http = http.bearer_auth(k);
    }
    let resp = send(p, http).await?;
    let mut asm = Assembler::default();
    read_sse(p, resp, |ev| {
        if ev.data.trim() == "[DONE]" {
            return Ok(());
        }
        let chunk: Value = serde_json::from_str(&ev.data)
            .map_err(|e| p.error(format_args!("invalid stream chunk: {e}")))?;
        if let Some(t) = asm.apply(&chunk)? {
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
    let mut http = p.get("/models")?;
    if let Some(k) = p.key() {
        http = http.bearer_auth(k);
    }
    let v = get_json(p, http).await?;
    Ok(v.get("data")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|m| m.get("id").and_then(Value::as_str).map(str::to_owned))
        .collect())
}
