//! Reading a server's answer as the kind of result its request asked for. rmcp reads every
//! response's `result` as `ServerResult`, an untagged union tried kind by kind: a `tools/call`
//! answer is tried as fifteen other kinds first, and each miss builds a formatted error (about an
//! eighth of a call's client time, BENCHMARKS.md). The transport sees every request it sends, so
//! it keeps the kind each pending request expects and reads the answer as that kind. An answer
//! that is not one (an `input_required` or task result, anything odd) is left to rmcp's reading.

use std::collections::HashMap;
use std::sync::OnceLock;

use rmcp::RoleClient;
use rmcp::model::{
    ClientNotification, ClientRequest, JsonRpcMessage, JsonRpcResponse, JsonRpcVersion2_0,
    NumberOrString, RequestId, ServerResult,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use serde::Deserialize;
use serde_json::value::RawValue;

/// The kinds of answer read directly: the calls and listings a session repeats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    CallTool,
    ListTools,
    ListResources,
    ListResourceTemplates,
    ListPrompts,
}

impl Kind {
    fn of(request: &ClientRequest) -> Option<Self> {
        Some(match request {
            ClientRequest::CallToolRequest(_) => Self::CallTool,
            ClientRequest::ListToolsRequest(_) => Self::ListTools,
            ClientRequest::ListResourcesRequest(_) => Self::ListResources,
            ClientRequest::ListResourceTemplatesRequest(_) => Self::ListResourceTemplates,
            ClientRequest::ListPromptsRequest(_) => Self::ListPrompts,
            _ => return None,
        })
    }

    /// `raw` as this kind, if it is one.
    fn read(self, raw: &str) -> Option<ServerResult> {
        let read = match self {
            Self::CallTool => serde_json::from_str(raw).map(ServerResult::CallToolResult),
            Self::ListTools => serde_json::from_str(raw).map(ServerResult::ListToolsResult),
            Self::ListResources => serde_json::from_str(raw).map(ServerResult::ListResourcesResult),
            Self::ListResourceTemplates => {
                serde_json::from_str(raw).map(ServerResult::ListResourceTemplatesResult)
            }
            Self::ListPrompts => serde_json::from_str(raw).map(ServerResult::ListPromptsResult),
        };
        read.ok()
    }
}

/// A response and nothing else: any other member (an `error` beside the `result`) leaves the
/// message to rmcp's reading, which refuses it as it always did.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Response<'a> {
    /// "2.0", as its type checks.
    #[serde(rename = "jsonrpc")]
    _jsonrpc: JsonRpcVersion2_0,
    id: RequestId,
    #[serde(borrow)]
    result: &'a RawValue,
}

/// The kind each pending request of a connection expects, by id.
#[derive(Debug, Default)]
pub(super) struct AnswerKinds {
    pending: HashMap<RequestId, Kind>,
}

impl AnswerKinds {
    /// Past this many pending requests, more are left to rmcp's reading: requests that are never
    /// answered must not make this grow without end.
    const MAX_PENDING: usize = 4096;

    /// Notes what `message`, about to be sent, asks for or gives up.
    pub(super) fn sent(&mut self, message: &TxJsonRpcMessage<RoleClient>) {
        match message {
            JsonRpcMessage::Request(r) => {
                if let Some(kind) = Kind::of(&r.request)
                    && self.pending.len() < Self::MAX_PENDING
                {
                    self.pending.insert(r.id.clone(), kind);
                }
            }
            JsonRpcMessage::Notification(n) => {
                if let ClientNotification::CancelledNotification(c) = &n.notification
                    && let Some(id) = &c.params.request_id
                {
                    self.pending.remove(id);
                }
            }
            _ => {}
        }
    }

    /// Forgets the request `message` answers, read the other way (an error, a batch, a result
    /// of another kind), and an id the server sent back as a string the way rmcp takes it.
    pub(super) fn settled(&mut self, message: &RxJsonRpcMessage<RoleClient>) {
        let id = match message {
            JsonRpcMessage::Response(r) => &r.id,
            JsonRpcMessage::Error(e) => match &e.id {
                Some(id) => id,
                None => return,
            },
            _ => return,
        };
        if self.pending.remove(id).is_none()
            && let NumberOrString::String(text) = id
            && let Ok(n) = text.parse::<i64>()
        {
            self.pending.remove(&NumberOrString::Number(n));
        }
    }

    /// `text` read as the answer to a pending request, when it is one of the kind expected.
    pub(super) fn read(&mut self, text: &[u8]) -> Option<RxJsonRpcMessage<RoleClient>> {
        static RESULT: OnceLock<memchr::memmem::Finder<'static>> = OnceLock::new();
        let result = RESULT.get_or_init(|| memchr::memmem::Finder::new(br#""result""#));
        if self.pending.is_empty() || result.find(text).is_none() {
            return None;
        }
        let response: Response<'_> = serde_json::from_slice(text).ok()?;
        let kind = self.pending.remove(&response.id)?;
        let result = kind.read(response.result.get())?;
        Some(JsonRpcMessage::Response(JsonRpcResponse {
            jsonrpc: JsonRpcVersion2_0,
            id: response.id,
            result,
        }))
    }
}

#[cfg(test)]
mod tests;
