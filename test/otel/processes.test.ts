/**
 * OpenTelemetry across processes, as deployed: `npm start` processes with the standard OTEL_EXPORTER_OTLP_*
 * variables export to one OTLP/HTTP receiver in the test (JSON); where work crosses from one process to
 * another, two of them share one Redis. Each process names itself by OTEL_SERVICE_NAME.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { until } from '../helpers/async.js'
import { startEverythingProcess, type EverythingProcess } from '../helpers/everything-process.js'
import { otlpReceiver, type OtlpReceiver, type OtlpSpan } from '../helpers/otel.js'
import { REDIS_URL } from '../helpers/redis.js'
import { META_2026, modernHeaders, openListen, rpc } from '../helpers/server.js'
import { TASK_CAPABILITIES, taskClient } from '../helpers/tasks.js'

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c'
const traceparent = (span: string) => `00-${TRACE_ID}-${span}-01`
// OTLP's span kinds.
const SERVER = 2
const PRODUCER = 4

const started: EverythingProcess[] = []
let otlp: OtlpReceiver
afterEach(async () => {
  await Promise.all(started.splice(0).map((p) => p.stop()))
  await otlp?.close()
})

/** `npm start` processes exporting to the receiver, named a, b, ...; with `redis`, they share a Redis prefix of their own. */
async function processes(count: number, redis: boolean, extra: Record<string, string> = {}): Promise<EverythingProcess[]> {
  otlp = await otlpReceiver()
  const env = {
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '100', ...extra,
    ...(redis ? { REDIS_URL, REDIS_PREFIX: `otel-${crypto.randomUUID()}:`, MCP_REQUEST_STATE_SECRET: 'o'.repeat(32) } : {}),
  }
  const made = await Promise.all(['a', 'b'].slice(0, count).map((name) => startEverythingProcess({ ...env, OTEL_SERVICE_NAME: name })))
  started.push(...made)
  return made
}

const spansOf = (service: string, name: string) => otlp.spans.filter((s) => s.service === service && s.name === name)

describe('npm start with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('exports its spans and the duration metric over OTLP/HTTP as JSON', async () => {
    const [a] = await processes(1, false, { OTEL_METRIC_EXPORT_INTERVAL: '300' })
    const { body } = await rpc(fetch, 'tools/call', { name: 'test_simple_text', arguments: {}, _meta: { ...META_2026(), traceparent: traceparent('b7ad6b7169203331') } }, { url: a!.url })
    expect(body.result.content[0].text).toContain('simple text')
    await until(() => spansOf('a', 'tools/call test_simple_text').length === 1 && otlp.metricNames.has('mcp.server.operation.duration'), 15_000)
    const [span] = spansOf('a', 'tools/call test_simple_text') as [OtlpSpan]
    expect(span).toMatchObject({ traceId: TRACE_ID, parentSpanId: 'b7ad6b7169203331', kind: SERVER })
    const attribute = (key: string) => span.attributes.find((x) => x.key === key)?.value
    expect(attribute('gen_ai.tool.name')).toEqual({ stringValue: 'test_simple_text' })
    expect(attribute('mcp.method.name')).toEqual({ stringValue: 'tools/call' })
    expect([...otlp.contentTypes]).toEqual(['application/json'])
  }, 30_000)
})

describe('a task\'s run on another process', () => {
  it('links back to the request that made the task, through the task record', async () => {
    const [a, b] = await processes(2, true)
    const params = { name: 'confirm_delete', arguments: { filename: 'traced.txt' }, _meta: META_2026(TASK_CAPABILITIES, { traceparent: traceparent('1111222233334444') }) }
    const made = await rpc(fetch, 'tools/call', params, { url: a!.url, headers: modernHeaders('tools/call', params) })
    const id = made.body.result.taskId as string
    const onB = taskClient(b!.url)
    await onB.waitFor(id, ['input_required'])
    await onB.update(id, { confirm: { action: 'accept', content: { confirm: true } } })
    await onB.waitFor(id, ['completed'])

    await until(() => spansOf('b', 'execute_tool confirm_delete').length === 1 && spansOf('b', 'tasks/update').length === 1, 10_000)
    const [request] = spansOf('a', 'tools/call confirm_delete') as [OtlpSpan]
    expect(request.traceId).toBe(TRACE_ID)
    const [run] = spansOf('b', 'execute_tool confirm_delete') as [OtlpSpan]
    const [update] = spansOf('b', 'tasks/update') as [OtlpSpan]
    expect(run.links?.map((l) => [l.traceId, l.spanId])).toEqual([[request.traceId, request.spanId], [update.traceId, update.spanId]])
    expect(run.attributes.find((x) => x.key === 'mcp.task.id')?.value).toEqual({ stringValue: id })
    // The kept context says the request was sampled, as the client's traceparent did.
    expect(run.links![0]!.flags! & 1).toBe(1)
    // A's first run, which parked the task for input, links to the same request.
    const [parked] = spansOf('a', 'execute_tool confirm_delete') as [OtlpSpan]
    expect(parked.links?.map((l) => l.spanId)).toEqual([request.spanId])
  }, 40_000)
})

describe('a change made on another process', () => {
  it('reaches a listen stream whose span links to the publish', async () => {
    const [a, b] = await processes(2, true)
    const listen = await openListen((r) => fetch(new Request(b!.url, r)), { toolsListChanged: true })
    expect(await listen.next()).toMatchObject({ method: 'notifications/subscriptions/acknowledged' })
    await rpc(fetch, 'tools/call', { name: 'test_trigger_tool_change', arguments: {}, _meta: { ...META_2026(), traceparent: traceparent('2000000000000002') } }, { url: a!.url })
    expect(await listen.next()).toMatchObject({ method: 'notifications/tools/list_changed' })
    await listen.cancel()
    const producers = () => otlp.spans.filter((s) => s.service === 'a' && s.kind === PRODUCER)
    await until(() => producers().length === 1 && spansOf('b', 'subscriptions/listen').length === 1, 10_000)
    const [publish] = producers() as [OtlpSpan]
    expect(publish.traceId).toBe(TRACE_ID)
    const [stream] = spansOf('b', 'subscriptions/listen') as [OtlpSpan]
    expect(stream.links?.map((l) => [l.traceId, l.spanId])).toEqual([[TRACE_ID, publish.spanId]])
  }, 30_000)
})
