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
cp "$CARGO_TARGET_DIR"/e2e-screenshots/*.png assets/screenshots/
ls assets/screenshots
