#!/usr/bin/env bash
# The least the OS box can cost a start on this machine (issue 26, item 9): the kernel calls a
# boxed start makes for the same rules and seccomp program as Switchboard's box for /bin/true,
# made by a C program with nothing else to do (scripts/box-floor.c). Compare the floor it prints
# with a tenth of an unboxed start in scripts/bench-sandbox.sh. Client pinned to one vCPU, as
# there. Not a test: it prints microseconds (BENCHMARKS.md keeps them).
# Needs Landlock ABI 6 (Linux 6.12), as the box's full rights and scopes do.
# Usage: scripts/box-floor.sh     ROUNDS=400 FRESH=150
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
# As a CLI meets it: each start in a fresh process, boxed and plain taking turns.
for _ in $(seq "${FRESH:-150}"); do
  for way in box plain; do taskset -c 0 "$work/box-floor" "$work/rules" once "$way"; done
done > "$work/fresh"
python3 - "$work/fresh" "${FRESH:-150}" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
made = statistics.median(int(r[1]) for r in rows if r[0] == "box")
boxed = statistics.median(int(r[2]) for r in rows if r[0] == "box")
plain = statistics.median(int(r[1]) for r in rows if r[0] == "plain")
print(f"a fresh process for each start, {sys.argv[2]} of each way:")
print(f"  ruleset made: {made:.0f} us; start of /bin/true: {boxed:.0f} us boxed, "
      f"{plain:.0f} us plain (entry +{boxed - plain:.0f} us)")
print(f"  floor (ruleset + entry): {made + boxed - plain:.0f} us")
PY
