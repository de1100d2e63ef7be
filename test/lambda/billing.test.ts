/**
 * What Lambda bills, under the real runtime client: an invocation lasts until its handler returns, the
 * response and the waitUntil work it awaits (a task it runs) included, and no longer. Template.yaml's
 * function as `npm run start:lambda` runs it (tasks in Redis, the default 30 s timeout), every invocation's
 * billed duration as the local function URL reports it (AWS's REPORT line).
 */
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { InvocationReport } from '../../adapters/lambda/local/function-url.js'
import { LOOPBACK_HOSTS } from '../../src/index.js'
import { until } from '../helpers/async.js'
import { startFunction, type LocalFunction } from '../helpers/lambda.js'
import { REDIS_URL } from '../helpers/redis.js'
import { taskClient } from '../helpers/tasks.js'

let fn: LocalFunction
const reports: (InvocationReport & { at: number })[] = []

beforeAll(async () => {
  fn = await startFunction(undefined, 'everything-billing', {
    instances: 2,
    timeoutMs: 30_000,
    onReport: (report) => void reports.push({ ...report, at: performance.now() }),
    env: {
      REDIS_URL,
      REDIS_PREFIX: `lambda-billing-${randomBytes(4).toString('hex')}:`,
      MCP_REQUEST_STATE_SECRET: randomBytes(32).toString('hex'),
      MCP_ALLOWED_HOSTS: LOOPBACK_HOSTS.join(','),
    },
  })
}, 60_000)
afterAll(() => fn?.close())

/** The report of the first tools/call invocation to end after `since`. */
async function toolCallEndedAfter(since: number, ms = 5000) {
  await until(() => reports.some((r) => r.method === 'tools/call' && r.at > since), ms)
  return reports.find((r) => r.method === 'tools/call' && r.at > since)!
}

describe('billed time on Lambda', () => {
  it('a task runs in the invocation that made it, which ends with it: billed at most 100 ms past its handler\'s second', async () => {
    const tasks = taskClient(fn.url)
    const sent = performance.now()
    const id = await tasks.start('slow_compute', { seconds: 1 })
    const report = await toolCallEndedAfter(sent)
    expect((await tasks.get(id)).result).toMatchObject({ status: 'completed' })
    expect(report.durationMs).toBeGreaterThanOrEqual(1000)
    expect(report.durationMs).toBeLessThanOrEqual(1100)
  })

  it('a task that fails ends its invocation with it: a tool error after its handler\'s second, a protocol error at once', async () => {
    const tasks = taskClient(fn.url)
    let sent = performance.now()
    const failing = await tasks.start('failing_job', {})
    let report = await toolCallEndedAfter(sent)
    expect((await tasks.get(failing)).result).toMatchObject({ status: 'completed' })
    expect(report.durationMs).toBeGreaterThanOrEqual(1000)
    expect(report.durationMs).toBeLessThanOrEqual(1100)
    sent = performance.now()
    const broken = await tasks.start('protocol_error_job', {})
    report = await toolCallEndedAfter(sent)
    expect((await tasks.get(broken)).result).toMatchObject({ status: 'failed' })
    expect(report.durationMs).toBeLessThan(1000)
  })

  it('a task cancelled through another instance frees the invocation running it within 1 s', async () => {
    const tasks = taskClient(fn.url)
    const sent = performance.now()
    const id = await tasks.start('slow_compute', { seconds: 60 })
    await tasks.waitFor(id, ['working'])
    // Its own environment is busy running it: the cancel goes to another.
    const cancelled = performance.now()
    expect((await tasks.cancel(id)).result).toMatchObject({ resultType: 'complete' })
    const report = await toolCallEndedAfter(sent)
    expect(report.at - cancelled).toBeLessThan(1000)
    expect((await tasks.get(id)).result).toMatchObject({ status: 'cancelled' })
  })

  it('a task that parks for input frees the invocation running it within 1 s, and the answer runs it on elsewhere', async () => {
    const tasks = taskClient(fn.url)
    const sent = performance.now()
    const id = await tasks.start('confirm_delete', { filename: 'a.txt' })
    await tasks.waitFor(id, ['input_required'])
    const parked = performance.now()
    const report = await toolCallEndedAfter(sent)
    expect(report.at - parked).toBeLessThan(1000)
    await tasks.update(id, { confirm: { action: 'accept', content: { confirm: true } } })
    expect(await tasks.waitFor(id, ['completed'])).toMatchObject({ result: { content: [{ type: 'text', text: 'Deleted a.txt' }] } })
  })
})
