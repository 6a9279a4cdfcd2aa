//! Google Gemini (`POST {base}/models/{model}:streamGenerateContent?alt=sse`). Text, images and
//! audio go as `inlineData`; tools as `functionDeclarations` with their JSON Schema as is
//! (`parametersJsonSchema`); tool use as `functionCall`, tool results as `functionResponse`
//! (named after the tool use they answer). The key travels in a header, never in the URL.
//! Gemini's `thoughtSignature` on a function call must come back with it on the next turn, so it
//! rides in the tool use block's `_meta` through the server and back.

use serde_json::{Map, Value, json};

use super::{
    Completion, Provider, Streamed, Usage, block_type, blocks, finished, get_json, read_sse,
    result_text, send,
};
use crate::error::{Error, ErrorCode, Result};

/// Where a function call's `thoughtSignature` is kept in the MCP tool use block.
pub const SIGNATURE_META: &str = "dev.switchboard/gemini-thought-signature";

/// The request body.
// Long on purpose: one mapping from an MCP sampling request to Gemini's `generateContent` wire
// shape, kept whole so it reads top to bottom against Google's API reference.
pub fn request_body(req: &Value) -> Result<Value> {
    // functionResponse needs the tool's name; MCP tool results only carry the tool use id.
    let mut names: std::collections::HashMap<String, String> = Default::default();
    let mut contents = Vec::new();
    for m in req
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let role = match m.get("role").and_then(Value::as_str) {
            Some("assistant") => "model",
            _ => "user",
        };
        let mut parts = Vec::new();
        for b in blocks(m.get("content").unwrap_or(&Value::Null)) {
            parts.push(match block_type(b) {
                "text" => json!({"text": b.get("text")}),
                "image" | "audio" => {
                    json!({"inlineData": {"mimeType": b.get("mimeType"), "data": b.get("data")}})
                }
                "tool_use" => {
                    let id = b.get("id").and_then(Value::as_str).unwrap_or("").to_owned();
                    let name = b.get("name").and_then(Value::as_str).unwrap_or("").to_owned();
                    names.insert(id.clone(), name.clone());
                    let mut part = json!({"functionCall": {"id": id, "name": name,
                        "args": b.get("input").cloned().unwrap_or(json!({}))}});
                    if let Some(sig) = b.pointer("/_meta").and_then(|m| m.get(SIGNATURE_META)) {
                        part["thoughtSignature"] = sig.clone();
                    }
                    part
                }
                "tool_result" => {
                    let id = b.get("toolUseId").and_then(Value::as_str).unwrap_or("");
                    let name = names.get(id).cloned().unwrap_or_default();
                    let key = if b.get("isError").and_then(Value::as_bool) == Some(true) {
                        "error"
                    } else {
                        "output"
                    };
                    json!({"functionResponse": {"id": id, "name": name,
                        "response": {key: b.get("structuredContent").cloned().unwrap_or_else(|| result_text(b).into())}}})
                }
                other => {
                    return Err(Error::new(
                        ErrorCode::InvalidInput,
                        format!("unsupported sampling content type {other:?}"),
                    ));
                }
            });
        }
        contents.push(json!({"role": role, "parts": parts}));
    }
    let mut body = Map::new();
    body.insert("contents".into(), contents.into());
    if let Some(s) = req.get("systemPrompt").and_then(Value::as_str) {
        body.insert("systemInstruction".into(), json!({"parts": [{"text": s}]}));
    }
    let mut config = Map::new();
    if let Some(n) = req.get("maxTokens").filter(|n| n.is_number()) {
        config.insert("maxOutputTokens".into(), n.clone());
    }
    if let Some(t) = super::temperature(req) {
        config.insert("temperature".into(), t);
    }
    if let Some(s) = req
        .get("stopSequences")
        .and_then(Value::as_array)
        .filter(|s| !s.is_empty())
    {
        config.insert("stopSequences".into(), s.clone().into());
    }
    if !config.is_empty() {
        body.insert("generationConfig".into(), config.into());
    }
    if let Some(tools) = req.get("tools").and_then(Value::as_array) {
        let decls: Vec<Value> = tools
            .iter()
            .map(|t| {
                json!({"name": t.get("name"), "description": t.get("description"),
                    "parametersJsonSchema": t.get("inputSchema").cloned().unwrap_or(json!({"type": "object"}))})
            })
            .collect();
        body.insert("tools".into(), json!([{"functionDeclarations": decls}]));
        let mode = match req.pointer("/toolChoice/mode").and_then(Value::as_str) {
            Some("required") => "ANY",
            Some("none") => "NONE",
            _ => "AUTO",
        };
        body.insert(
            "toolConfig".into(),
            json!({"functionCallingConfig": {"mode": mode}}),
        );
    }
    Ok(Value::Object(body))
}

