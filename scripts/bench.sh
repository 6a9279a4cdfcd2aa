#!/usr/bin/env bash
# Benchmarks Switchboard's client path (`switchboard-cli bench`: the app's own connection code)
# against a bare rmcp client on a current-thread runtime (the fastest configuration of the peer)
# and on a multi-thread runtime, in one run, on the same fixture server, release builds. The bare
# client negotiates as Switchboard does and declares the same capabilities (on 2026-07-28 each
# request carries them); a third column shows rmcp as it comes (`().serve()`: the initialize
# handshake, no capabilities) for reference. The
# client is pinned to one vCPU and the server to another; each figure is the median of
# BENCH_REPS runs (the three clients take turns in each). Prints the figures, the ratios and
# whether the targets hold. Switchboard runs as the app does, its traffic ring recording; a run
# with the ring off gives the ring's own ratio (target: within 5%). Not a test: it prints numbers (BENCHMARKS.md keeps them).
# Both eras: the same fixture server once as an initialize-era server (`FIXTURE_ERA=2025-11-25`:
# it knows no `server/discover`, so each client falls back to `initialize` as it would with most
# servers today) and once on 2026-07-28; every table and target is printed for each.
# Spawn + initialize is its own figure: BENCH_STARTS starts of each client (one ping, nothing
# warmed), the clients taking turns, median; a run's five timings moved more between runs
# than the gap to the target, and so did medians of 40 (1.10-1.26x in blocks of one 400-start
# run, against 1.13-1.18x in blocks of 100: BENCHMARKS.md, session 25).
# Each ratio is printed twice: the ratio of the medians, and "paired", the median of each run's
# own ratio (the clients of a run, or of a start, take their turns seconds apart, so a slow
# minute of the machine slows both). The client's own CPU time per call is a row too: what the
# client controls, which the VM's wake-ups and the server on the other vCPU do not move.
# Many short runs rather than a few long ones: the clients of a pair then run a second or two
# apart, and the medians and pairs steady (150 pairs of 2,000 sequential calls put the paired
# sequential p50 within ±0.03 at 95%, where 5 runs of 20,000 moved by a third: BENCHMARKS.md,
# session 28). Each paired ratio in a verdict carries its 95% interval (a bootstrap of the pairs).
# A sequential run makes enough calls (3,000 and the warm-up's 200) for the ring to fill (5,000
# messages), so that peak RSS is the ring's steady state, as in a host that has run a while.
# Usage: scripts/bench.sh            BENCH_N=3000 sequential calls, BENCH_CONC_N=5000 calls in
#                                    flight, BENCH_REPS=60, BENCH_CONCURRENCY=64,
#                                    BENCH_STARTS=100, BENCH_ERAS="2025-11-25 2026-07-28"
set -euo pipefail
cd "$(dirname "$0")/.."
n="${BENCH_N:-3000}"
conc_n="${BENCH_CONC_N:-5000}"
reps="${BENCH_REPS:-60}"
conc="${BENCH_CONCURRENCY:-64}"
starts="${BENCH_STARTS:-100}"
eras="${BENCH_ERAS:-2025-11-25 2026-07-28}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/switchboard/target}"
# The CLI as the package ships it: its code laid out by use (scripts/build-cli.sh).
bash scripts/build-cli.sh --example plain_rmcp_bench > /dev/null
cargo build --release --quiet -p switchboard-core --example fixture_server
bin="$CARGO_TARGET_DIR/release"
server="$bin/examples/fixture_server"
# One vCPU for the client, another for the server (both on the only one if there is one).
cpus=$(nproc)
client_cpu=0
server_cpu=$((cpus > 1 ? 1 : 0))
pin_client=(taskset -c "$client_cpu")
pin_server=() # set per era below
out=$(mktemp)
trap 'rm -f "$out"' EXIT

