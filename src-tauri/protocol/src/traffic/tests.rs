use super::*;

pub(super) fn request(id: u64, method: &str) -> Vec<u8> {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{{}}}}"#).into_bytes()
}

pub(super) fn response(id: u64, text: &str) -> Vec<u8> {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{{"text":"{text}"}}}}"#).into_bytes()
}

fn everything(traffic: &Traffic) -> Vec<TrafficEntry> {
    traffic.query_all(&TrafficQuery {
        limit: 100,
        ..TrafficQuery::default()
    })
}

/// Tells `ring` a server's secrets (an env value, a bearer token), then records three messages
/// that carry them: a request, its answer, and an HTTP exchange's headers.
pub(super) fn record_secrets(ring: &TrafficRing) {
    ring.hide(["env-secret-value-1".to_owned()]);
    ring.hide_also("bearer-token-abcdef");
    ring.record(Direction::Out, &request(1, "tools/call"));
    ring.record(
        Direction::In,
        &response(1, "env-secret-value-1 and bearer-token-abcdef"),
    );
    ring.record_http(
        Direction::Out,
        HttpExchange {
            verb: "POST".into(),
            status: None,
            headers: vec![
                HttpHeader {
                    name: "Authorization".into(),
                    value: "Bearer bearer-token-abcdef".into(),
                },
                HttpHeader {
                    name: "X-Tenant".into(),
                    value: "env-secret-value-1".into(),
                },
            ],
            error: None,
        },
    );
}

#[test]
fn a_secret_never_reaches_the_ring_an_export_or_a_trace() {
    let dir = tempfile::tempdir().unwrap();
    let trace_path = dir.path().join("trace.jsonl");
    let (tap, file) = trace::to_file(&trace_path).unwrap();
    let traffic = Traffic::new(TrafficLimits::default());
    traffic.tap(tap);
    record_secrets(&traffic.ring("vault"));
    let entries = everything(&traffic);
    let seqs: Vec<u64> = entries.iter().map(|e| e.seq).collect();
    let shown = [
        serde_json::to_string(&entries).unwrap(),
        serde_json::to_string(&traffic.messages(&seqs)).unwrap(),
        traffic.export(&seqs).join("\n"),
    ];
    let (lines, dropped) = file.finish().unwrap();
    assert_eq!((lines, dropped), (3, 0));
    let trace = std::fs::read_to_string(&trace_path).unwrap();
    for text in shown.iter().chain([&trace]) {
        assert!(!text.contains("env-secret-value-1"), "{text}");
        assert!(!text.contains("bearer-token-abcdef"), "{text}");
        assert!(text.contains("[redacted]"), "{text}");
    }
}

#[test]
fn a_trace_pairs_each_response_with_a_request_of_its_own_server() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("trace.jsonl");
    let (tap, file) = trace::to_file(&path).unwrap();
    let traffic = Traffic::new(TrafficLimits::default());
    traffic.tap(tap);
    let (a, b) = (traffic.ring("alpha"), traffic.ring("beta"));
    a.record(Direction::Out, &request(1, "tools/call"));
    b.record(Direction::Out, &request(1, "resources/read"));
    b.record(Direction::In, &response(1, "beta"));
    a.record(Direction::In, &response(1, "alpha"));
    assert_eq!(file.finish().unwrap(), (4, 0));
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let answered = |i: usize| (lines[i]["method"].clone(), lines[i]["pairedSeq"].clone());
    assert_eq!(
        answered(2),
        ("resources/read".into(), lines[1]["seq"].clone())
    );
    assert_eq!(answered(3), ("tools/call".into(), lines[0]["seq"].clone()));
}

#[test]
fn every_response_finds_its_request_under_concurrency_and_out_of_order() {
    let traffic = Traffic::new(TrafficLimits::default());
    let ring = traffic.ring("s");
    std::thread::scope(|scope| {
        for worker in 0..4u64 {
            let ring = ring.clone();
            scope.spawn(move || {
                for i in 0..50 {
                    ring.record(Direction::Out, &request(worker * 100 + i, "tools/call"));
                }
            });
        }
    });
    // The server answers in reverse, and asks something of its own with a colliding id.
    ring.record(Direction::In, &request(7, "sampling/createMessage"));
    for id in (0..400u64).rev().filter(|id| id % 100 < 50) {
        ring.record(Direction::In, &response(id, "ok"));
    }
    ring.record(Direction::Out, &response(7, "sampled"));
    let entries = everything(&traffic);
    let by_seq: HashMap<u64, &TrafficEntry> = entries.iter().map(|e| (e.seq, e)).collect();
    let responses: Vec<_> = entries
        .iter()
        .filter(|e| e.kind == MessageKind::Response)
        .collect();
    assert_eq!(responses.len(), 201);
    for r in responses {
        let request = by_seq[&r.paired_seq.expect("paired")];
        assert_eq!(request.kind, MessageKind::Request);
        assert_eq!(request.id, r.id);
        assert_ne!(request.direction, r.direction);
        assert_eq!(request.paired_seq, Some(r.seq));
        assert_eq!(r.method, request.method);
        assert!(r.latency_ms.unwrap() >= 0.0);
    }
    let sampled = entries
        .iter()
        .find(|e| e.direction == Direction::Out && e.kind == MessageKind::Response);
    assert_eq!(
        sampled.unwrap().method.as_deref(),
        Some("sampling/createMessage")
    );
}

