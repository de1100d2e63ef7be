/** The health route (healthPath) of a Worker: routed beside the endpoint, answered whatever the Host. */
import { createExecutionContext } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { createWorker } from '../../adapters/cloudflare/index.js'
import { McpServer } from '../../src/index.js'

const server = new McpServer({ name: 'health', version: '1.0.0' }).tool('plain', { description: 'answers' }, () => 'plain')
const bindings = { MCP_HUB: env.MCP_HUB, MCP_REQUEST_STATE_SECRET: 'health-test-secret-0123456789abcdef' }
const get = (worker: ReturnType<typeof createWorker>, url: string) => worker.fetch(new Request(url), bindings, createExecutionContext())

describe('a Worker\'s health route', () => {
  it('answers 200 at healthPath, even where allowedHosts would refuse the Host', async () => {
    const worker = createWorker(server, { healthPath: '/healthz', allowedHosts: ['mcp.example.com'] })
    const res = await get(worker, 'https://10.0.0.1/healthz')
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ status: 'serving' })
  })

  it('is not there unless asked for', async () => {
    expect((await get(createWorker(server), 'https://mcp.example.com/healthz')).status).toBe(404)
  })
})
