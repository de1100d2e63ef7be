#!/usr/bin/env bash
# Builds the native part of aws-lambda-ric (its rapid-client addon: libcurl and aws-lambda-cpp) when it is
# missing. npm 11 skips install scripts, so `npm ci` leaves the package without it; the runtime client
# cannot start without it. About 2-5 minutes, once per node_modules. Needs cmake, autoconf, automake,
# libtool, make and g++ (installed with apt-get when absent and this runs as root).
set -euo pipefail
cd "$(dirname "$0")/../node_modules/aws-lambda-ric"
# 3.x keeps it in dist/, 4.x at the package's root.
[ -f dist/rapid-client.node ] || [ -f rapid-client.node ] && exit 0
missing=()
for tool in cmake autoconf automake libtoolize make g++; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "aws-lambda-ric: installing build tools (${missing[*]})" >&2
    (apt-get install -y -qq cmake autoconf automake libtool make g++ >/dev/null 2>&1) || (apt-get update -qq && apt-get install -y -qq cmake autoconf automake libtool make g++ >/dev/null)
  else
    echo "aws-lambda-ric: missing build tools: ${missing[*]} (apt-get install cmake autoconf automake libtool make g++)" >&2
    exit 1
  fi
fi
echo "aws-lambda-ric: building its native part (a few minutes, once)" >&2
log=$(mktemp)
if ! (sh scripts/preinstall.sh && sh scripts/postinstall.sh) >"$log" 2>&1; then
  tail -40 "$log" >&2
  exit 1
fi
rm -f "$log"
