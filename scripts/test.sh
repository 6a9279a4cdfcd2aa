#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it, from a fresh clone: installs what it needs, checks
# formatting, lints, type-checks the UI and lints it (the React hooks rules), runs every Rust test
# (against real servers, inside a D-Bus session with an unlocked gnome-keyring for the real Secret
# Service; the app itself in a real window under Xvfb through tauri-driver), the UI's component
# tests, and fails when the generated TypeScript bindings drift from the Rust types; last, builds
# the debug .deb, installs it, starts the installed app and removes it (scripts/package-test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
# Reuse a build directory outside the clone when there is one (CI keeps it between runs);
# a fresh machine simply builds from scratch.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/switchboard/target}"
mkdir -p "$CARGO_TARGET_DIR"
export CARGO_TERM_COLOR=never
# A run from a fresh clone gains nothing from incremental caches, which would double what the
# workspace's own crates take on disk.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

# A kept build directory only grows (cargo never removes what an older change built), and a full
# disk shows up as the linker dying of a bus error halfway through the tests. A whole run needs
# about 22 GiB from scratch; with less than SWITCHBOARD_NEEDED_GIB free, the kept builds go and
# this run starts afresh.
needed_gib="${SWITCHBOARD_NEEDED_GIB:-40}"
free_gib() { df -Pk "$CARGO_TARGET_DIR" | awk 'NR == 2 { print int($4 / 1048576) }'; }
if [ "$(free_gib)" -lt "$needed_gib" ]; then
  printf 'only %s GiB free beside %s: removing its kept builds\n' "$(free_gib)" "$CARGO_TARGET_DIR"
  rm -rf "$CARGO_TARGET_DIR/debug" "$CARGO_TARGET_DIR/release"
  if [ "$(free_gib)" -lt "$needed_gib" ]; then
    printf 'warning: only %s GiB free for the build, where %s GiB are asked for\n' "$(free_gib)" "$needed_gib" >&2
  fi
fi

step() { printf '\n==> %s\n' "$*"; }

step "system packages"
bash scripts/setup-system.sh
step "UI dependencies and build"
bash scripts/setup-ui.sh
step "test fixtures (npm servers, conformance, Python SDK)"
bash scripts/setup-fixtures.sh
step "tauri-driver for the real-window tests"
bash scripts/setup-e2e.sh

step "cargo fmt --check"
cargo fmt --all -- --check
step "switchboard-core never depends on Tauri"
if cargo tree -p switchboard-core --locked -e normal,build --prefix none | grep -qi '^tauri'; then
  cargo tree -p switchboard-core --locked -e normal,build -i tauri >&2 || true
  echo "switchboard-core depends on tauri" >&2
  exit 1
fi
step "building the CLI after the app reuses the app's compiled dependencies"
python3 scripts/same-features.py
step "cargo clippy"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "cargo test (in a D-Bus session with gnome-keyring)"
# A keyring of its own for each run: an existing login keyring with another password would stay
# locked, and the tests must never touch the user's real one.
keyring_home=$(mktemp -d)
trap 'rm -rf "$keyring_home"' EXIT
export SWITCHBOARD_CONFORMANCE_REPORT="$CARGO_TARGET_DIR/conformance-client.txt"
rm -f "$SWITCHBOARD_CONFORMANCE_REPORT"
XDG_DATA_HOME="$keyring_home" dbus-run-session -- bash -c '
  set -euo pipefail
  echo -n switchboard-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null
  cargo test --workspace --locked --no-fail-fast
'

step "without a keychain (no DBUS_SESSION_BUS_ADDRESS: SSH, containers, minimal desktops)"
# Outside any D-Bus session, as a person on SSH has it: servers that need no secret connect, a
# sign-in lasts the run, and what needs the keychain says so in one sentence. Selected across the
# workspace, not with `-p`: one package alone unifies other features, and would build the
# workspace's crates a second and third time.
nokeychain() { env -u DBUS_SESSION_BUS_ADDRESS cargo test --workspace --locked "$@"; }
nokeychain --test real_servers -- keychain:: errors::
nokeychain --lib -- secrets::
nokeychain --test cli -- without_a_keychain

step "conformance client scenarios (@modelcontextprotocol/conformance)"
cat "$SWITCHBOARD_CONFORMANCE_REPORT"
step "generated bindings and capability are committed"
if [ -n "$(git -C "$root" status --porcelain -- ui/src/bindings src-tauri/capabilities)" ]; then
  git -C "$root" status --porcelain -- ui/src/bindings src-tauri/capabilities
  echo "ui/src/bindings or src-tauri/capabilities drifted from the core: run the tests and commit the result" >&2
  exit 1
fi
step "UI type check"
npm --prefix ui run --silent typecheck
step "UI lint (React hooks rules)"
npm --prefix ui run --silent lint
step "UI component tests"
npm --prefix ui run --silent test
step "the package: the debug .deb installs, starts, lists a server, and is removed"
bash scripts/package-test.sh
echo "all checks passed"
