#!/usr/bin/env bash
# `npm run test:valkey`: the Redis adapter's tests on Valkey (valkey-server on the PATH): a private Valkey
# for the single-instance tests, Valkey nodes for the cluster ones (test/helpers/redis.ts starts what
# MCP_EDGE_REDIS_SERVER names). Valkey speaks Redis' protocol; this shows that mcp-edge/redis needs nothing more.
set -euo pipefail
cd "$(dirname "$0")/.."
port="${VALKEY_PORT:-6390}"
valkey-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no >/dev/null &
server=$!
trap 'kill "$server"' EXIT
for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
echo "valkey: $(valkey-server --version)"
MCP_EDGE_REDIS_SERVER=valkey-server REDIS_URL="redis://127.0.0.1:$port" ./node_modules/.bin/vitest run --project node test/redis "$@"