#[test]
fn a_flood_stays_inside_the_bounds() {
    let limits = TrafficLimits {
        max_messages: 1_000,
        max_bytes: 1 << 20,
        max_message_bytes: 16 << 10,
    };
    let traffic = Traffic::new(limits);
    let ring = traffic.ring("flood");
    let big = vec![b'x'; 4 << 20];
    for i in 0..50_000u64 {
        if i % 1_000 == 0 {
            ring.record(Direction::In, &big);
        } else {
            ring.record(Direction::In, &response(i, "tick"));
        }
    }
    let Some(shared) = &ring.0 else { panic!("on") };
    let kept = shared.ring.lock().unwrap();
    assert!(kept.records.len() <= 1_000);
    assert!(kept.bytes <= 1 << 20, "{} bytes", kept.bytes);
    assert_eq!(kept.dropped + kept.records.len() as u64, 50_000);
    // Room for the records a full ring holds, made once: not doubled past it.
    assert_eq!(kept.records.capacity(), 1_000);
    drop(kept);
    // The truncated message says how big it was.
    ring.record(Direction::In, &big);
    let page = traffic.query(&TrafficQuery {
        after: 50_000,
        limit: 10,
        ..TrafficQuery::default()
    });
    let last = page.entries.last().unwrap();
    assert!(last.truncated);
    assert_eq!(last.size, 4 << 20);
    assert_eq!(traffic.messages(&[last.seq])[0].body.len(), 16 << 10);

    // Smaller bounds give the room back.
    traffic.set_limits(TrafficLimits {
        max_messages: 100,
        ..limits
    });
    let kept = shared.ring.lock().unwrap();
    assert_eq!(kept.records.len(), 100);
    assert_eq!(kept.records.capacity(), 100);
}

/// On 2026-07-28 most of a small request is its `_meta`, the same every time: the ring holds it
/// once, and every message still reads back, is described and is found as sent.
#[test]
fn a_rings_requests_hold_their_repeated_meta_once() {
    let traffic = Traffic::new(TrafficLimits::default());
    let ring = traffic.ring("modern");
    let sent: Vec<Vec<u8>> = (1..=1_000)
        .map(|id| body::tests::call_2026(id, &format!("message {id}")))
        .collect();
    let mut whole = 0;
    for (id, bytes) in (1..).zip(&sent) {
        let answer = response(id, "ok");
        ring.record(Direction::Out, bytes);
        ring.record(Direction::In, &answer);
        whole += bytes.len() + answer.len() + 2 * std::mem::size_of::<Record>();
    }
    let Some(shared) = &ring.0 else { panic!("on") };
    let held = shared.ring.lock().unwrap().bytes;
    // The client's meta is over 400 bytes: each request holds it no more.
    assert!(
        held + 1_000 * 400 < whole,
        "{held} bytes held, {whole} whole"
    );

    let entries = traffic.query_all(&TrafficQuery {
        methods: vec!["tools/call".into()],
        text: "message 999".into(),
        limit: 100,
        ..TrafficQuery::default()
    });
    assert_eq!(entries.len(), 1);
    assert!(entries[0].paired_seq.is_some(), "paired with its response");
    assert!(entries[0].preview.contains("protocolVersion"));
    let seqs: Vec<u64> = everything_of(&traffic).iter().map(|e| e.seq).collect();
    let bodies: Vec<Vec<u8>> = traffic
        .messages(&seqs)
        .into_iter()
        .filter(|m| m.body.contains("tools/call"))
        .map(|m| m.body.into_bytes())
        .collect();
    assert_eq!(bodies, sent);
}

fn everything_of(traffic: &Traffic) -> Vec<TrafficEntry> {
    traffic.query_all(&TrafficQuery {
        limit: 5_000,
        ..TrafficQuery::default()
    })
}

#[test]
fn queries_filter_and_page_across_servers() {
    let traffic = Traffic::new(TrafficLimits::default());
    let (a, b) = (traffic.ring("a"), traffic.ring("b"));
    a.record(Direction::Out, &request(1, "tools/list"));
    b.record(Direction::Out, &request(1, "tools/call"));
    b.record(
        Direction::In,
        br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"No such Tool"}}"#,
    );
    a.record(Direction::In, &response(1, "listed"));
    let only =
        |q: TrafficQuery| -> Vec<u64> { traffic.query(&q).entries.iter().map(|e| e.seq).collect() };
    assert_eq!(
        only(TrafficQuery {
            limit: 10,
            ..Default::default()
        }),
        [1, 2, 3, 4]
    );
    let errors = TrafficQuery {
        limit: 10,
        errors_only: true,
        ..Default::default()
    };
    assert_eq!(only(errors), [3]);
    let text = TrafficQuery {
        limit: 10,
        text: "such tool".into(),
        ..Default::default()
    };
    assert_eq!(only(text), [3]);
    let method = TrafficQuery {
        limit: 10,
        methods: vec!["tools/list".into()],
        ..Default::default()
    };
    assert_eq!(only(method), [1, 4]);
    let server_b_in = TrafficQuery {
        limit: 10,
        servers: vec!["b".into()],
        direction: Some(Direction::In),
        ..Default::default()
    };
    assert_eq!(only(server_b_in), [3]);
    let first = traffic.query(&TrafficQuery {
        limit: 3,
        ..Default::default()
    });
    assert_eq!(first.last, 3);
    let rest = traffic.query(&TrafficQuery {
        limit: 3,
        after: first.last,
        ..Default::default()
    });
    assert_eq!(rest.entries.iter().map(|e| e.seq).collect::<Vec<_>>(), [4]);
    assert_eq!(rest.methods, ["tools/call", "tools/list"]);
}

#[test]
fn an_off_ring_records_nothing() {
    let ring = TrafficRing::off();
    ring.record(Direction::Out, &request(1, "ping"));
    assert!(!ring.is_on());
}
