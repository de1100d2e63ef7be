// StrykerJS over src/ alone (`npm run mutate -- src`, which also sets MCP_EDGE_MUTATE=src and
// MCP_EDGE_TESTS=in-process: the tests whose server runs in the test process, vitest.config.ts):
// stryker.config.json's settings, with reports of its own.
import base from './stryker.config.json' with { type: 'json' }

export default {
  ...base,
  mutate: ['src/**/*.ts', '!**/index.ts'],
  htmlReporter: { fileName: 'reports/mutation/src.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation-src.json' },
  incrementalFile: 'reports/mutation/incremental-src.json',
}
