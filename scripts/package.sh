#!/usr/bin/env bash
# Builds Switchboard's Linux packages with the Tauri bundler (its CLI from crates.io, installed
# once into a cache outside the clone): a .deb and an .rpm holding the app (/usr/bin/switchboard),
# switchboard-cli (/usr/bin/switchboard-cli), the icons and a desktop entry. Prints each
# package's path on stdout.
#
#   scripts/package.sh [--debug] [--bundles deb,rpm]
#
# Release builds by default; --debug reuses the debug build (what CI installs and starts, see
# scripts/package-test.sh). AppImage is not built here: the bundler downloads its tools
# (linuxdeploy and its plugins) from GitHub, outside the package registries. On a release machine
# with internet access, `scripts/package.sh --bundles appimage` builds one (README, "Install").
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/switchboard/target}"
profile=release; debug=(); release=(--release)
bundles=deb,rpm
while [ $# -gt 0 ]; do
  case "$1" in
    --debug) profile=debug; debug=(--debug); release=() ;;
    --bundles) bundles="$2"; shift ;;
    *) echo "package.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

tools="${SWITCHBOARD_TOOLS:-$HOME/.cache/switchboard/tools}"
if [ ! -x "$tools/bin/cargo-tauri" ]; then
  echo "package.sh: cargo install tauri-cli" >&2
  cargo install tauri-cli --version '^2' --locked --quiet --root "$tools"
fi
export PATH="$tools/bin:$PATH"

bash scripts/setup-system.sh
bash scripts/setup-ui.sh
if [ "$profile" = release ]; then
  cli=$(bash scripts/build-cli.sh) # its code laid out by use
else
  cargo build --locked --quiet -p switchboard-cli
  cli="$CARGO_TARGET_DIR/debug/switchboard-cli"
fi
# The CLI goes into the same package, beside the app; its path lives outside the clone, so it is
# given here rather than in tauri.conf.json.
files=$(printf '{"/usr/bin/switchboard-cli": "%s"}' "$cli")
extra=$(printf '{"bundle": {"linux": {"deb": {"files": %s}, "rpm": {"files": %s}}}}' "$files" "$files")
cargo tauri build "${debug[@]}" --ci --bundles "$bundles" --config "$extra" -- --locked >&2
out="$CARGO_TARGET_DIR/$profile/bundle"
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
for kind in ${bundles//,/ }; do
  ls -t "$out/$kind"/*"$version"* 2>/dev/null | head -1
done
