#!/usr/bin/env bash
# Runs a project command after making sure node_modules is installed (used by `npm run keys`, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
exec node_modules/.bin/"$@"
