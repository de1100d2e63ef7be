/**
 * Resumable requests on Workers: the call runs on in its McpTask object after the client leaves, a resume
 * reads it from there, and a call nobody comes back for is cancelled by the object's runner, its messages
 * dropped. (The whole round trip against `wrangler dev` is in test/wrangler-dev/wrangler-dev.test.ts.)
 */
import { createExecutionContext, runInDurableObject } from 'cloudflare:test'
import { env } from 'cloudflare:workers'
import { describe, expect, it } from 'vitest'
import { createWorker } from '../../adapters/cloudflare/index.js'
import type { TaskRecord } from '../../src/index.js'
import { createEverythingServer } from '../../examples/everything/server.js'
import { META, mcpRequest, sseReader } from './sse.js'
import { tasks, resumable } from '../../src/index.js'

const RESUMABLE_META = { ...META, 'io.modelcontextprotocol/clientCapabilities': { resumableRequests: {} } }
// The objects bound as MCP_TASKS run the everything Worker's server, so this Worker serves the same one.
const worker = createWorker(createEverythingServer(), { extensions: [tasks(), resumable({ maxWaitMs: 300 })] })
const fetchHere = (request: Request) => worker.fetch!(request as never, env as never, createExecutionContext())
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('resumable requests in Durable Objects', () => {
  it('a call nobody resumes within maxWait is cancelled in its object, its messages dropped; a late resume is told so', async () => {
    const res = await fetchHere(mcpRequest('tools/call', { name: 'slow_compute', arguments: { seconds: 60 } }, 'left', RESUMABLE_META))
    const stream = sseReader(res.body!)
    const policy = await stream.next()
    expect(policy).toMatchObject({ method: 'notifications/requests/resumePolicy', params: { requestId: 'left', maxWait: 0 } })
    await stream.cancel()
    const token = policy.params.resumeToken as string
    const { r: record } = JSON.parse(atob(token.split('.')[2]!.replace(/-/g, '+').replace(/_/g, '/'))).s as { r: string }

    // The object's runner renews its lease every 10 s (a third of 30 s): there it finds nobody came back.
    const stored = () => runInDurableObject(env.MCP_TASKS.get(env.MCP_TASKS.idFromName(record)), async (_o, state) => state.storage.kv.get<TaskRecord>('task'))
    expect(await stored()).toMatchObject({ status: 'working' })
    for (let i = 0; i < 150 && (await stored())?.status === 'working'; i++) await wait(100)
    const ended = await stored()
    expect(ended).toMatchObject({ status: 'cancelled', statusMessage: 'No client resumed the request in time' })
    expect(ended!.log).toBeUndefined()

    const late = await (await fetchHere(mcpRequest('requests/resume', { resumeToken: token }, 'left', RESUMABLE_META))).json() as Record<string, any>
    expect(late.error).toMatchObject({ code: -32602, message: expect.stringMatching(/cancelled|expired/) })
  }, 30_000)
})
