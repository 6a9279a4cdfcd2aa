#!/usr/bin/env bash
# Builds the release switchboard-cli with the functions a run uses placed together. The plain
# build runs under callgrind through the client path's workloads (a fixture server on both
# protocol eras: calls one by one and 64 at a time, a start, a paginated listing, a 4 MB result);
# the functions it ran, and those of a server's start that callgrind cannot follow, go into lld's
# symbol ordering file (scripts/symbol_order.py), and the CLI is linked again with them first
# (src-tauri/cli/build.rs). The kernel maps a binary's code in large blocks around each page
# touched, so code used once here and there keeps most of the 23 MiB resident; placed together,
# about a third of it is (BENCHMARKS.md). Only how the code is laid out changes.
# The same build profiled again writes the same file, so a second run links nothing.
#   scripts/build-cli.sh [cargo build targets of the CLI package, e.g. --example plain_rmcp_bench]
# Prints the CLI's path.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/switchboard/target}"
bin="$CARGO_TARGET_DIR/release"
export SWITCHBOARD_CLI_SYMBOL_ORDER="$bin/switchboard-cli.symbol-order"
build() { cargo build --release --locked --quiet -p switchboard-cli --bin switchboard-cli "$@"; }
mkdir -p "$bin"
[ -e "$SWITCHBOARD_CLI_SYMBOL_ORDER" ] || : > "$SWITCHBOARD_CLI_SYMBOL_ORDER"
build "$@"
cargo build --release --locked --quiet -p switchboard-core --example fixture_server
bash scripts/setup-system.sh # valgrind

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SWITCHBOARD_DATA_DIR="$work/data" SWITCHBOARD_CONFIG="$work/config.json"
profile() { # name, then the bench's arguments
  local name=$1
  shift
  valgrind -q --tool=callgrind --demangle=no --compress-strings=no \
    --callgrind-out-file="$work/callgrind.$name" "$bin/switchboard-cli" bench "$@" \
    > "$work/out" 2>&1 || true
}
for era in 2025-11-25 2026-07-28; do
  server=(-- env "FIXTURE_ERA=$era" "$bin/examples/fixture_server")
  for run in "seq 200" "conc 200" "ping 1" "list 2" "blob 2"; do
    read -r mode n <<< "$run"
    # Valgrind cannot run Landlock, so these starts are unboxed...
    profile "$era.$mode" --mode "$mode" --n "$n" --concurrency 64 --warmup 2 \
      --blob-bytes 4000000 --sandbox off "${server[@]}"
    grep -q '"ok":true' "$work/out" || { cat "$work/out" >&2; exit 1; }
  done
  # ...and a boxed start goes as far as the box's spec before the refusal that says so.
  profile "$era.boxed" --mode ping --n 1 "${server[@]}"
  grep -q '"ok":true\|"code":"sandbox"' "$work/out" || { cat "$work/out" >&2; exit 1; }
done
python3 scripts/symbol_order.py "$bin/switchboard-cli" "$SWITCHBOARD_CLI_SYMBOL_ORDER" \
  "$work"/callgrind.*
build "$@"
echo "$bin/switchboard-cli"
