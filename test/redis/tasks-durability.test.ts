/**
 * Tasks kept in Redis outlive the process that made them: two `npm start` processes share one Redis (a
 * prefix of the test's own) and the same requestState secret; one is killed (SIGKILL: nothing runs on the
 * way out) and the other carries on with its tasks.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { startEverythingProcess, type EverythingProcess } from '../helpers/everything-process.js'
import { REDIS_URL } from '../helpers/redis.js'
import { taskClient } from '../helpers/tasks.js'

const LEASE_MS = 1500
const started: EverythingProcess[] = []
afterEach(async () => {
  await Promise.all(started.splice(0).map((p) => p.stop()))
})

async function pair() {
  const env = {
    REDIS_URL, REDIS_PREFIX: `test-${crypto.randomUUID()}:`, MCP_REQUEST_STATE_SECRET: 'd'.repeat(32), MCP_TASK_LEASE_MS: String(LEASE_MS),
  }
  const [a, b] = await Promise.all([startEverythingProcess(env), startEverythingProcess(env)])
  started.push(a!, b!)
  return { a: a!, b: b!, onA: taskClient(a!.url), onB: taskClient(b!.url) }
}

describe('tasks in Redis across processes', () => {
  it('a task completed on one process is read, result intact, through another after the first is killed', async () => {
    const { a, onA, onB } = await pair()
    const id = await onA.start('slow_compute', { seconds: 1, label: 'durable' })
    const done = await onA.waitFor(id, ['completed'])
    expect(done.result).toEqual({ content: [{ type: 'text', text: 'Computed durable in 1s' }] })
    await a.stop('SIGKILL')
    const { resultType: _, _meta: __, ...seen } = (await onB.get(id)).result!
    const { resultType: ___, _meta: ____, ...original } = done
    expect(seen).toEqual(original)
  })

  it('a task whose runner is killed mid-work fails, saying its runner was lost, once the lease runs out', async () => {
    const { a, onA, onB } = await pair()
    const id = await onA.start('slow_compute', { seconds: 60 })
    // Over two leases with its runner alive, the task stays working: the renewals reach B through Redis.
    for (const end = Date.now() + 2 * LEASE_MS; Date.now() < end; await new Promise((r) => setTimeout(r, 100))) {
      expect((await onB.get(id)).result?.status).toBe('working')
    }
    await a.stop('SIGKILL')
    const killed = Date.now()
    const failed = await onB.waitFor(id, ['failed', 'completed', 'cancelled'], 10_000)
    const took = Date.now() - killed
    expect(failed.status).toBe('failed')
    expect(failed.error).toMatchObject({ code: -32603, message: expect.stringMatching(/lost: its runner stopped/) })
    // The lease was renewed at most a third of it before the kill; polling adds a little.
    expect(took).toBeLessThan(LEASE_MS + 1000)
    expect((await onB.get(id)).result).toMatchObject({ status: 'failed', error: failed.error })
  })

  it('a task waiting for input on one process is answered on another and completes, seen from both', async () => {
    const { onA, onB } = await pair()
    const id = await onA.start('confirm_delete', { filename: 'report.txt' })
    const waiting = await onB.waitFor(id, ['input_required'])
    expect(waiting.inputRequests).toMatchObject({ confirm: { method: 'elicitation/create', params: { message: 'Delete report.txt?' } } })
    expect((await onB.update(id, { confirm: { action: 'accept', content: { confirm: true } } })).result).toMatchObject({ resultType: 'complete' })
    for (const on of [onB, onA]) {
      const done = await on.waitFor(id, ['completed', 'failed', 'cancelled'])
      expect(done).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'Deleted report.txt' }] } })
    }
  })
})
