/**
 * A message larger than the SSE backlog bound in workerd, whose streams are Response bodies (src/http/sse.ts):
 * a 2 MB result after a progress notification arrives whole. Both sinks over real HTTP are in
 * test/http/large-messages.test.ts.
 */
import { createExecutionContext } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { expect, it } from 'vitest'
import { createWorker } from '../../adapters/cloudflare/index.js'
import { McpServer } from '../../src/index.js'
import { META, mcpRequest, sseReader } from './sse.js'

const MB = 1_000_000
const worker = createWorker(new McpServer({ name: 'large', version: '1.0.0' }).tool('big', {}, async (_args, ctx) => {
  ctx.progress(1)
  return 'x'.repeat(2 * MB)
}))

it('a 2 MB result after a progress notification arrives whole', async () => {
  const res = await worker.fetch!(mcpRequest('tools/call', { name: 'big', arguments: {} }, 1, { ...META, progressToken: 'p' }) as never, env as never, createExecutionContext())
  expect(res.headers.get('content-type')).toBe('text/event-stream')
  const stream = sseReader(res.body!)
  expect(await stream.next()).toMatchObject({ method: 'notifications/progress' })
  expect((await stream.next()).result.content[0].text).toBe('x'.repeat(2 * MB))
})
