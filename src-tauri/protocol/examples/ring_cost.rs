//! What the traffic ring's own work costs a message (not a test: it prints nanoseconds). Records
//! echo requests and their responses into a ring kept as the app keeps it (5,000 messages, so it
//! is full and drops its oldest for most of the run), from one thread, three rounds.
//! `ring_cost [2026]`: with `2026`, each request carries the `_meta` a 2026-07-28 client sends.
use std::time::Instant;

use switchboard_protocol::traffic::{Direction, Traffic, TrafficLimits};

/// The `_meta` Switchboard's requests carry on 2026-07-28 (the run the ring keeps once).
const META: &str = r#","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"switchboard","version":"0.1.0"},"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{"form":{},"url":{}}}}"#;

fn main() {
    let meta = match std::env::args().nth(1).as_deref() {
        Some("2026") => META,
        _ => "",
    };
    let requests: Vec<String> = (0..1000)
        .map(|id| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hello"}}{meta}}}}}"#
            )
        })
        .collect();
    let responses: Vec<String> = (0..1000)
        .map(|id| {
            format!(
                r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"hello"}}],"isError":false}}}}"#
            )
        })
        .collect();
    let traffic = Traffic::new(TrafficLimits::default());
    let ring = traffic.ring("bench");
    let calls = 200_000;
    for round in 1..=3 {
        let start = Instant::now();
        for i in 0..calls {
            ring.record(Direction::Out, requests[i % 1000].as_bytes());
            ring.record(Direction::In, responses[i % 1000].as_bytes());
        }
        let per_message = start.elapsed().as_nanos() as f64 / (2 * calls) as f64;
        println!(
            "round {round}: {per_message:.0} ns a message ({} bytes a request, {} a response)",
            requests[0].len(),
            responses[0].len()
        );
    }
}
