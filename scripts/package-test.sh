#!/usr/bin/env bash
# The package test (scripts/test.sh runs it after the other tests): builds the debug .deb
# (scripts/package.sh --debug, reusing the debug build), installs it with dpkg, checks that the
# installed app starts in a real window under Xvfb and lists a server added through the installed
# switchboard-cli (tests/e2e/installed.rs), and removes the package again, leaving nothing behind.
# Needs root or sudo (dpkg), and what scripts/test.sh installs first.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/switchboard/target}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

if dpkg-query -W -f='${Status}' switchboard 2>/dev/null | grep -q "install ok installed"; then
  echo "package-test: a switchboard package is installed already; remove it first (dpkg -r switchboard)" >&2
  exit 1
fi
deb=$(bash scripts/package.sh --debug --bundles deb | tail -1)
echo "package-test: $deb" >&2
dpkg-deb --contents "$deb" | awk '{print $6}' | grep -E 'bin/|\.desktop$|icons/.*/apps/' >&2
remove() { $SUDO dpkg -r switchboard >/dev/null; }
trap remove EXIT
$SUDO dpkg -i "$deb" >/dev/null
cargo build --locked --quiet -p switchboard-core --example fixture_server
cargo test --locked -p switchboard --test e2e -- --ignored --exact the_installed_package_runs
remove
trap - EXIT
for f in /usr/bin/switchboard /usr/bin/switchboard-cli; do
  if [ -e "$f" ]; then echo "package-test: $f is still there after dpkg -r" >&2; exit 1; fi
done
echo "package-test: installed, started, listed the server, removed"
