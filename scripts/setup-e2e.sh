#!/usr/bin/env bash
# Installs tauri-driver (the WebDriver front for WebKitWebDriver) for the real-window tests, into
# a cache outside the clone so later runs reuse it. WebKitWebDriver and Xvfb come from
# scripts/setup-system.sh.
set -euo pipefail
tools="${SWITCHBOARD_TOOLS:-$HOME/.cache/switchboard/tools}"
if [ ! -x "$tools/bin/tauri-driver" ]; then
  echo "setup-e2e: cargo install tauri-driver" >&2
  cargo install tauri-driver --locked --quiet --root "$tools"
fi
