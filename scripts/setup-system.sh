#!/usr/bin/env bash
# Installs the system packages Switchboard needs to build and to be tested in a real window:
# WebKitGTK for Tauri, Xvfb + WebKitWebDriver for end-to-end tests, gnome-keyring + dbus for the
# real Secret Service, ImageMagick for screenshots, xdotool to answer native dialogs in end-to-end
# tests, python3-gi with GTK 3 for the file manager's part in a test's drag and drop, and Podman
# (with runc) as the container engine that runs an OCI package's image in tests, and Valgrind,
# whose callgrind profiles the release CLI's code layout (scripts/build-cli.sh).
# Idempotent: does nothing when all are present.
set -euo pipefail
pkgs=(libwebkit2gtk-4.1-dev libayatana-appindicator3-dev librsvg2-dev libsecret-1-dev
      webkit2gtk-driver xvfb xdotool python3-gi gir1.2-gtk-3.0 podman runc gnome-keyring dbus-x11 imagemagick pkg-config build-essential
      valgrind)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
echo "setup-system: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
