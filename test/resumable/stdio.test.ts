/**
 * Resumable requests over stdio, where they apply: there is no stream to leave, so a resumable call gets its
 * policy and runs to its result as any other; `notifications/cancelled` cancels it for good, and a later
 * resume or status says so.
 */
import { describe, expect, it } from 'vitest'
import { type Backplane, isTerminal, McpServer, memoryBackplane, memoryTaskStore, resumable, type TaskStatus, type TaskStore } from '../../src/index.js'
import { deferred, turns, until } from '../helpers/async.js'
import { META_2026, TEST_SECRET } from '../helpers/server.js'
import { harness } from '../helpers/stdio.js'
import { validateServerMessage } from '../helpers/wire.js'

const server = () => new McpServer({ name: 'stdio-resumable', version: '1.0.0' })
  .tool('steps', {}, async (_args, ctx) => {
    for (let i = 1; i <= 3; i++) {
      ctx.progress(i, 3)
      await new Promise((r) => setTimeout(r, 20))
    }
    return 'three steps'
  })
  .tool('waits', {}, async (_args, ctx) => {
    ctx.progress(1)
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
    return 'stopped'
  })

const req = (id: string, method: string, params: Record<string, unknown>) =>
  ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META_2026({ resumableRequests: {} }, { progressToken: id }) } })

