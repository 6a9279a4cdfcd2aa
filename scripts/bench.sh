#!/usr/bin/env bash
# Benchmarks Switchboard's client path against a plain rmcp client on the same fixture server
# (release builds) and prints both figures and the ratio per mode. Not a test: it prints numbers.
# Usage: scripts/bench.sh [N]   (default N=5000)
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-5000}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/switchboard/target}"
cargo build --release --quiet -p switchboard-cli --bin switchboard-cli --example plain_rmcp_bench
cargo build --release --quiet -p switchboard-core --example fixture_server
bin="$CARGO_TARGET_DIR/release"
server="$bin/examples/fixture_server"
printf '%-6s %14s %14s %8s %12s %12s\n' mode switchboard/s rmcp/s ratio sb_p99_us rmcp_p99_us
for mode in ping seq conc blob list; do
  count=$n; [ "$mode" = blob ] || [ "$mode" = list ] && count=20
  sb=$("$bin/switchboard-cli" bench --mode "$mode" --n "$count" --concurrency 16 --warmup 50 --blob-bytes 4000000 -- "$server" | tail -n1)
  rm=$("$bin/examples/plain_rmcp_bench" "$mode" "$count" 16 50 4000000 -- "$server" | tail -n1)
  python3 - "$mode" "$sb" "$rm" <<'PY'
import json, sys
mode, sb, rm = sys.argv[1], json.loads(sys.argv[2]), json.loads(sys.argv[3])
ratio = sb["ops_per_s"] / rm["ops_per_s"] if rm["ops_per_s"] else float("nan")
print(f'{mode:<6} {sb["ops_per_s"]:>14.1f} {rm["ops_per_s"]:>14.1f} {ratio:>8.2f} {sb["p99_us"]:>12} {rm["p99_us"]:>12}')
PY
done
