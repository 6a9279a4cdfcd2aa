#!/usr/bin/env bash
# Installs what the app needs on this machine (system packages, UI dependencies), builds it and
# starts Switchboard. Extra arguments go to `cargo run` (e.g. --release).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo >/dev/null || { echo "Rust is required: install it from https://rustup.rs" >&2; exit 1; }
bash scripts/setup-system.sh
bash scripts/setup-ui.sh
exec cargo run -p switchboard "$@"