run() { # client mode count
  local client=$1 mode=$2 count=$3
  # Warm-up calls before the timed ones: 200 echoes, 2 of the large results and listings, and
  # none for a start (`ping` once).
  local warm=200
  case "$mode" in blob | list) warm=2 ;; ping) warm=0 ;; esac
  case "$client" in
    switchboard | switchboard-traffic-off)
      local traffic=on
      [ "$client" = switchboard-traffic-off ] && traffic=off
      "${pin_client[@]}" "$bin/switchboard-cli" bench --mode "$mode" --n "$count" \
        --concurrency "$conc" --warmup "$warm" --blob-bytes 4000000 --traffic "$traffic" \
        -- "${pin_server[@]}" | tail -n1 | sed "s/\"client\":\"switchboard\"/\"client\":\"$client\"/" ;;
    rmcp-current | rmcp-multi)
      "${pin_client[@]}" "$bin/examples/plain_rmcp_bench" "$mode" "$count" "$conc" "$warm" 4000000 \
        "${client#rmcp-}" -- "${pin_server[@]}" | tail -n1 ;;
    rmcp-current-defaults)
      RMCP_BASELINE=defaults "${pin_client[@]}" "$bin/examples/plain_rmcp_bench" "$mode" "$count" \
        "$conc" "$warm" 4000000 current -- "${pin_server[@]}" | tail -n1 ;;
  esac
}

for rep in $(seq "$reps"); do
  for era in $eras; do
    pin_server=(taskset -c "$server_cpu" env "FIXTURE_ERA=$era" "$server")
    for client in switchboard switchboard-traffic-off rmcp-current rmcp-multi rmcp-current-defaults; do
      echo "{\"rep\":$rep,\"era\":\"$era\",\"line\":$(run "$client" seq "$n")}" >> "$out"
      echo "{\"rep\":$rep,\"era\":\"$era\",\"line\":$(run "$client" conc "$conc_n")}" >> "$out"
      for mode in blob list; do
        echo "{\"rep\":$rep,\"era\":\"$era\",\"line\":$(run "$client" "$mode" 20)}" >> "$out"
      done
    done
  done
done

clients="switchboard switchboard-traffic-off rmcp-current rmcp-multi rmcp-current-defaults"
for start in $(seq "$starts"); do
  for era in $eras; do
    pin_server=(taskset -c "$server_cpu" env "FIXTURE_ERA=$era" "$server")
    for client in $clients; do
      echo "{\"rep\":$start,\"era\":\"$era\",\"line\":$(run "$client" ping 1)}" >> "$out"
    done
  done
done

python3 - "$out" "$n" "$conc_n" "$reps" "$conc" "$starts" "$(nproc)" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | xargs)" <<'PY'
import json, statistics, sys
sys.path.insert(0, "scripts")
from bench_stats import interval
path, n, conc_n, reps, conc, starts, cpus, cpu = sys.argv[1:]
entries = [json.loads(l) for l in open(path)]
bad = [e["line"] for e in entries if not e["line"].get("ok")]
if bad:
    sys.exit(f"a run failed: {bad[0]}")
clients = ["switchboard", "rmcp-current", "rmcp-multi", "rmcp-current-defaults"]
figures = [
    ("sequential tools/call p50 (µs)", "seq", "p50_us"),
    ("sequential tools/call p99 (µs)", "seq", "p99_us"),
    (f"{conc} in flight, calls/s", "conc", "ops_per_s"),
    ("client CPU per sequential call (µs)", "seq", "cpu_us_per_op"),
    (f"client CPU per call, {conc} in flight (µs)", "conc", "cpu_us_per_op"),
    ("spawn + initialize (ms)", "ping", "connect_ms"),
    ("peak RSS (MiB)", "seq", "peak_rss_kb"),
    ("4 MB tool result, calls/s", "blob", "ops_per_s"),
    ("1,000 resources listed (10 pages), lists/s", "list", "ops_per_s"),
]
fmt = lambda x: f"{x:,.1f}" if x < 1000 else f"{x:,.0f}"
# Issue 32's targets, Switchboard against rmcp current-thread: (mode, key, limit, "max" or "min").
targets = [
    ("sequential p50 at most 1.0×", "seq", "p50_us", 1.0, "max"),
    (f"{conc}-in-flight throughput at least 1.0×", "conc", "ops_per_s", 1.0, "min"),
    ("spawn + initialize at most 1.2×", "ping", "connect_ms", 1.2, "max"),
    ("peak RSS at most 2×", "seq", "peak_rss_kb", 2.0, "max"),
    ("4 MB result at least 1.0×", "blob", "ops_per_s", 1.0, "min"),
    ("paginated listing at least 1.0×", "list", "ops_per_s", 1.0, "min"),
]
# The ring's own targets, ring on against ring off.
ring_targets = [
    ("sequential p50 at most 1.05× off", "seq", "p50_us", 1.05, "max"),
    (f"{conc}-in-flight throughput at least 0.95× off", "conc", "ops_per_s", 0.95, "min"),
]

def middle(pairs):
    """The median of a run's pairs' own ratios."""
    return statistics.median(pairs) if pairs else float("nan")

