//! A loopback LLM provider for tests: answers every HTTP request with one recorded streaming
//! response (a `.sse` file from `src-tauri/core/tests/providers/`) and keeps what it received.
//! Shared by the CLI tests and the end-to-end tests (`#[path]`), so both replay the same bytes.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use serde_json::Value;

/// A loopback LLM provider: answers every HTTP request with one recorded streaming response and
/// keeps the JSON bodies it received.
pub struct Provider {
    /// `http://127.0.0.1:PORT`.
    pub base: String,
    bodies: Arc<Mutex<Vec<(String, Value)>>>,
}

impl Provider {
    /// Starts serving `sse` to every request, an event every 20 ms.
    #[allow(dead_code)] // each test crate uses one of the two
    pub fn replay(sse: &'static str) -> Self {
        Self::replay_every(sse, std::time::Duration::from_millis(20))
    }

    /// Starts serving `sse` to every request, an event every `pause`.
    pub fn replay_every(sse: &'static str, pause: std::time::Duration) -> Self {
        Self::replay_in_turn(vec![sse], pause)
    }

    /// Serves `responses` one per request, in order (the last one again after that).
    pub fn replay_in_turn(responses: Vec<&'static str>, pause: std::time::Duration) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let bodies = Arc::new(Mutex::new(Vec::new()));
        let log = bodies.clone();
        std::thread::spawn(move || {
            let mut served = 0;
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut head = String::new();
                let mut length = 0;
                loop {
                    let mut line = String::new();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
                        break;
                    }
                    let lower = line.to_ascii_lowercase();
                    if let Some(v) = lower.strip_prefix("content-length:") {
                        length = v.trim().parse().unwrap_or(0);
                    }
                    head.push_str(&line);
                }
                let mut body = vec![0; length];
                let _ = reader.read_exact(&mut body);
                let body = serde_json::from_slice(&body).unwrap_or(Value::Null);
                log.lock().unwrap().push((head, body));
                let sse = responses[served.min(responses.len() - 1)];
                served += 1;
                let _ = stream.write_all(
                    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n",
                );
                // Event by event, a little apart, as a model streams.
                for event in sse.split_inclusive("\n\n") {
                    if stream.write_all(event.as_bytes()).is_err() {
                        break;
                    }
                    let _ = stream.flush();
                    std::thread::sleep(pause);
                }
            }
        });
        Self { base, bodies }
    }

    /// `(request head, JSON body)` of every request so far.
    #[allow(dead_code)]
    pub fn requests(&self) -> Vec<(String, Value)> {
        self.bodies.lock().unwrap().clone()
    }
}
