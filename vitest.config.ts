import { cloudflareTest } from '@cloudflare/vitest-plugin'
import { defineConfig } from 'vitest/config'

/**
 * Tests whose server is another process (npm start, stdio children, the Lambda runtime client): under
 * StrykerJS (npm run mutate; it names its workers in STRYKER_MUTATOR_WORKER) they see mutants too, handed to
 * the children and their coverage read back by test/setup/stryker-children.ts. Left out there: the
 * conformance CLI's minutes-long runs, npm pack and tsc in a consumer project, SAM, `wrangler dev` (the
 * Workers adapter is mutated against the tests inside workerd; see README, "Mutation testing"), and the
 * hibernation test, which idles 12 s for workerd to evict the hub and tests workerd more than our code.
 * The two projects are mutated apart (scripts/mutate.sh): src/ and the Node, Redis and Lambda adapters
 * against the node project, the Workers adapter against the workers project (MCP_EDGE_MUTATE=workers), so
 * that no mutant waits on a workerd start it does not need.
 */
const NOT_MUTATING = ['test/conformance/**', 'test/wrangler-dev/**', 'test/package/**', 'test/lambda/sam-build.test.ts', 'test/lambda/start-lambda.test.ts']
// `npm run test:node24` (the second Node of .ci/run) runs only the tests whose server runs in this process,
// plus the conformance suite; the process-spawning rest runs once, on Node 22.
const OTHER_PROCESS = [
  'test/wrangler-dev/**', 'test/redis/two-processes.test.ts', 'test/redis/cluster-processes.test.ts', 'test/redis/tasks-durability.test.ts', 'test/redis/faults.test.ts', 'test/adapters/node-serve.test.ts', 'test/package/**',
  'test/lambda/runtime-client.test.ts', 'test/lambda/function-url.test.ts', 'test/lambda/function-url-auth.test.ts', 'test/lambda/sam-build.test.ts', 'test/auth/npm-start.test.ts',
  'test/lambda/billing.test.ts', 'test/lambda/start-lambda.test.ts', 'test/lambda/otel.test.ts', 'test/otel/processes.test.ts', 'test/clients/sdk-sessions.test.ts',
  'test/http/session-restart.test.ts', 'test/redis/session-epoch.test.ts', 'test/adapters/node-shutdown.test.ts',
]
// In-process tests that start a server process all the same (npm start, a stdio child): a StrykerJS run over
// src/ alone (MCP_EDGE_MUTATE=src) leaves them out too, since each mutant they cover would wait seconds on a
// child's start; a mutant only they kill counts as survived there.
const SPAWNING = ['test/redis/outages.test.ts', 'test/http/draft-wire.test.ts', 'test/resumable/npm-start.test.ts', 'test/adapters/stdio.test.ts', 'test/adapters/stdio-shutdown.test.ts']
const mutating = process.env.STRYKER_MUTATOR_WORKER !== undefined
const inProcess = process.env.MCP_EDGE_TESTS === 'in-process'
const mutated = mutating ? (process.env.MCP_EDGE_MUTATE === 'workers' ? 'workers' : 'node') : undefined
const srcOnly = mutating && process.env.MCP_EDGE_MUTATE === 'src'

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      ...(mutated === 'workers' ? [] : [{
        test: {
          name: 'node',
          include: ['test/**/*.test.ts'],
          exclude: [
            'test/workers/**', 'node_modules/**',
            // Both under StrykerJS with MCP_EDGE_TESTS=in-process: a run over src/ alone, which the in-process tests reach.
            ...(mutating ? NOT_MUTATING : []), ...(inProcess || srcOnly ? OTHER_PROCESS : []), ...(srcOnly ? SPAWNING : []),
          ],
          // A Redis of the run's own when REDIS_URL is unset (the Redis tests need one).
          globalSetup: ['test/setup/redis.ts', 'test/setup/lambda.ts'],
          setupFiles: mutating ? ['test/setup/stryker-children.ts'] : [],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      }]),
      ...(mutated === 'node' ? [] : [{
        // Inside workerd, with the bindings of wrangler.toml (the everything Worker).
        plugins: [cloudflareTest({
          wrangler: { configPath: './wrangler.toml' },
          // OAUTH_KV: where workers-oauth-provider keeps clients, grants and tokens (test/workers/oauth-provider.test.ts).
          // MCP_HUB_RELAYS from the environment runs every listen test through a tree of relay hubs.
          miniflare: {
            bindings: { MCP_REQUEST_STATE_SECRET: 'workers-test-secret-0123456789abcdef', ...(process.env.MCP_HUB_RELAYS ? { MCP_HUB_RELAYS: process.env.MCP_HUB_RELAYS } : {}) },
            kvNamespaces: ['OAUTH_KV'],
          },
        })],
        test: {
          name: 'workers',
          include: ['test/workers/**/*.test.ts'],
          exclude: mutating ? ['test/workers/hibernation.test.ts'] : [],
          testTimeout: 40_000,
        },
      }]),
    ],
  },
})
