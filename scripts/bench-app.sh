#!/usr/bin/env bash
# Prints the desktop figures: cold start to first paint and idle memory (PSS of the whole process
# tree) with 10 servers, beside a blank Tauri window of the same package (same Tauri version and
# features) measured in the same run, and the ratios against it. Builds both in release mode
# (pass --debug for a quicker, slower build).
# Needs what scripts/test.sh installs (system packages, UI build, tauri-driver).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/switchboard/target}"
profile=release; flag=--release
if [ "${1:-}" = "--debug" ]; then profile=debug; flag=; fi
bash scripts/setup-system.sh
bash scripts/setup-ui.sh
bash scripts/setup-e2e.sh
cargo build $flag --quiet -p switchboard --bin switchboard --example blank_window
cargo build $flag --quiet -p switchboard-cli --bin switchboard-cli
cargo build $flag --quiet -p switchboard-core --example fixture_server
python3 scripts/bench_app.py "$CARGO_TARGET_DIR/$profile/switchboard" \
  "$CARGO_TARGET_DIR/$profile/examples/fixture_server" "${RUNS:-5}" \
  "$CARGO_TARGET_DIR/$profile/examples/blank_window"
