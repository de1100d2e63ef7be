#!/usr/bin/env bash
# `npm run mutate`: StrykerJS over src/ and adapters/ (stryker.config.json), then the score per folder and
# the mutants no test killed. Incremental: only mutants in changed code, or covered by changed tests, run
# again (reports/mutation/incremental.json); `npm run mutate -- --force` runs all. Arguments go to stryker,
# e.g. `npm run mutate -- --mutate src/server/listen.ts`.
set -euo pipefail
cd "$(dirname "$0")/.."
./node_modules/.bin/stryker run "$@"
exec ./node_modules/.bin/tsx scripts/mutation-report.ts
