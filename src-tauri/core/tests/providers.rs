//! Provider wire formats against loopback servers that replay recorded streaming responses
//! (`tests/providers/*.sse`): what we send (path, headers, body) and what we make of what comes
//! back, including streamed tool calls, delivered in small chunks that split lines and events.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use futures::StreamExt;
use serde_json::{Value, json};
use switchboard_core::ErrorCode;
use switchboard_policy::providers::{Provider, ProviderKind, Sensitive, Streamed};

/// One request the loopback server received.
#[derive(Debug, Clone)]
struct Seen {
    path_and_query: String,
    headers: HeaderMap,
    body: Value,
}

/// A loopback HTTP server answering every request with one canned response.
struct Replay {
    base: String,
    seen: Arc<Mutex<Vec<Seen>>>,
}

impl Replay {
    /// Answers with `body` as an SSE stream (in 13-byte chunks) and status 200, or with `status`
    /// and `body` as JSON when `status` is not 200.
    async fn start(status: u16, body: &'static str) -> Self {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let app = axum::Router::new().fallback(move |uri: Uri, headers: HeaderMap, raw: Bytes| {
            let log = log.clone();
            async move {
                log.lock().unwrap().push(Seen {
                    path_and_query: uri
                        .path_and_query()
                        .map(|p| p.to_string())
                        .unwrap_or_default(),
                    headers,
                    body: serde_json::from_slice(&raw).unwrap_or(Value::Null),
                });
                if status != 200 {
                    return Response::builder()
                        .status(StatusCode::from_u16(status).unwrap())
                        .header("content-type", "application/json")
                        .body(Body::from(body))
                        .unwrap();
                }
                let content_type = if body.trim_start().starts_with('{') {
                    "application/json"
                } else {
                    "text/event-stream"
                };
                let chunks: Vec<Result<Bytes, std::io::Error>> = body
                    .as_bytes()
                    .chunks(13)
                    .map(|c| Ok(Bytes::copy_from_slice(c)))
                    .collect();
                let stream = futures::stream::iter(chunks).then(|c| async move {
                    tokio::time::sleep(Duration::from_micros(200)).await;
                    c
                });
                Response::builder()
                    .header("content-type", content_type)
                    .body(Body::from_stream(stream))
                    .unwrap()
            }
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Self { base, seen }
    }

    fn only(&self) -> Seen {
        let seen = self.seen.lock().unwrap();
        assert_eq!(seen.len(), 1, "{seen:?}");
        seen[0].clone()
    }
}

const KEY: &str = "sk-test-0123456789";

fn provider(kind: ProviderKind, base: &str) -> Provider {
    Provider::new("p", kind, Some(base), Some(Sensitive::new(KEY))).unwrap()
}

async fn complete(p: &Provider, model: &str, req: &Value) -> (Value, Vec<String>, (u32, u32)) {
    let (result, pieces, _, usage) = complete_streamed(p, model, req).await;
    (result, pieces, usage)
}

/// A tool call's arguments as they streamed: its place in the answer, its name, the JSON so far.
type ToolInput = (usize, String, String);

async fn complete_streamed(
    p: &Provider,
    model: &str,
    req: &Value,
) -> (Value, Vec<String>, Vec<ToolInput>, (u32, u32)) {
    let (mut pieces, mut inputs) = (Vec::new(), Vec::new());
    let c = p
        .complete(model, req, &mut |s: Streamed<'_>| match s {
            Streamed::Text(t) => pieces.push(t.to_owned()),
            Streamed::ToolInput { index, name, json } => {
                inputs.push((index, name.to_owned(), json.to_owned()))
            }
        })
        .await
        .unwrap();
    (
        c.result,
        pieces,
        inputs,
        (c.usage.input_tokens, c.usage.output_tokens),
    )
}

/// A sampling request with everything a server may put in one.
fn full_request() -> Value {
    json!({
        "messages": [
            {"role": "user", "content": [
                {"type": "text", "text": "What is the capital of France?"},
                {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
            ]},
        ],
        "systemPrompt": "Answer briefly.",
        "maxTokens": 100,
        "temperature": 0.2,
        "stopSequences": ["\n\n"],
    })
}

fn weather_tools() -> Value {
    json!([{
        "name": "get_weather",
        "description": "Current weather for a city",
        "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
    }])
}

/// A tool loop's second request: the model's tool use and the server's tool result.
fn tool_loop_request() -> Value {
    json!({
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "Weather in Paris?"}},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"},
                 "_meta": {"dev.switchboard/gemini-thought-signature": "c2lnbmF0dXJl"}}
            ]},
            {"role": "user", "content": [
                {"type": "tool_result", "toolUseId": "call_1", "content": [{"type": "text", "text": "18°C, sunny"}]}
            ]},
        ],
        "maxTokens": 200,
        "tools": weather_tools(),
        "toolChoice": {"mode": "auto"},
    })
}

