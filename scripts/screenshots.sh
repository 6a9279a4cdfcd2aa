#!/usr/bin/env bash
# Refreshes the README's screenshots: runs the real-window end-to-end test (which saves a PNG of
# each screen) and copies them to assets/screenshots/.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/switchboard/target}"
bash scripts/setup-system.sh
bash scripts/setup-ui.sh
bash scripts/setup-fixtures.sh
bash scripts/setup-e2e.sh
cargo build --quiet -p switchboard-core --example fixture_server
cargo test --quiet -p switchboard --test e2e
mkdir -p assets/screenshots
# A failed scenario's picture (failed-*.png, kept from an earlier run) is for its reader, not the README.
find "$CARGO_TARGET_DIR"/e2e-screenshots -maxdepth 1 -name '*.png' ! -name 'failed-*' -exec cp {} assets/screenshots/ \;
ls assets/screenshots
