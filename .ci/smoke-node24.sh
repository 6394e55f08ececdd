#!/usr/bin/env bash
# Runs the built CLI (dist/) on Node 24: --help, and the sandbox answering a token request and a call.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm init -y >/dev/null && npm install --no-save --no-package-lock node@24 >/dev/null 2>&1)
node24="$work/node_modules/.bin/node"
echo "smoke: $("$node24" --version)"
"$node24" test/smoke/cli-smoke.mjs "$node24"