describe('resumable requests over stdio', () => {
  it('a resumable call streams its policy and reports, then its result; a cancelled one is cancelled for good', async () => {
    const h = await harness(server(), { extensions: [resumable()], requestState: { secret: TEST_SECRET }, maxMessageBytes: 1 << 20 })
    h.send(req('a', 'tools/call', { name: 'steps', arguments: {} }))
    await until(() => h.lines.some((m) => m.id === 'a'))
    const a = h.lines.filter((m) => m.id === 'a' || m.params?.requestId === 'a' || m.params?.progressToken === 'a')
    expect(a.map((m) => m.method ?? m.result.content[0].text)).toEqual(['notifications/requests/resumePolicy', 'notifications/progress', 'notifications/progress', 'notifications/progress', 'three steps'])

    h.send(req('b', 'tools/call', { name: 'waits', arguments: {} }))
    await until(() => h.lines.some((m) => m.params?.progressToken === 'b'))
    const token = h.lines.find((m) => m.params?.requestId === 'b')!.params.resumeToken
    h.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'b' } })
    h.send(req('status', 'requests/getStatus', { requestId: 'b', resumeToken: token }))
    await until(() => h.lines.some((m) => m.id === 'status' && m.result?.status === 'failed'), 5_000, 'the status to say it ended')
    h.send(req('b', 'requests/resume', { resumeToken: token }))
    await until(() => h.lines.some((m) => m.id === 'b' && m.error))
    expect(h.lines.find((m) => m.id === 'b')!.error).toMatchObject({ code: -32602, message: 'The request was cancelled: Cancelled by the client' })
    for (const m of h.lines) {
      const method = m.id === 'status' ? 'requests/getStatus' : m.id === 'b' ? 'requests/resume' : 'tools/call'
      expect(validateServerMessage('2026-07-28', method, m)).toEqual([])
    }
    await h.stdio.close()
  })

  it('a cancel aborts the handler here at once, without the backplane telling its runner the request ended', async () => {
    const aborted = deferred()
    const server = new McpServer({ name: 'stdio-resumable', version: '1.0.0' })
      .tool('waits', {}, async (_args, ctx) => {
        ctx.progress(1)
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
        aborted.resolve()
        return 'stopped'
      })
    // A backplane is no log: this one loses every announcement of an end, as one may while it reconnects.
    const inner = memoryBackplane()
    const backplane: Backplane = {
      publish: async (event) => (isTerminal((event.data?.task as { status?: TaskStatus } | undefined)?.status as TaskStatus) ? undefined : inner.publish(event)),
      subscribe: (topics, listener) => inner.subscribe(topics, listener),
    }
    // Renewed every 200 s: no renewal finds the request ended while the test runs.
    const h = await harness(server, { backplane, extensions: [resumable({ leaseMs: 600_000 })], requestState: { secret: TEST_SECRET }, maxMessageBytes: 1 << 20 })
    h.send(req('c', 'tools/call', { name: 'waits', arguments: {} }))
    await until(() => h.lines.some((m) => m.params?.progressToken === 'c'))
    const token = h.lines.find((m) => m.params?.requestId === 'c')!.params.resumeToken
    h.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c' } })
    let asked = 0
    const status = async () => {
      const id = `status-${++asked}`
      h.send(req(id, 'requests/getStatus', { requestId: 'c', resumeToken: token }))
      await until(() => h.lines.some((m) => m.id === id))
      return h.lines.find((m) => m.id === id)!.result.status
    }
    while (await status() !== 'failed');
    // The handler is aborted right after the record says so: by then, whatever comes next has come.
    await turns()
    expect(aborted.settled).toBe(true)
    await h.stdio.close()
  })

  it('writes nothing more for a cancelled call, not even a report that arrives while its stream is let go', async () => {
    const next = deferred()
    const server = new McpServer({ name: 'stdio-resumable', version: '1.0.0' })
      .tool('ticks', {}, async (_args, ctx) => {
        ctx.progress(1)
        await next.promise
        ctx.progress(2)
        await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
        return 'stopped'
      })
    // Unsubscribing takes a while (a round trip to Redis): until it has, the stream's subscription still hears.
    const inner = memoryBackplane()
    const closing = deferred()
    const closed = deferred()
    const second = deferred()
    const backplane: Backplane = {
      publish: async (event) => {
        await inner.publish(event)
        if (event.data?.seq === 2) second.resolve()
      },
      async subscribe(topics, listener) {
        const subscription = await inner.subscribe(topics, listener)
        return {
          async close() {
            closing.resolve()
            await closed.promise
            await subscription.close()
          },
        }
      },
    }
    const h = await harness(server, { backplane, extensions: [resumable()], requestState: { secret: TEST_SECRET }, maxMessageBytes: 1 << 20 })
    h.send(req('t', 'tools/call', { name: 'ticks', arguments: {} }))
    await until(() => h.lines.some((m) => m.params?.progressToken === 't'))
    h.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 't' } })
    await closing.promise
    next.resolve()
    await second.promise
    closed.resolve()
    await h.stdio.close()
    expect(h.lines.filter((m) => m.params?.progressToken === 't').map((m) => m.params.progress)).toEqual([1])
  })

  it('a call whose stream fails runs on: over stdio only the client\'s cancel ends it for good', async () => {
    const go = deferred()
    const server = new McpServer({ name: 'stdio-resumable', version: '1.0.0' })
      .tool('later', {}, async () => {
        await go.promise
        return 'done later'
      })
    // The stream's first read of the record fails (the store had a moment): the call's own answer is an error.
    const inner = memoryTaskStore()
    let failed = false
    const store: TaskStore = {
      ...inner,
      get: async (id) => {
        if (failed) return inner.get(id)
        failed = true
        throw new Error('the store had a moment')
      },
    }
    const reported: unknown[] = []
    const onError = (e: unknown) => void reported.push(e)
    const h = await harness(server, { extensions: [resumable({ store })], requestState: { secret: TEST_SECRET }, maxMessageBytes: 1 << 20, onError })
    h.send(req('l', 'tools/call', { name: 'later', arguments: {} }))
    await until(() => h.lines.some((m) => m.id === 'l'))
    expect(h.lines.find((m) => m.id === 'l')!.error).toMatchObject({ code: -32603 })
    expect(reported).toEqual([new Error('the store had a moment')])
    const token = h.lines.find((m) => m.params?.requestId === 'l')!.params.resumeToken
    go.resolve()
    let asked = 0
    const status = async () => {
      const id = `status-${++asked}`
      h.send(req(id, 'requests/getStatus', { requestId: 'l', resumeToken: token }))
      await until(() => h.lines.some((m) => m.id === id))
      return h.lines.find((m) => m.id === id)!.result.status
    }
    let now = await status()
    while (now === 'processing') now = await status()
    expect(now).toBe('completed')
    await h.stdio.close()
  })
})
