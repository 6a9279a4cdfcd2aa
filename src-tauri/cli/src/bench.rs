//! `switchboard-cli bench`: times the host's own client path (the same `connection::connect` and
//! `Connection` the app uses) against a server it spawns, and prints one JSON line of figures.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use serde_json::json;
use switchboard_core::app::Connection;
use switchboard_core::app::{SandboxSetting, ServerConfig, Traffic, TrafficLimits};
use switchboard_core::{Error, ErrorCode, Result};

use crate::{Session, print_line};

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    Ping,
    Seq,
    Conc,
    Blob,
    List,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Ping => "ping",
            Mode::Seq => "seq",
            Mode::Conc => "conc",
            Mode::Blob => "blob",
            Mode::List => "list",
        }
    }
}

#[derive(Args)]
pub struct BenchArgs {
    #[arg(long, value_enum)]
    mode: Mode,
    #[arg(long, default_value_t = 1000)]
    n: usize,
    #[arg(long, default_value_t = 16)]
    concurrency: usize,
    #[arg(long, default_value_t = 10)]
    warmup: usize,
    #[arg(long, default_value_t = 1 << 20)]
    blob_bytes: u64,
    #[arg(long)]
    max_message_bytes: Option<u64>,
    /// Whether the server runs in the OS sandbox, as every new local server does.
    #[arg(long, value_enum, value_name = "on|off", default_value = "on")]
    sandbox: crate::Switch,
    /// Whether the traffic ring records, as it does in the app.
    #[arg(long, value_enum, value_name = "on|off", default_value = "on")]
    traffic: crate::Switch,
    /// The server to spawn.
    #[arg(last = true, required = true, value_name = "SERVER_CMD")]
    server: Vec<String>,
}

impl BenchArgs {
    /// Rings as the app keeps them, or none.
    pub fn traffic(&self) -> Traffic {
        match self.traffic {
            crate::Switch::On => Traffic::new(TrafficLimits::default()),
            crate::Switch::Off => Traffic::off(),
        }
    }
}

/// Figures of one operation kind.
#[derive(Default)]
struct Tally {
    latencies_us: Vec<u64>,
    bytes: u64,
    items: u64,
    pages: u64,
}

pub async fn run(session: &Session, args: &BenchArgs) -> Result<ExitCode> {
    let (program, rest) = args
        .server
        .split_first()
        .ok_or_else(|| Error::new(ErrorCode::InvalidInput, "bench needs a server command"))?;
    let mut server = ServerConfig::stdio(program.clone(), rest.to_vec());
    server.max_message_bytes = args.max_message_bytes;
    server.sandbox = Some(SandboxSetting::Enabled(args.sandbox == crate::Switch::On));
    let start = Instant::now();
    let live = session.connect("bench", server, &[], None).await;
    let connect_ms = start.elapsed().as_secs_f64() * 1000.0;
    let protocol = live
        .as_ref()
        .map(|l| l.connection.summary().protocol_version.clone())
        .unwrap_or_default();
    let mut tally = Tally::default();
    let mut elapsed = Duration::ZERO;
    let mut cpu_ns = 0;
    let outcome = match &live {
        Ok(live) => {
            let c = &live.connection;
            let mut warm = Tally::default();
            match measure(c, args, args.warmup, &mut warm).await {
                Ok(()) => {
                    let (t0, cpu0) = (Instant::now(), cpu_time_ns());
                    let r = measure(c, args, args.n, &mut tally).await;
                    elapsed = t0.elapsed();
                    cpu_ns = cpu_time_ns().saturating_sub(cpu0);
                    r
                }
                Err(e) => Err(e),
            }
        }
        Err(e) => Err(e.clone()),
    };
    if let Ok(live) = live {
        live.shutdown().await;
    }
    tally.latencies_us.sort_unstable();
    let pct = |p: f64| -> u64 {
        if tally.latencies_us.is_empty() {
            return 0;
        }
        let i = ((tally.latencies_us.len() as f64 - 1.0) * p).round() as usize;
        tally.latencies_us[i]
    };
    let ops = tally.latencies_us.len();
    let secs = elapsed.as_secs_f64();
    print_line(&json!({
        "client": "switchboard",
        "protocol": protocol,
        "mode": args.mode.name(),
        "n": args.n,
        "concurrency": if args.mode == Mode::Conc { args.concurrency } else { 1 },
        "sandbox": args.sandbox == crate::Switch::On,
        "traffic": args.traffic == crate::Switch::On,
        "connect_ms": round3(connect_ms),
        "elapsed_s": round3(secs),
        "ops_per_s": if secs > 0.0 { round3(ops as f64 / secs) } else { 0.0 },
        "p50_us": pct(0.50),
        "p99_us": pct(0.99),
        "cpu_us_per_op": if ops > 0 { round3(cpu_ns as f64 / 1000.0 / ops as f64) } else { 0.0 },
        "bytes": tally.bytes,
        "items": tally.items,
        "pages": tally.pages,
        "peak_rss_kb": peak_rss_kb(),
        "ok": outcome.is_ok(),
        "error": outcome.as_ref().err(),
    }))?;
    Ok(if outcome.is_ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(5)
    })
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