#[tokio::test]
async fn openai_streams_text_and_sends_the_whole_request() {
    let server = Replay::start(200, include_str!("providers/openai_text.sse")).await;
    let p = provider(ProviderKind::Openai, &format!("{}/v1", server.base));
    let (result, pieces, usage) = complete(&p, "gpt-4o-mini", &full_request()).await;
    assert_eq!(pieces.concat(), "The capital of France is Paris.");
    assert!(pieces.len() >= 4, "streamed in pieces: {pieces:?}");
    assert_eq!(
        result,
        json!({"role": "assistant", "content": {"type": "text", "text": "The capital of France is Paris."},
               "model": "gpt-4o-mini-2024-07-18", "stopReason": "endTurn"})
    );
    assert_eq!(usage, (24, 7));

    let seen = server.only();
    assert_eq!(seen.path_and_query, "/v1/chat/completions");
    assert_eq!(seen.headers["authorization"], format!("Bearer {KEY}"));
    let b = &seen.body;
    assert_eq!(b["model"], "gpt-4o-mini");
    assert_eq!(b["stream"], true);
    assert_eq!(b["stream_options"]["include_usage"], true);
    assert_eq!(
        b["messages"][0],
        json!({"role": "system", "content": "Answer briefly."})
    );
    assert_eq!(
        b["messages"][1]["content"],
        json!([
            {"type": "text", "text": "What is the capital of France?"},
            {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
        ])
    );
    // A compatible server (not api.openai.com) gets the widely supported name.
    assert_eq!(b["max_tokens"], 100);
    assert_eq!(b["temperature"], 0.2);
    assert_eq!(b["stop"], json!(["\n\n"]));
}

#[tokio::test]
async fn openai_streamed_tool_call_becomes_tool_use() {
    let server = Replay::start(200, include_str!("providers/openai_tool_call.sse")).await;
    let p = provider(ProviderKind::Openai, &server.base);
    let mut req = json!({
        "messages": [{"role": "user", "content": {"type": "text", "text": "Weather in Paris?"}}],
        "maxTokens": 200,
        "tools": weather_tools(),
        "toolChoice": {"mode": "required"},
    });
    let (result, pieces, inputs, usage) = complete_streamed(&p, "gpt-4o-mini", &req).await;
    assert!(pieces.is_empty(), "{pieces:?}");
    // The arguments stream as they come, for a view to show them early.
    let last = inputs.last().unwrap();
    assert_eq!(
        (last.0, last.1.as_str(), last.2.as_str()),
        (0, "get_weather", r#"{"city":"Paris"}"#)
    );
    assert!(inputs.len() > 2, "{inputs:?}");
    assert!(
        inputs.windows(2).all(|w| w[1].2.starts_with(&w[0].2)),
        "{inputs:?}"
    );
    assert_eq!(result["stopReason"], "toolUse");
    assert_eq!(
        result["content"],
        json!({"type": "tool_use", "id": "call_Qw8vXk2LmN3pR4sT5uV6wX7y", "name": "get_weather", "input": {"city": "Paris"}})
    );
    assert_eq!(usage, (81, 15));
    let b = server.only().body;
    assert_eq!(
        b["tools"],
        json!([{"type": "function", "function": {"name": "get_weather", "description": "Current weather for a city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}])
    );
    assert_eq!(b["tool_choice"], "required");

    // The second turn of the loop: tool_use → assistant tool_calls, tool_result → a tool message.
    req = tool_loop_request();
    let server = Replay::start(200, include_str!("providers/openai_text.sse")).await;
    let p = provider(ProviderKind::Openai, &server.base);
    complete(&p, "gpt-4o-mini", &req).await;
    let b = server.only().body;
    assert_eq!(
        b["messages"][1],
        json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]})
    );
    assert_eq!(
        b["messages"][2],
        json!({"role": "tool", "tool_call_id": "call_1", "content": "18°C, sunny"})
    );
    assert_eq!(b["messages"].as_array().unwrap().len(), 3);
}

#[tokio::test]
async fn anthropic_streams_text_with_its_headers() {
    let server = Replay::start(200, include_str!("providers/anthropic_text.sse")).await;
    let p = provider(ProviderKind::Anthropic, &server.base);
    let (result, pieces, usage) = complete(&p, "claude-sonnet-4-5", &full_request()).await;
    assert_eq!(pieces, ["The capital of France", " is Paris."]);
    assert_eq!(
        result,
        json!({"role": "assistant", "content": {"type": "text", "text": "The capital of France is Paris."},
               "model": "claude-sonnet-4-5-20250929", "stopReason": "endTurn"})
    );
    assert_eq!(usage, (21, 10));
    let seen = server.only();
    assert_eq!(seen.path_and_query, "/v1/messages");
    assert_eq!(seen.headers["x-api-key"], KEY);
    assert_eq!(seen.headers["anthropic-version"], "2023-06-01");
    assert!(seen.headers.get("authorization").is_none());
    let b = &seen.body;
    assert_eq!(b["system"], "Answer briefly.");
    assert_eq!(b["max_tokens"], 100);
    assert_eq!(b["stream"], true);
    assert_eq!(b["stop_sequences"], json!(["\n\n"]));
    assert_eq!(
        b["messages"],
        json!([{"role": "user", "content": [
            {"type": "text", "text": "What is the capital of France?"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
        ]}])
    );
}

#[tokio::test]
async fn anthropic_streamed_tool_use_and_tool_results() {
    let server = Replay::start(200, include_str!("providers/anthropic_tool_use.sse")).await;
    let p = provider(ProviderKind::Anthropic, &server.base);
    let (result, pieces, inputs, _) =
        complete_streamed(&p, "claude-sonnet-4-5", &tool_loop_request()).await;
    assert_eq!(pieces.concat(), "Let me check the weather in Paris.");
    let last = inputs.last().unwrap();
    assert_eq!(
        (last.0, last.1.as_str(), last.2.as_str()),
        (1, "get_weather", r#"{"city": "Paris"}"#)
    );
    assert_eq!(result["stopReason"], "toolUse");
    assert_eq!(
        result["content"],
        json!([
            {"type": "text", "text": "Let me check the weather in Paris."},
            {"type": "tool_use", "id": "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "name": "get_weather", "input": {"city": "Paris"}}
        ])
    );
    let b = server.only().body;
    assert_eq!(b["tool_choice"], json!({"type": "auto"}));
    assert_eq!(b["tools"][0]["input_schema"]["required"], json!(["city"]));
    assert_eq!(
        b["messages"][1]["content"],
        json!([{"type": "tool_use", "id": "call_1", "name": "get_weather", "input": {"city": "Paris"}}])
    );
    assert_eq!(
        b["messages"][2]["content"],
        json!([{"type": "tool_result", "tool_use_id": "call_1", "content": [{"type": "text", "text": "18°C, sunny"}]}])
    );
}

#[tokio::test]
async fn gemini_streams_text_with_the_key_in_a_header() {
    let server = Replay::start(200, include_str!("providers/gemini_text.sse")).await;
    let p = provider(ProviderKind::Gemini, &format!("{}/v1beta", server.base));
    let (result, pieces, usage) = complete(&p, "gemini-2.5-flash", &full_request()).await;
    assert_eq!(pieces, ["The capital of France", " is Paris."]);
    assert_eq!(result["content"]["text"], "The capital of France is Paris.");
    assert_eq!(result["stopReason"], "endTurn");
    assert_eq!(result["model"], "gemini-2.5-flash");
    assert_eq!(usage, (12, 7));
    let seen = server.only();
    assert_eq!(
        seen.path_and_query,
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    );
    assert!(!seen.path_and_query.contains(KEY));
    assert_eq!(seen.headers["x-goog-api-key"], KEY);
    let b = &seen.body;
    assert_eq!(
        b["systemInstruction"],
        json!({"parts": [{"text": "Answer briefly."}]})
    );
    assert_eq!(
        b["generationConfig"],
        json!({"maxOutputTokens": 100, "temperature": 0.2, "stopSequences": ["\n\n"]})
    );
    assert_eq!(
        b["contents"],
        json!([{"role": "user", "parts": [
            {"text": "What is the capital of France?"},
            {"inlineData": {"mimeType": "image/png", "data": "iVBORw0KGgo="}}
        ]}])
    );
}

#[tokio::test]
async fn gemini_function_call_keeps_its_thought_signature() {
    let server = Replay::start(200, include_str!("providers/gemini_function_call.sse")).await;
    let p = provider(ProviderKind::Gemini, &server.base);
    let (result, _, _) = complete(&p, "gemini-2.5-flash", &tool_loop_request()).await;
    assert_eq!(result["stopReason"], "toolUse");
    let call = &result["content"];
    assert_eq!(call["type"], "tool_use");
    assert_eq!(call["name"], "get_weather");
    assert_eq!(call["input"], json!({"city": "Paris"}));
    assert_eq!(
        call["_meta"]["dev.switchboard/gemini-thought-signature"],
        "CiwBVKhc7nBQn2OrTS2GWzm6tEGyTZmLF1tXbMTlGXyQ7jHLN8ENJ/VmsSNk"
    );
    let b = server.only().body;
    assert_eq!(
        b["tools"],
        json!([{"functionDeclarations": [{"name": "get_weather", "description": "Current weather for a city",
            "parametersJsonSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}]}])
    );
    assert_eq!(
        b["toolConfig"],
        json!({"functionCallingConfig": {"mode": "AUTO"}})
    );
    assert_eq!(
        b["contents"][1],
        json!({"role": "model", "parts": [{"functionCall": {"id": "call_1", "name": "get_weather", "args": {"city": "Paris"}},
            "thoughtSignature": "c2lnbmF0dXJl"}]})
    );
    assert_eq!(
        b["contents"][2],
        json!({"role": "user", "parts": [{"functionResponse": {"id": "call_1", "name": "get_weather",
            "response": {"output": "18°C, sunny"}}}]})
    );
}

#[tokio::test]
async fn provider_errors_are_clear_and_never_echo_the_key() {
    let server = Replay::start(
        401,
        r#"{"error":{"message":"Incorrect API key provided: sk-test-****6789.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#,
    )
    .await;
    let p = provider(ProviderKind::Openai, &server.base);
    let err = p
        .complete("gpt-4o-mini", &full_request(), &mut |_: Streamed<'_>| {})
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Provider);
    assert!(err.message.contains("401"), "{}", err.message);
    assert!(
        err.message.contains("Incorrect API key provided"),
        "{}",
        err.message
    );
    assert!(!err.message.contains(KEY));

    let server = Replay::start(
        200,
        "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
    )
    .await;
    let p = provider(ProviderKind::Anthropic, &server.base);
    let err = p
        .complete("claude-sonnet-4-5", &full_request(), &mut |_: Streamed<
            '_,
        >| {})
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Provider);
    assert!(err.message.contains("Overloaded"), "{}", err.message);

    // Audio is refused up front for a provider that cannot take it, with no request sent.
    let server = Replay::start(200, include_str!("providers/anthropic_text.sse")).await;
    let p = provider(ProviderKind::Anthropic, &server.base);
    let audio = json!({"messages": [{"role": "user", "content": {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}}], "maxTokens": 10});
    let err = p
        .complete("claude-sonnet-4-5", &audio, &mut |_: Streamed<'_>| {})
        .await
        .unwrap_err();
    assert!(err.message.contains("audio"), "{}", err.message);
    assert!(server.seen.lock().unwrap().is_empty());
}

/// A redirect to another origin would carry the key in `x-api-key` (reqwest strips only
/// `Authorization`): the request stops at the redirect instead.
#[tokio::test]
async fn a_redirect_never_carries_the_key_to_another_origin() {
    let elsewhere = Replay::start(200, include_str!("providers/anthropic_text.sse")).await;
    let target = elsewhere.base.clone();
    let app = axum::Router::new().fallback(move |uri: Uri| {
        let to = format!("{target}{uri}");
        async move {
            Response::builder()
                .status(StatusCode::TEMPORARY_REDIRECT)
                .header("location", to)
                .body(Body::empty())
                .unwrap()
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });

    let p = provider(ProviderKind::Anthropic, &base);
    let err = p
        .complete("claude-sonnet-4-5", &full_request(), &mut |_: Streamed<
            '_,
        >| {})
        .await
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::Provider);
    assert!(err.message.contains("307"), "{}", err.message);
    assert!(elsewhere.seen.lock().unwrap().is_empty(), "the key left");
}

#[tokio::test]
async fn model_lists_come_from_the_provider() {
    let server = Replay::start(
        200,
        r#"{"object":"list","data":[{"id":"gpt-4o-mini","object":"model","created":1721172741,"owned_by":"system"},{"id":"gpt-4.1","object":"model","created":1744316542,"owned_by":"system"}]}"#,
    )
    .await;
    let p = provider(ProviderKind::Openai, &server.base);
    assert_eq!(p.models().await.unwrap(), ["gpt-4o-mini", "gpt-4.1"]);
    assert_eq!(server.only().path_and_query, "/models");

    let server = Replay::start(
        200,
        r#"{"data":[{"type":"model","id":"claude-sonnet-4-5-20250929","display_name":"Claude Sonnet 4.5","created_at":"2025-09-29T00:00:00Z"}],"has_more":false,"first_id":"claude-sonnet-4-5-20250929","last_id":"claude-sonnet-4-5-20250929"}"#,
    )
    .await;
    let p = provider(ProviderKind::Anthropic, &server.base);
    assert_eq!(p.models().await.unwrap(), ["claude-sonnet-4-5-20250929"]);

    let server = Replay::start(
        200,
        r#"{"models":[{"name":"models/gemini-2.5-flash","version":"001","displayName":"Gemini 2.5 Flash","supportedGenerationMethods":["generateContent","countTokens","createCachedContent","batchGenerateContent"]},{"name":"models/text-embedding-004","version":"004","displayName":"Text Embedding 004","supportedGenerationMethods":["embedContent"]}]}"#,
    )
    .await;
    let p = provider(ProviderKind::Gemini, &server.base);
    assert_eq!(p.models().await.unwrap(), ["gemini-2.5-flash"]);
}

/// A provider that accepts the request and trickles an SSE comment every 50 ms, for ever.
async fn trickling() -> String {
    let app = axum::Router::new().fallback(|| async {
        let stream = futures::stream::unfold((), |()| async {
            tokio::time::sleep(Duration::from_millis(50)).await;
            Some((
                Ok::<_, std::io::Error>(Bytes::from_static(b": still thinking\n")),
                (),
            ))
        });
        Response::builder()
            .header("content-type", "text/event-stream")
            .body(Body::from_stream(stream))
            .unwrap()
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    base
}

#[tokio::test]
async fn a_provider_that_never_finishes_is_cut_off_at_the_deadline() {
    let base = trickling().await;
    let p = provider(ProviderKind::Openai, &base).with_deadline(Duration::from_millis(500));
    let req = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5});
    let started = std::time::Instant::now();
    let e = p
        .complete("m", &req, &mut |_: Streamed<'_>| {})
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::Provider);
    assert!(e.message.contains("no complete answer"), "{}", e.message);
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn a_tool_call_index_past_the_bound_is_an_error_not_an_allocation() {
    let base = Replay::start(
        200,
        "data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":4000000000,\"id\":\"x\",\"function\":{\"name\":\"f\",\"arguments\":\"{}\"}}]}}]}\n\ndata: [DONE]\n\n",
    )
    .await;
    let p = provider(ProviderKind::Openai, &base.base);
    let req = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5});
    let e = p
        .complete("m", &req, &mut |_: Streamed<'_>| {})
        .await
        .unwrap_err();
    assert!(e.message.contains("tool call index"), "{}", e.message);
}

/// The provider's stream breaks mid-answer (the connection drops before the last chunk): what
/// arrived is kept as the answer, marked cut with the reason, for the person to review.
#[tokio::test]
async fn a_stream_cut_mid_answer_keeps_what_arrived_and_says_so() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut buf = vec![0u8; 64 * 1024];
        let _ = socket.read(&mut buf).await;
        let event = |text: &str| {
            let data = json!({"choices": [{"index": 0, "delta": {"content": text}}]});
            let line = format!("data: {data}\n\n");
            format!("{:x}\r\n{line}\r\n", line.len())
        };
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
        let body = format!("{head}{}{}", event("The capital "), event("of Fra"));
        socket.write_all(body.as_bytes()).await.unwrap();
        socket.flush().await.unwrap();
        // Gone before the last chunk: no finish reason, no [DONE], no terminating chunk.
    });
    let p = provider(ProviderKind::Openai, &base);
    let mut pieces = Vec::new();
    let c = p
        .complete("gpt-test", &full_request(), &mut |s: Streamed<'_>| {
            if let Streamed::Text(t) = s {
                pieces.push(t.to_owned());
            }
        })
        .await
        .expect("what arrived is an answer, not a lost one");
    assert_eq!(pieces.concat(), "The capital of Fra");
    assert_eq!(c.result["content"]["text"], "The capital of Fra");
    let why = c.cut.expect("marked cut");
    assert!(!why.is_empty() && !why.contains("::"), "{why}");
}
