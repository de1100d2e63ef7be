#!/usr/bin/env bash
# `npm run dev`: the everything server under wrangler dev, offline, on 127.0.0.1 (PORT, default 8787).
set -euo pipefail
cd "$(dirname "$0")/.."
export WRANGLER_SEND_METRICS=false CLOUDFLARE_CF_FETCH_ENABLED=false
# Bound to loopback: accept only loopback Host headers (DNS-rebinding defence), as the Node server does.
exec ./node_modules/.bin/wrangler dev --ip 127.0.0.1 --port "${PORT:-8787}" --var 'MCP_ALLOWED_HOSTS:localhost,127.0.0.1,[::1]' "$@"
