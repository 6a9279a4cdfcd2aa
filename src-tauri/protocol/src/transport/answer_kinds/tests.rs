use serde_json::{Value, json};

use super::*;

fn sent(kinds: &mut AnswerKinds, message: Value) {
    let message: TxJsonRpcMessage<RoleClient> = serde_json::from_value(message).unwrap();
    kinds.sent(&message);
}

fn request(kinds: &mut AnswerKinds, id: i64, method: &str, params: Value) {
    sent(
        kinds,
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
    );
}

fn answer(id: i64, result: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "result": result})).unwrap()
}

/// What rmcp's own reading makes of `text`.
fn rmcps(text: &[u8]) -> RxJsonRpcMessage<RoleClient> {
    serde_json::from_slice(text).unwrap()
}

#[test]
fn each_kind_reads_as_rmcp_reads_it() {
    let cases = [
        (
            "tools/call",
            json!({"name": "echo"}),
            json!({"content": [{"type": "text", "text": "hi"}], "isError": false, "_meta": {"a": 1}}),
        ),
        (
            "tools/call",
            json!({"name": "echo"}),
            json!({"structuredContent": {"n": 1}}),
        ),
        (
            "tools/list",
            json!({}),
            json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}], "nextCursor": "2"}),
        ),
        (
            "resources/list",
            json!({}),
            json!({"resources": [{"uri": "file:///a", "name": "a"}]}),
        ),
        (
            "resources/templates/list",
            json!({}),
            json!({"resourceTemplates": [{"uriTemplate": "file:///{p}", "name": "p"}]}),
        ),
        (
            "prompts/list",
            json!({}),
            json!({"prompts": [{"name": "p"}], "ttlMs": 5}),
        ),
    ];
    for (id, (method, params, result)) in (1..).zip(cases) {
        let mut kinds = AnswerKinds::default();
        request(&mut kinds, id, method, params);
        let text = answer(id, result);
        let read = kinds.read(&text);
        // rmcp's types have no `==`; their Debug form names every variant and field.
        let expected = format!("{:?}", rmcps(&text));
        assert_eq!(read.map(|m| format!("{m:?}")), Some(expected), "{method}");
        assert!(
            kinds.pending.is_empty(),
            "{method}: the answer ends the wait"
        );
    }
}

#[test]
fn an_answer_of_another_kind_is_left_to_rmcp() {
    let mut kinds = AnswerKinds::default();
    request(&mut kinds, 1, "tools/call", json!({"name": "slow"}));
    request(&mut kinds, 2, "tools/call", json!({"name": "asks"}));
    request(&mut kinds, 3, "tools/list", json!({}));
    let task = answer(1, json!({"task": {"taskId": "t1", "status": "working"}}));
    let input = answer(
        2,
        json!({"resultType": "input_required", "inputRequests": {}}),
    );
    let empty = answer(3, json!({}));
    for text in [task, input, empty] {
        assert!(
            kinds.read(&text).is_none(),
            "{}",
            String::from_utf8_lossy(&text)
        );
    }
}

#[test]
fn only_a_pending_requests_answer_is_read() {
    let mut kinds = AnswerKinds::default();
    let text = answer(7, json!({"content": []}));
    assert!(kinds.read(&text).is_none(), "nothing asked");
    request(&mut kinds, 7, "tools/call", json!({"name": "echo"}));
    sent(
        &mut kinds,
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}),
    );
    assert!(kinds.read(&text).is_none(), "given up");
    request(&mut kinds, 8, "tools/call", json!({"name": "echo"}));
    assert!(kinds.read(&text).is_none(), "another request's id");
    request(&mut kinds, 9, "ping", json!({}));
    let pong = answer(9, json!({}));
    assert!(kinds.read(&pong).is_none(), "a kind not read here");
}

#[test]
fn a_message_that_is_more_than_a_response_is_left_to_rmcp() {
    let mut kinds = AnswerKinds::default();
    request(&mut kinds, 1, "tools/call", json!({"name": "echo"}));
    let both = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": []}, "error": {"code": 1, "message": "x"}});
    let old = json!({"jsonrpc": "1.0", "id": 1, "result": {"content": []}});
    let notice = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": {"result": 1}}});
    for message in [both, old, notice] {
        let text = serde_json::to_vec(&message).unwrap();
        assert!(kinds.read(&text).is_none(), "{message}");
    }
}

#[test]
fn requests_never_answered_do_not_grow_it_without_end() {
    let mut kinds = AnswerKinds::default();
    for id in 0..(AnswerKinds::MAX_PENDING as i64 + 100) {
        request(&mut kinds, id, "tools/call", json!({"name": "echo"}));
    }
    assert_eq!(kinds.pending.len(), AnswerKinds::MAX_PENDING);
}

#[test]
fn an_answer_read_the_other_way_ends_the_wait_too() {
    let mut kinds = AnswerKinds::default();
    request(&mut kinds, 1, "tools/call", json!({"name": "fails"}));
    request(&mut kinds, 2, "tools/call", json!({"name": "echo"}));
    let error = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "no"}});
    // An id sent back as a string, which rmcp takes for the number.
    let as_string = json!({"jsonrpc": "2.0", "id": "2", "result": {"content": []}});
    for message in [error, as_string] {
        let message: RxJsonRpcMessage<RoleClient> = serde_json::from_value(message).unwrap();
        kinds.settled(&message);
    }
    assert!(kinds.pending.is_empty(), "{:?}", kinds.pending);
}