def verdicts(where, targets, ratio, pair):
    """Each target's ratio of the medians (what it is judged on) and its paired ratio, with the
    latter's 95% interval."""
    for label, mode, key, limit, kind in targets:
        r, pairs = ratio[(mode, key)], pair[(mode, key)]
        p, (low, high) = middle(pairs), interval(pairs)
        met = r <= limit if kind == "max" else r >= limit
        print(f"target {where} {label}: {r:.2f}× (paired {p:.2f}×, 95% {low:.2f}–{high:.2f}, {len(pairs)} pairs) → {'MET' if met else 'NOT MET'}")

print(f"machine: {cpus} vCPU ({cpu}); client on one vCPU, server on another")
print(f"{n} sequential and {conc_n} concurrent calls per run, {reps} runs, {starts} starts, medians; ratio = Switchboard / rmcp (µs, ms, MiB: lower is better; per second: higher is better)")

def era_tables(era, rows):
    def med(client, mode, key):
        v = statistics.median(r[key] for r in rows if r["client"] == client and r["mode"] == mode)
        return v / 1024 if key == "peak_rss_kb" else v
    protocols = {c: sorted({r.get("protocol", "?") for r in rows if r["client"] == c}) for c in clients}
    print(f"\n## Server on {era}\n")
    print("negotiated: " + ", ".join(f"{c} {'/'.join(p)}" for c, p in protocols.items()) + "\n")
    def paired(mode, key, of="switchboard", to="rmcp-current"):
        # Each run's (or start's) ratio, the two clients having run one after the other, then the
        # median of those: a slow minute of the machine slows both sides of a pair.
        by_rep = {}
        for r in rows:
            if r["mode"] == mode and r["client"] in (of, to):
                by_rep.setdefault(r["rep"], {})[r["client"]] = r[key]
        return [p[of] / p[to] for p in by_rep.values() if len(p) == 2 and p[to]]
    print(f"| {'':42} | {'rmcp current-thread':>19} | {'rmcp multi-thread':>17} | {'Switchboard':>11} | {'vs current':>10} | {'paired':>7} | {'vs multi':>8} | {'rmcp as it comes':>16} |")
    print(f"|{'-'*44}|{'-'*20}:|{'-'*18}:|{'-'*12}:|{'-'*11}:|{'-'*8}:|{'-'*9}:|{'-'*17}:|")
    ratio, pair = {}, {}
    for label, mode, key in figures:
        v = {c: med(c, mode, key) for c in clients}
        cur = v["switchboard"] / v["rmcp-current"] if v["rmcp-current"] else float("nan")
        multi = v["switchboard"] / v["rmcp-multi"] if v["rmcp-multi"] else float("nan")
        ratio[(mode, key)], pair[(mode, key)] = cur, paired(mode, key)
        print(f"| {label:42} | {fmt(v['rmcp-current']):>19} | {fmt(v['rmcp-multi']):>17} | {fmt(v['switchboard']):>11} | {cur:>9.2f}× | {middle(pair[(mode, key)]):>6.2f}× | {multi:>7.2f}× | {fmt(v['rmcp-current-defaults']):>16} |")
    print("\n(vs current: the ratio of the medians; paired: the median of each run's own ratio)\n")
    verdicts(f"({era}):", targets, ratio, pair)
    print(f"\nThe traffic ring on {era} (Switchboard as above, against the same build with the ring off):\n")
    print(f"| {'':42} | {'ring off':>11} | {'ring on':>11} | {'on / off':>8} | {'paired':>7} |")
    print(f"|{'-'*44}|{'-'*12}:|{'-'*12}:|{'-'*9}:|{'-'*8}:|")
    ring, ring_pair = {}, {}
    for label, mode, key in figures:
        off, on = med("switchboard-traffic-off", mode, key), med("switchboard", mode, key)
        ring[(mode, key)] = on / off if off else float("nan")
        ring_pair[(mode, key)] = paired(mode, key, to="switchboard-traffic-off")
        print(f"| {label:42} | {fmt(off):>11} | {fmt(on):>11} | {ring[(mode, key)]:>7.2f}× | {middle(ring_pair[(mode, key)]):>6.2f}× |")
    print()
    verdicts(f"({era}): ring on,", ring_targets, ring, ring_pair)

for era in dict.fromkeys(e["era"] for e in entries):
    era_tables(era, [dict(e["line"], rep=e["rep"]) for e in entries if e["era"] == era])
PY
