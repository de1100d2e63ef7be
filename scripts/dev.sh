#!/usr/bin/env bash
# `npm run dev`: the everything server under wrangler dev, offline, on 127.0.0.1 (PORT, default 8787).
set -euo pipefail
cd "$(dirname "$0")/.."
export WRANGLER_SEND_METRICS=false CLOUDFLARE_CF_FETCH_ENABLED=false
# Bound to loopback: accept only loopback Host headers (DNS-rebinding defence), as the Node server does.
# MCP_AUTH_ISSUER (and MCP_AUTH_JWKS_URI, MCP_RESOURCE_URL) in the environment become the Worker's vars,
# as for npm start: authorization on, with the resource at this address unless MCP_RESOURCE_URL says otherwise.
auth=()
if [ -n "${MCP_AUTH_ISSUER:-}" ]; then
  auth=(--var "MCP_AUTH_ISSUER:$MCP_AUTH_ISSUER" --var "MCP_RESOURCE_URL:${MCP_RESOURCE_URL:-http://127.0.0.1:${PORT:-8787}/mcp}")
  [ -n "${MCP_AUTH_JWKS_URI:-}" ] && auth+=(--var "MCP_AUTH_JWKS_URI:$MCP_AUTH_JWKS_URI")
fi
exec ./node_modules/.bin/wrangler dev --ip 127.0.0.1 --port "${PORT:-8787}" --var 'MCP_ALLOWED_HOSTS:localhost,127.0.0.1,[::1]' "${auth[@]}" "$@"
