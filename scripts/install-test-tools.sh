#!/usr/bin/env bash
# Runs before `npm test` (the "pretest" script): installs the two Debian packages the suite drives for
# real when they are missing — headless Chromium renders report.html (test/report), tmux runs the CLI in
# a terminal of fixed size (test/cli/terminal.test.ts). Root, or sudo, is needed only when one is missing.
set -euo pipefail

missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing test tools from Debian's packages: ${missing[*]}"
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq "${missing[@]}"
