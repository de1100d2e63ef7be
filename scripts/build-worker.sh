#!/usr/bin/env bash
# `npm run build:worker`: bundle the everything Worker as `wrangler deploy` would, without deploying, and
# print its size (raw and gzip).
set -euo pipefail
cd "$(dirname "$0")/.."
export WRANGLER_SEND_METRICS=false CLOUDFLARE_CF_FETCH_ENABLED=false
rm -rf dist/worker
./node_modules/.bin/wrangler deploy --dry-run --outdir dist/worker "$@" | grep -E 'Total Upload|Your Worker has access' || true
for f in dist/worker/*.js; do
  printf '%s: %d bytes raw, %d bytes gzip\n' "$f" "$(wc -c < "$f")" "$(gzip -9 -c "$f" | wc -c)"
done
