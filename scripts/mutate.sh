#!/usr/bin/env bash
# `npm run mutate`: StrykerJS over src/ and adapters/, then the score per folder and the mutants no test
# killed. Two runs: src/ and the Node and Redis adapters against the node tests (stryker.config.json), the
# Workers adapter against the workerd tests (stryker.workers.config.json). Incremental: only mutants in
# changed code, or reached by changed tests, run again (reports/mutation/incremental*.json); arguments go
# to both runs, e.g. `npm run mutate -- --force` to run all.
# `npm run mutate -- src [args]`: src/ alone, against the tests whose server runs in the test process.
set -euo pipefail
cd "$(dirname "$0")/.."
export NODE_OPTIONS="${NODE_OPTIONS:-} --import $PWD/scripts/stryker-typescript.mjs"
SECONDS=0
if [ "${1:-}" = src ]; then
  shift
  MCP_EDGE_TESTS=in-process MCP_EDGE_MUTATE=src ./node_modules/.bin/stryker run stryker.src.config.mjs "$@"
  ./node_modules/.bin/tsx scripts/mutation-report.ts reports/mutation/mutation-src.json
  echo "Run time: $((SECONDS / 60)) min"
  exit
fi
./node_modules/.bin/stryker run stryker.config.json "$@"
node_minutes=$((SECONDS / 60))
SECONDS=0
MCP_EDGE_MUTATE=workers ./node_modules/.bin/stryker run stryker.workers.config.json "$@"
./node_modules/.bin/tsx scripts/mutation-report.ts reports/mutation/mutation.json reports/mutation/mutation-workers.json
echo "Run times: ${node_minutes} min against the node project, $((SECONDS / 60)) min against the workers project"
