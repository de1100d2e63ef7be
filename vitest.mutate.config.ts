import { cloudflareTest } from '@cloudflare/vitest-pool-workers'
import { defineConfig } from 'vitest/config'

/**
 * The tests StrykerJS runs against each mutant (npm run mutate): every test whose server runs inside this
 * process or inside workerd. Tests whose server is another process (npm start, wrangler dev, the stdio
 * child, the conformance CLI's minutes-long run) cannot see an in-process mutant and are left out.
 */
export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      {
        test: {
          name: 'node',
          include: ['test/**/*.test.ts'],
          exclude: ['test/workers/**', 'test/conformance/**', 'test/wrangler-dev/**', 'test/redis/two-processes.test.ts', 'test/adapters/node-serve.test.ts', 'node_modules/**'],
        },
      },
      {
        plugins: [cloudflareTest({
          wrangler: { configPath: './wrangler.toml' },
          miniflare: { bindings: { MCP_REQUEST_STATE_SECRET: 'workers-test-secret-0123456789abcdef' } },
        })],
        test: { name: 'workers', include: ['test/workers/**/*.test.ts'], testTimeout: 40_000 },
      },
    ],
  },
})
