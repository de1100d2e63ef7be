import { cloudflareTest } from '@cloudflare/vitest-pool-workers'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      { test: { name: 'node', include: ['test/**/*.test.ts'], exclude: ['test/workers/**', 'node_modules/**'], testTimeout: 30_000, hookTimeout: 30_000 } },
      {
        // Inside workerd, with the bindings of wrangler.toml (the everything Worker).
        plugins: [cloudflareTest({
          wrangler: { configPath: './wrangler.toml' },
          miniflare: { bindings: { MCP_REQUEST_STATE_SECRET: 'workers-test-secret-0123456789abcdef' } },
        })],
        test: { name: 'workers', include: ['test/workers/**/*.test.ts'], testTimeout: 40_000 },
      },
    ],
  },
})
