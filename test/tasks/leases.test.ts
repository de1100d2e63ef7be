/**
 * Two runners of one task. The only hand-over there is: the first runner stops to ask for input, the answer
 * comes to another instance, and its runner holds the lease from then on. Whatever the first still had
 * under way (a renewal its store takes late) must not take the task back.
 */
import { describe, expect, it } from 'vitest'
import { McpServer, memoryTaskStore } from '../../src/index.js'
import { answer, finish, newTask, park, renewLease } from '../../src/tasks/records.js'
import { deferred, turns, until } from '../helpers/async.js'
import { gate, heldStore, holders, sharing } from '../helpers/concurrency.js'
import { FORM, handlerPool, taskClient } from '../helpers/tasks.js'

const pool = handlerPool()

describe('two runners of one task', () => {
  it("a runner whose lease another took over cannot renew it back, and the new runner's outcome is the one written", async () => {
    const store = heldStore(memoryTaskStore())
    const firstRunner = () => store.writes[0]?.lease?.holder
    // The first runner's renewals reach the store only when the test lets them.
    const renewals = store.hold('put', (t) => t.status === 'working' && t.lease?.holder === firstRunner())
    const resumed = deferred()
    const finishing = gate()
    const server = new McpServer({ name: 'leases', version: '1' }).tool('confirm', { task: 'required' }, async (_a, ctx) => {
      // The first run asks only once a renewal of its lease is under way; the second passes at once.
      await renewals.reached
      const confirmed = await ctx.elicit('ok', FORM('OK?'))
      resumed.resolve()
      await finishing.passed
      return `confirmed: ${confirmed.action}`
    })
    // The first instance renews its runners' leases every 10 ms, the second not within this test.
    const [one, other] = sharing(pool, server, store, { leaseMs: 30 }, { leaseMs: 600_000 })
    const [a, b] = [taskClient(one), taskClient(other)]
    const taskId = await a.start('confirm')
    // Read from the store's writes, not tasks/get: a read would fail the task once the held renewals let its lease lapse.
    await until(() => store.writes.some((t) => t.status === 'input_required'), 5000, 'the first runner to park the task')
    await b.update(taskId, { ok: { action: 'accept', content: { ok: true } } })
    await resumed.promise

    renewals.release()
    await turns()
    const runners = holders(store, taskId).map((holder) => (holder === firstRunner() ? 'first' : 'second'))
    expect(runners).toEqual(['first', 'second'])

    finishing.open()
    const done = await b.waitFor(taskId, ['completed', 'failed'])
    expect(done).toMatchObject({ status: 'completed', result: { content: [{ text: 'confirmed: accept' }] } })
  })

  it('a runner whose lease another took over can neither renew it nor write an outcome to it', () => {
    const settings = { ttlMs: 60_000, pollIntervalMs: 1000, leaseMs: 30_000 }
    const created = newTask(settings, '', { tool: 'confirm', arguments: {} }, 'first')
    const parked = park(created, settings, 'first', { ok: { method: 'elicitation/create', params: FORM('OK?') } }, {}, {})!
    const taken = answer(parked, settings, { ok: { action: 'accept', content: { ok: true } } }, 'second')!
    expect(renewLease(taken, 'first', settings)).toBeUndefined()
    expect(finish(taken, settings, 'completed', { result: { content: [] } }, 'first')).toBeUndefined()
    expect(renewLease(taken, 'second', settings)?.lease?.holder).toBe('second')
    expect(finish(taken, settings, 'completed', { result: { content: [] } }, 'second')?.status).toBe('completed')
  })
})
