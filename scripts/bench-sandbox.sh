#!/usr/bin/env bash
# What the OS sandbox costs a server's start: spawn to initialized, with the box and without it,
# in one run, release builds (`switchboard-cli bench --mode ping`, whose `connect_ms` is spawn,
# handshake and initialized). Two servers: the rmcp fixture (a native binary, where the box's
# own work shows most) and server-everything (Node, as most servers are). The two settings take
# turns, BENCH_REPS starts each, the client on one vCPU and the server on the other; each figure
# is the median. Prints the ratio against the run without the box, the paired ratio (each
# round's own, then their median) with its 95% interval, and whether the target (at most 1.1×)
# holds. Not a test: it prints numbers (BENCHMARKS.md keeps them).
# Usage: scripts/bench-sandbox.sh     BENCH_REPS=100
set -euo pipefail
cd "$(dirname "$0")/.."
reps="${BENCH_REPS:-100}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/switchboard/target}"
bash scripts/build-cli.sh > /dev/null
cargo build --release --quiet -p switchboard-core --example fixture_server
bin="$CARGO_TARGET_DIR/release"
everything="$PWD/tests/fixtures/node_modules/.bin/mcp-server-everything"
# One vCPU for the client, another for the server it starts (both on the only one if there is
# one), as scripts/bench.sh has them.
cpus=$(nproc)
pin=(taskset -c 0)
pin_server=(taskset -c "$((cpus > 1 ? 1 : 0))")
data=$(mktemp -d)
out=$(mktemp)
trap 'rm -rf "$data" "$out"' EXIT

start() { # label box server… (in the round $round)
  local label=$1 box=$2
  shift 2
  SWITCHBOARD_DATA_DIR="$data" "${pin[@]}" "$bin/switchboard-cli" bench --mode ping --n 1 --warmup 0 \
    --sandbox "$box" -- "$@" | tail -n1 | sed "s/^/$label\t$round\t/" >>"$out" || true
}

for round in $(seq "$reps"); do
  for box in off on; do
    start rmcp "$box" "${pin_server[@]}" "$bin/examples/fixture_server"
    start everything "$box" "${pin_server[@]}" "$everything" stdio
  done
done

python3 - "$out" <<'PY'
import json, statistics, sys
sys.path.insert(0, "scripts")
from bench_stats import interval

rows = {}
for line in open(sys.argv[1]):
    label, round_, text = line.rstrip("\n").split("\t", 2)
    r = json.loads(text)
    if r.get("error"):
        sys.exit(f"{label}: {r['error']}")
    rows.setdefault((label, r["sandbox"]), {})[round_] = r["connect_ms"]
print(f"{'server':<12} {'no box (ms)':>12} {'box (ms)':>10} {'ratio':>7} {'paired, 95%':>22}")
ok = True
for label in ("rmcp", "everything"):
    offs, ons = rows[(label, False)], rows[(label, True)]
    off, on = statistics.median(offs.values()), statistics.median(ons.values())
    ratio = on / off
    ok &= ratio <= 1.1
    # The two starts of a round ran one after the other: each round's own ratio, then their median.
    pairs = [ons[k] / offs[k] for k in sorted(offs.keys() & ons.keys(), key=int)]
    low, high = interval(pairs)
    paired = f"{statistics.median(pairs):.3f}x ({low:.3f}-{high:.3f})"
    print(f"{label:<12} {off:>12.2f} {on:>10.2f} {ratio:>6.3f}x {paired:>22}")
print("target: spawn to initialized with the box at most 1.1x without it:", "MET" if ok else "NOT MET")
PY
