#!/usr/bin/env bash
# Hunts flaky tests: builds the core's real-server tests (faults included) and the CLI's tests
# once, then runs their test binaries N times (default 20) inside the same D-Bus session with an
# unlocked gnome-keyring that scripts/test.sh uses, and prints each test that failed at least
# once with how many runs it failed in. Exits 1 when any did. Extra arguments after N go to every
# test binary (a filter, --test-threads=8). Logs of failed runs stay in
# $CARGO_TARGET_DIR/flake-hunt/.
#
#   scripts/flake-hunt.sh 20
#   FLAKE_HUNT_TIMEOUT=600 scripts/flake-hunt.sh 5 faults::
set -euo pipefail
self="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
cd "$(dirname "$self")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/switchboard/target}"
export CARGO_TERM_COLOR=never
runs="${1:-20}"
shift || true
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: scripts/flake-hunt.sh [N] [test binary arguments...]" >&2
  exit 2
fi
# A run that takes longer than this is a hang: it is killed and counted as one.
timeout_s="${FLAKE_HUNT_TIMEOUT:-1200}"
out="$CARGO_TARGET_DIR/flake-hunt"

if [ -z "${FLAKE_HUNT_IN_SESSION:-}" ]; then
  bash scripts/setup-fixtures.sh
  # Built once; the runs below reuse these binaries. Each line: package directory, binary.
  list=$(mktemp)
  keyring_home=$(mktemp -d)
  trap 'rm -rf "$keyring_home" "$list"' EXIT
  executables() {
    cargo test --locked --no-run --message-format=json "$@" |
      python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["manifest_path"].rsplit("/", 1)[0], m["executable"], sep="\t")
'
  }
  echo "flake-hunt: building" >&2
  # The real-server tests start the rmcp fixture server, an example `cargo test` builds only
  # when it builds every target.
  cargo build --locked --quiet -p switchboard-core --example fixture_server
  executables -p switchboard-core --test real_servers >>"$list"
  executables -p switchboard-cli >>"$list"
  rm -rf "$out"
  mkdir -p "$out"
  # A keyring of its own, as in scripts/test.sh: never the user's real one.
  status=0
  XDG_DATA_HOME="$keyring_home" FLAKE_HUNT_IN_SESSION="$list" \
    dbus-run-session -- bash "$self" "$runs" "$@" || status=$?
  exit "$status"
fi

echo -n switchboard-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null
failures="$out/failures.txt"
: >"$failures"
for run in $(seq 1 "$runs"); do
  while IFS=$'\t' read -r dir exe; do
    name=$(basename "$exe" | sed 's/-[0-9a-f]*$//')
    log="$out/run$run-$name.log"
    status=0
    # As `cargo test` runs it: from the package's directory, which it also names.
    (cd "$dir" && CARGO_MANIFEST_DIR="$dir" timeout --kill-after=10 "$timeout_s" "$exe" "$@") \
      </dev/null >"$log" 2>&1 || status=$?
    failed=$(sed -n 's/^test \(.*\) \.\.\. FAILED$/\1/p' "$log")
    if [ -n "$failed" ]; then
      printf '%s\n' "$failed" | sed "s|^|$name: |" >>"$failures"
    fi
    if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
      # libtest names the tests still running after a minute.
      hung=$(sed -n 's/^test \(.*\) has been running for over 60 seconds$/\1/p' "$log")
      printf '%s\n' "${hung:-(a test)}" | sed "s|^|$name: |; s|$| (hung: killed after ${timeout_s}s)|" >>"$failures"
    elif [ "$status" -ne 0 ] && [ -z "$failed" ]; then
      echo "$name: (exited $status with no failed test)" >>"$failures"
    fi
    summary=$(grep -E '^test result:' "$log" | tail -1 || true)
    echo "flake-hunt: run $run/$runs $name: ${summary:-exit $status}" >&2
    if [ "$status" -eq 0 ]; then
      rm -f "$log"
    fi
  done <"$FLAKE_HUNT_IN_SESSION"
done

if [ ! -s "$failures" ]; then
  echo "flake-hunt: no test failed in $runs runs"
  exit 0
fi
echo "flake-hunt: tests that failed at least once in $runs runs (failed runs, binary: test):"
sort "$failures" | uniq -c | sort -rn | awk -v n="$runs" '{c=$1; $1=""; printf "%4d/%d %s\n", c, n, substr($0, 2)}'
echo "flake-hunt: logs of the failed runs are in $out" >&2
exit 1
