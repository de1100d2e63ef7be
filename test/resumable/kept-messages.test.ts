/**
 * A resumable request over a slow store: its messages are written late, and its response must still come
 * after every one of them. Once the outcome is stored the record is final, so a message written after it
 * would be lost to every resume.
 */
import { describe, expect, it } from 'vitest'
import { isTerminal, McpServer, memoryTaskStore, resumable } from '../../src/index.js'
import { deferred, turns } from '../helpers/async.js'
import { heldStore } from '../helpers/concurrency.js'
import { META_2026, rpc } from '../helpers/server.js'
import { handlerPool } from '../helpers/tasks.js'
import { sseMessages, validateServerMessage } from '../helpers/wire.js'

const pool = handlerPool()
const RESUMABLE = { resumableRequests: {} }

async function* messages(response: Response, method: string) {
  for await (const message of sseMessages(response.body!)) {
    expect(validateServerMessage('2026-07-28', method, message)).toEqual([])
    yield message as Record<string, any>
  }
}

describe('resumable requests over a slow store', () => {
  it('on resume, the client gets every message the handler sent before its result, though the store took them late', async () => {
    const store = heldStore(memoryTaskStore())
    // The writes that keep a message, and only those: the record's outcome is not held.
    const kept = store.hold('put', (t) => t.log !== undefined && !isTerminal(t.status))
    const returned = deferred()
    const server = new McpServer({ name: 'kept', version: '1' }).tool('report', {}, (_a, ctx) => {
      ctx.progress(1, 2)
      ctx.progress(2, 2)
      returned.resolve()
      return 'reported'
    })
    const handler = pool({ extensions: [resumable({ store, maxWaitMs: 5_000 })] }, server)

    const call = await rpc(handler, 'tools/call', { name: 'report', arguments: {}, _meta: META_2026(RESUMABLE, { progressToken: 'p' }) }, { id: 'kept' })
    let resumeToken: string | undefined
    for await (const m of messages(call.response, 'tools/call')) {
      resumeToken = m.params.resumeToken
      break
    }
    await Promise.all([returned.promise, kept.reached])
    // A runner that did not wait for its messages would store the outcome now.
    await turns()
    kept.release()

    const resume = await rpc(handler, 'requests/resume', { resumeToken, _meta: META_2026(RESUMABLE) }, { id: 'kept' })
    // A stream of what was kept and then the result; or the result alone, as JSON, when nothing was kept.
    const seen: Record<string, any>[] = resume.body ? [resume.body] : []
    if (!resume.body) for await (const m of messages(resume.response, 'requests/resume')) seen.push(m)
    expect(seen.map((m) => m.params?.progress ?? m.result?.content?.[0]?.text)).toEqual([1, 2, 'reported'])
  })

  it('a message published while the stream was reading the log is written once, not again from the log', async () => {
    const inner = memoryTaskStore()
    // The stream's first read of the log is held; a message kept and published meanwhile goes out at once.
    const reading = deferred()
    const readMay = deferred()
    let reads = 0
    const store = {
      ...inner,
      async messages(id: string, from: number) {
        if (reads++ === 0) {
          reading.resolve()
          await readMay.promise
        }
        return inner.messages!(id, from)
      },
    }
    const go = deferred()
    const more = deferred()
    const server = new McpServer({ name: 'kept', version: '1' }).tool('report', {}, async (_a, ctx) => {
      await go.promise
      ctx.progress(1, 2)
      await more.promise
      ctx.progress(2, 2)
      return 'reported'
    })
    const handler = pool({ extensions: [resumable({ store, maxWaitMs: 5_000 })] }, server)
    const call = await rpc(handler, 'tools/call', { name: 'report', arguments: {}, _meta: META_2026(RESUMABLE, { progressToken: 'p' }) }, { id: 'once' })
    const seen: Record<string, any>[] = []
    const stream = messages(call.response, 'tools/call')
    seen.push((await stream.next()).value!)
    await reading.promise
    go.resolve()
    seen.push((await stream.next()).value!)
    expect(seen[1]!.params.progress).toBe(1)
    readMay.resolve()
    await turns()
    more.resolve()
    for await (const m of stream) seen.push(m)
    expect(seen.map((m) => m.params?.progress ?? m.result?.content?.[0]?.text)).toEqual([undefined, 1, 2, 'reported'])
  })
})