/// Assembles a completion from streamed `GenerateContentResponse` chunks.
#[derive(Debug, Default)]
pub struct Assembler {
    model: String,
    text: String,
    calls: Vec<Value>,
    finish: String,
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
            return Err(Error::new(ErrorCode::Provider, format!("gemini: {msg}")));
        }
        if let Some(m) = chunk.get("modelVersion").and_then(Value::as_str) {
            self.model = m.to_owned();
        }
        if let Some(u) = chunk.get("usageMetadata") {
            self.usage.input_tokens = num(u.get("promptTokenCount"));
            self.usage.output_tokens = num(u.get("candidatesTokenCount"));
        }
        if let Some(reason) = chunk
            .pointer("/promptFeedback/blockReason")
            .and_then(Value::as_str)
        {
            return Err(Error::new(
                ErrorCode::Provider,
                format!("gemini blocked the prompt: {reason}"),
            ));
        }
        let mut shown = String::new();
        if let Some(c) = chunk.pointer("/candidates/0") {
            for part in c
                .pointer("/content/parts")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if part.get("thought").and_then(Value::as_bool) == Some(true) {
                    continue;
                }
                if let Some(t) = part.get("text").and_then(Value::as_str) {
                    self.text.push_str(t);
                    shown.push_str(t);
                }
                if let Some(call) = part.get("functionCall") {
                    let mut call = call.clone();
                    if let Some(sig) = part.get("thoughtSignature") {
                        call["thoughtSignature"] = sig.clone();
                    }
                    self.calls.push(call);
                }
            }
            if let Some(f) = c.get("finishReason").and_then(Value::as_str) {
                self.finish = f.to_owned();
            }
        }
        Ok(Some(shown).filter(|s| !s.is_empty()))
    }

    /// The MCP result.
    pub fn finish(self, requested_model: &str) -> Result<Completion> {
        let mut content = Vec::new();
        if !self.text.is_empty() || self.calls.is_empty() {
            content.push(json!({"type": "text", "text": self.text}));
        }
        let has_calls = !self.calls.is_empty();
        for (n, call) in self.calls.into_iter().enumerate() {
            let id = call
                .get("id")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .unwrap_or_else(|| format!("gemini_call_{n}"));
            let mut block = json!({"type": "tool_use", "id": id, "name": call.get("name"),
                "input": call.get("args").cloned().unwrap_or(json!({}))});
            if let Some(sig) = call.get("thoughtSignature") {
                block["_meta"] = json!({ SIGNATURE_META: sig });
            }
            content.push(block);
        }
        let stop = match self.finish.as_str() {
            _ if has_calls => "toolUse",
            "MAX_TOKENS" => "maxTokens",
            "STOP" | "" => "endTurn",
            "SAFETY" | "RECITATION" | "PROHIBITED_CONTENT" | "BLOCKLIST" | "SPII" => {
                "contentFilter"
            }
            other => other,
        };
        Ok(finished(
            content,
            &self.model,
            requested_model,
            stop,
            self.usage,
        ))
    }
}

fn num(v: Option<&Value>) -> u32 {
    v.and_then(Value::as_u64).unwrap_or(0) as u32
}

fn model_path(model: &str) -> String {
    let m = model.strip_prefix("models/").unwrap_or(model);
    format!("/models/{m}")
}

pub(super) async fn complete(
    p: &Provider,
    model: &str,
    req: &Value,
    on_stream: &mut (dyn FnMut(Streamed<'_>) + Send),
) -> Result<Completion> {
    let body = request_body(req)?;
    let mut http = p
        .post(&format!(
            "{}:streamGenerateContent?alt=sse",
            model_path(model)
        ))?
        .body(body.to_string());
    if let Some(k) = p.key() {
        http = http.header("x-goog-api-key", k);
    }
    let resp = send(p, http).await?;
    let mut asm = Assembler::default();
    read_sse(p, resp, |ev| {
        let chunk: Value = serde_json::from_str(&ev.data)
            .map_err(|e| p.error(format_args!("invalid stream chunk: {e}")))?;
        // Gemini sends each function call whole, so only text streams.
        if let Some(t) = asm.apply(&chunk)? {
            on_stream(Streamed::Text(&t));
        }
        Ok(())
    })
    .await?;
    asm.finish(model)
}

pub(super) async fn models(p: &Provider) -> Result<Vec<String>> {
    let mut http = p.get("/models?pageSize=1000")?;
    if let Some(k) = p.key() {
        http = http.header("x-goog-api-key", k);
    }
    let v = get_json(p, http).await?;
    Ok(v.get("models")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|m| {
            m.get("supportedGenerationMethods")
                .and_then(Value::as_array)
                .is_none_or(|a| a.iter().any(|x| x == "generateContent"))
        })
        .filter_map(|m| {
            m.get("name")
                .and_then(Value::as_str)
                .map(|n| n.strip_prefix("models/").unwrap_or(n).to_owned())
        })
        .collect())
}
