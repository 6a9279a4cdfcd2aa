#!/usr/bin/env bash
# Installs the UI's npm dependencies (when the lockfile changed) and builds ui/dist, which the
# Tauri shell embeds.
set -euo pipefail
cd "$(dirname "$0")/../ui"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules ]; then
  echo "setup-ui: npm install" >&2
  # Not `npm ci`: npm 11 leaves rollup's optional per-platform packages out of the lockfile and
  # then refuses it. `install --no-save` uses the locked versions and never rewrites the lock.
  npm install --no-save --no-audit --no-fund --loglevel=error >/dev/null
  touch node_modules
fi
npm run --silent build >/dev/null
