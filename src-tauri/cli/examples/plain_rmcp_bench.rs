//! The baseline for `switchboard-cli bench`: the same modes through a plain rmcp client (rmcp's
//! own child-process transport, no Switchboard code, the same protocol negotiation) on the runtime
//! flavour asked for
//! (`current` thread or `multi` thread), printing the same JSON line with `"client": "rmcp"`.
//! `scripts/bench.sh` runs it in both flavours beside Switchboard and prints the ratios.
//!
//! Usage: plain_rmcp_bench MODE N CONCURRENCY WARMUP BLOB_BYTES FLAVOR -- SERVER_CMD [ARG…]

use std::time::Instant;

use futures::StreamExt;
use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequestParams, ClientConfig, ClientRequest, PaginatedRequestParams, PingRequest,
    ProtocolVersion,
};
use rmcp::service::{ClientLifecycleMode, serve_client_with_lifecycle};
use rmcp::service::{Peer, RoleClient};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};

type BoxError = Box<dyn std::error::Error + Send + Sync>;

fn call(name: &str, args: Value) -> Result<CallToolRequestParams, BoxError> {
    Ok(serde_json::from_value(
        json!({"name": name, "arguments": args}),
    )?)
}

async fn echo(peer: &Peer<RoleClient>) -> Result<u64, BoxError> {
    let r = peer
        .call_tool(call("echo", json!({"text": "hello"}))?)
        .await?;
    let v = serde_json::to_value(&r.content)?;
    let text = v
        .pointer("/0/text")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !text.contains("hello") {
        return Err(format!("echo returned {text:?}").into());
    }
    Ok(text.len() as u64)
}

struct Tally {
    lat: Vec<u64>,
    bytes: u64,
    items: u64,
    pages: u64,
}

/// Pages through every resource once.
async fn list_all(peer: &Peer<RoleClient>, t: &mut Tally) -> Result<(), BoxError> {
    let mut cursor: Option<String> = None;
    loop {
        let params: Option<PaginatedRequestParams> = match &cursor {
            Some(c) => Some(serde_json::from_value(json!({"cursor": c}))?),
            None => None,
        };
        let page = peer.list_resources(params).await?;
        t.items += page.resources.len() as u64;
        t.pages += 1;
        match page.next_cursor {
            Some(c) if !c.is_empty() => cursor = Some(c),
            _ => return Ok(()),
        }
    }
}

async fn run(
    peer: &Peer<RoleClient>,
    mode: &str,
    n: usize,
    conc: usize,
    blob: u64,
    t: &mut Tally,
) -> Result<(), BoxError> {
    match mode {
        "ping" | "seq" => {
            for _ in 0..n {
                let s = Instant::now();
                if mode == "ping" {
                    peer.send_request(ClientRequest::PingRequest(PingRequest::default()))
                        .await?;
                } else {
                    t.bytes += echo(peer).await?;
                }
                t.lat.push(s.elapsed().as_micros() as u64);
            }
        }
        "conc" => {
            let results: Vec<Result<(u64, u64), BoxError>> = futures::stream::iter(0..n)
                .map(|_| async {
                    let s = Instant::now();
                    let b = echo(peer).await?;
                    Ok((s.elapsed().as_micros() as u64, b))
                })
                .buffer_unordered(conc.max(1))
                .collect()
                .await;
            for r in results {
                let (us, b) = r?;
                t.lat.push(us);
                t.bytes += b;
            }
        }
        "blob" => {
            for _ in 0..n {
                let s = Instant::now();
                let r = peer
                    .call_tool(call("blob", json!({"bytes": blob}))?)
                    .await?;
                let v = serde_json::to_value(&r.content)?;
                let len = v
                    .pointer("/0/text")
                    .and_then(Value::as_str)
                    .map_or(0, str::len) as u64;
                if len != blob {
                    return Err(format!("blob returned {len} bytes").into());
                }
                t.lat.push(s.elapsed().as_micros() as u64);
                t.bytes += len;
            }
        }
        "list" => {
            for _ in 0..n {
                let s = Instant::now();
                list_all(peer, t).await?;
                t.lat.push(s.elapsed().as_micros() as u64);
            }
        }
        other => return Err(format!("unknown mode {other}").into()),
    }
    Ok(())
}

/// CPU time of this process's threads so far, in nanoseconds, as `switchboard-cli bench` counts
/// it (`bench::cpu_time_ns`).
fn cpu_time_ns() -> u64 {
    std::fs::read_dir("/proc/self/task")
        .map(|tasks| {
            tasks
                .flatten()
                .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
                .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
                .sum()
        })
        .unwrap_or(0)
}

fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

fn main() -> Result<(), BoxError> {
    let args: Vec<String> = std::env::args().collect();
    let sep = args
        .iter()
        .position(|a| a == "--")
        .ok_or("missing -- SERVER_CMD")?;
    let [mode, n, conc, warmup, blob, flavor] = &args[1..sep] else {
        return Err(
            "usage: plain_rmcp_bench MODE N CONCURRENCY WARMUP BLOB_BYTES FLAVOR -- CMD…".into(),
        );
    };
    let runtime = match flavor.as_str() {
        "current" => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?,
        "multi" => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?,
        other => return Err(format!("unknown runtime flavour {other}").into()),
    };
    runtime.block_on(bench(mode, n, conc, warmup, blob, flavor, &args[sep + 1..]))
}

async fn bench(
    mode: &str,
    n: &str,
    conc: &str,
    warmup: &str,
    blob: &str,
    flavor: &str,
    server: &[String],
) -> Result<(), BoxError> {
    let (n, conc, warmup, blob): (usize, usize, usize, u64) =
        (n.parse()?, conc.parse()?, warmup.parse()?, blob.parse()?);
    let (program, rest) = server.split_first().ok_or("missing SERVER_CMD")?;
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(rest);
    // By default it negotiates as Switchboard does and declares what Switchboard declares: on
    // 2026-07-28 every request carries the client's capabilities, so a client declaring none
    // sends (and has parsed) less. `RMCP_BASELINE=defaults` is rmcp as it comes instead:
    // `().serve()`, the initialize handshake, no capabilities.
    let start = Instant::now();
    let defaults = std::env::var("RMCP_BASELINE").as_deref() == Ok("defaults");
    // The server's stderr is not the bench's output: a 2026-07-28 rmcp server that was only
    // pinged (the `ping` mode) reports there, as it exits, that no initialize came.
    let (transport, _) = TokioChildProcess::builder(cmd)
        .stderr(std::process::Stdio::null())
        .spawn()?;
    let client = if defaults {
        // What `().serve(…)` declares, in the type the other branch has.
        ClientConfig::default().serve(transport).await?
    } else {
        let lifecycle = ClientLifecycleMode::Auto {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            legacy_version: Some(ProtocolVersion::V_2025_11_25),
        };
        let declared = switchboard_protocol::handler::client_config();
        serve_client_with_lifecycle(declared, transport, lifecycle).await?
    };
    let connect_ms = start.elapsed().as_secs_f64() * 1000.0;
    let peer = client.peer().clone();
    let protocol = client
        .peer_info()
        .map(|i| i.protocol_version.to_string())
        .unwrap_or_default();
    let mut warm = Tally {
        lat: vec![],
        bytes: 0,
        items: 0,
        pages: 0,
    };
    run(&peer, mode, warmup, conc, blob, &mut warm).await?;
    let mut t = Tally {
        lat: vec![],
        bytes: 0,
        items: 0,
        pages: 0,
    };
    let (s, cpu0) = (Instant::now(), cpu_time_ns());
    let outcome = run(&peer, mode, n, conc, blob, &mut t).await;
    let secs = s.elapsed().as_secs_f64();
    let cpu_ns = cpu_time_ns().saturating_sub(cpu0);
    t.lat.sort_unstable();
    let pct = |p: f64| {
        if t.lat.is_empty() {
            0
        } else {
            t.lat[((t.lat.len() as f64 - 1.0) * p).round() as usize]
        }
    };
    println!(
        "{}",
        json!({
            "client": format!("rmcp-{flavor}{}", if defaults { "-defaults" } else { "" }), "protocol": protocol, "mode": mode, "n": n,
            "concurrency": if mode == "conc" { conc } else { 1 },
            "connect_ms": (connect_ms * 1000.0).round() / 1000.0,
            "elapsed_s": (secs * 1000.0).round() / 1000.0,
            "ops_per_s": if secs > 0.0 { ((t.lat.len() as f64 / secs) * 1000.0).round() / 1000.0 } else { 0.0 },
            "p50_us": pct(0.5), "p99_us": pct(0.99),
            "cpu_us_per_op": if t.lat.is_empty() { 0.0 } else { (cpu_ns as f64 / t.lat.len() as f64).round() / 1000.0 },
            "bytes": t.bytes, "items": t.items, "pages": t.pages,
            "peak_rss_kb": peak_rss_kb(),
            "ok": outcome.is_ok(),
            "error": outcome.err().map(|e| e.to_string()),
        })
    );
    client.cancel().await?;
    Ok(())
}