async fn echo(c: &Connection) -> Result<u64> {
    let r = c.call_tool("echo", Some(json!({"text": "hello"}))).await?;
    let text = serde_json::to_value(&r.content)
        .ok()
        .and_then(|v| {
            v.pointer("/0/text")
                .and_then(|t| t.as_str())
                .map(str::to_owned)
        })
        .unwrap_or_default();
    if !text.contains("hello") {
        return Err(Error::new(
            ErrorCode::ServerError,
            format!("echo returned {text:?}, not \"hello\""),
        ));
    }
    Ok(text.len() as u64)
}

async fn measure(c: &Connection, args: &BenchArgs, n: usize, tally: &mut Tally) -> Result<()> {
    match args.mode {
        Mode::Ping | Mode::Seq => {
            for _ in 0..n {
                let t = Instant::now();
                if args.mode == Mode::Ping {
                    c.ping().await?;
                } else {
                    tally.bytes += echo(c).await?;
                }
                tally.latencies_us.push(t.elapsed().as_micros() as u64);
            }
        }
        Mode::Conc => {
            use futures::StreamExt;
            let results: Vec<Result<(u64, u64)>> = futures::stream::iter(0..n)
                .map(|_| async {
                    let t = Instant::now();
                    let bytes = echo(c).await?;
                    Ok((t.elapsed().as_micros() as u64, bytes))
                })
                .buffer_unordered(args.concurrency.max(1))
                .collect()
                .await;
            for r in results {
                let (us, bytes) = r?;
                tally.latencies_us.push(us);
                tally.bytes += bytes;
            }
        }
        Mode::Blob => {
            for _ in 0..n {
                let t = Instant::now();
                tally.bytes += blob(c, args.blob_bytes).await?;
                tally.latencies_us.push(t.elapsed().as_micros() as u64);
            }
        }
        Mode::List => {
            // `n` full listings: each pages through every resource once.
            for _ in 0..n {
                let t = Instant::now();
                let (items, pages) = c.list_resources().await?;
                tally.latencies_us.push(t.elapsed().as_micros() as u64);
                tally.items += items.len() as u64;
                tally.pages += pages as u64;
            }
        }
    }
    Ok(())
}

/// One call of the fixture's `blob` tool, checked to bring back all of its `bytes`.
async fn blob(c: &Connection, bytes: u64) -> Result<u64> {
    let r = c.call_tool("blob", Some(json!({ "bytes": bytes }))).await?;
    let len = serde_json::to_value(&r.content)
        .ok()
        .and_then(|v| v.pointer("/0/text").and_then(|t| t.as_str()).map(str::len))
        .unwrap_or(0) as u64;
    if len != bytes {
        return Err(Error::new(
            ErrorCode::ServerError,
            format!("blob returned {len} bytes, expected {bytes}"),
        ));
    }
    Ok(len)
}

/// The CPU time this process's live threads have run so far, user and system, in nanoseconds
/// (0 where /proc has none; a thread that has ended no longer counts, and the timed calls start
/// none): the client's own cost per call, which the machine's wake-ups and the server on the
/// other vCPU do not move, unlike a call's latency or a run's throughput.
pub fn cpu_time_ns() -> u64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return 0;
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

/// Peak resident set size of this process, from /proc (0 where unavailable).
pub fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}
