#!/usr/bin/env bash
# The least the OS box can cost a start on this machine (issue 26, item 9): the kernel calls a
# boxed start makes for the same rules and seccomp program as Switchboard's box for /bin/true,
# made by a C program with nothing else to do (scripts/box-floor.c). Compare the floor it prints
# with a tenth of an unboxed start in scripts/bench-sandbox.sh. Client pinned to one vCPU, as
# there. Not a test: it prints microseconds (BENCHMARKS.md keeps them).
# Usage: scripts/box-floor.sh     ROUNDS=400
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/switchboard/target}"
cargo build --release --quiet -p switchboard-sandbox --example box_cost
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
FLOOR_OUT="$work" N=1 "$CARGO_TARGET_DIR/release/examples/box_cost" > /dev/null
cc -O2 -I"$work" scripts/box-floor.c -o "$work/box-floor"
for mb in 0 64; do
  BALLAST_MB=$mb taskset -c 0 "$work/box-floor" "$work/rules" "${ROUNDS:-400}"
done
