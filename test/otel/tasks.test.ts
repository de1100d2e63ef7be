/**
 * A task's run traced across processes: two `npm start` processes share one Redis, each exporting its spans
 * to one OTLP receiver. A task made on A with the client's trace context waits for input, is answered on B,
 * and B's run of the handler links back to the request on A that made it, through the task record.
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api'
import { afterEach, describe, expect, it } from 'vitest'
import { createFetchHandler, McpError, McpServer, tasks, ToolError } from '../../src/index.js'
import { openTelemetry } from '../../src/otel/index.js'
import { until } from '../helpers/async.js'
import { startEverythingProcess, type EverythingProcess } from '../helpers/everything-process.js'
import { otelSdk, otlpReceiver, type OtlpReceiver, type OtlpSpan } from '../helpers/otel.js'
import { REDIS_URL } from '../helpers/redis.js'
import { TASK_CAPABILITIES, taskClient } from '../helpers/tasks.js'
import { META_2026, modernHeaders, rpc } from '../helpers/server.js'

const TRACE_ID = 'a3ce929d0e0e47364bf92f3577b34da6'
const started: EverythingProcess[] = []
let otlp: OtlpReceiver | undefined
afterEach(async () => {
  await Promise.all(started.splice(0).map((p) => p.stop()))
  await otlp?.close()
})

describe('a task\'s run across processes', () => {
  it('links back to the request that made the task, from the process that ran it', async () => {
    otlp = await otlpReceiver()
    const env = (name: string) => ({
      REDIS_URL, REDIS_PREFIX: `otel-${crypto.randomUUID()}:`, MCP_REQUEST_STATE_SECRET: 'o'.repeat(32),
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp!.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_BSP_SCHEDULE_DELAY: '100', OTEL_SERVICE_NAME: name,
    })
    const shared = env('a')
    const [a, b] = await Promise.all([startEverythingProcess(shared), startEverythingProcess({ ...shared, OTEL_SERVICE_NAME: 'b' })])
    started.push(a!, b!)
    const params = { name: 'confirm_delete', arguments: { filename: 'traced.txt' }, _meta: META_2026(TASK_CAPABILITIES, { traceparent: `00-${TRACE_ID}-1111222233334444-01` }) }
    const made = await rpc(fetch, 'tools/call', params, { url: a!.url, headers: modernHeaders('tools/call', params) })
    const id = made.body.result.taskId as string
    const onB = taskClient(b!.url)
    await onB.waitFor(id, ['input_required'])
    await onB.update(id, { confirm: { action: 'accept', content: { confirm: true } } })
    await onB.waitFor(id, ['completed'])

    const find = (service: string, name: string) => otlp!.spans.filter((s) => s.service === service && s.name === name)
    await until(() => find('b', 'execute_tool confirm_delete').length === 1 && find('b', 'tasks/update').length === 1, 10_000)
    const [request] = find('a', 'tools/call confirm_delete') as [OtlpSpan]
    expect(request.traceId).toBe(TRACE_ID)
    const [run] = find('b', 'execute_tool confirm_delete') as [OtlpSpan]
    const [update] = find('b', 'tasks/update') as [OtlpSpan]
    expect(run.links?.map((l) => [l.traceId, l.spanId])).toEqual([[request.traceId, request.spanId], [update.traceId, update.spanId]])
    expect(run.attributes.find((x) => x.key === 'mcp.task.id')?.value).toEqual({ stringValue: id })
    // The kept context says the request was sampled, as the client's traceparent did.
    expect(run.links![0]!.flags! & 1).toBe(1)
    // A's first run, which parked the task for input, links to the same request.
    const [parked] = find('a', 'execute_tool confirm_delete') as [OtlpSpan]
    expect(parked.links?.map((l) => l.spanId)).toEqual([request.spanId])
  }, 40_000)
})

describe('a task\'s run in one process', () => {
  it('is an INTERNAL span marked with how the run failed, flushed where the platform gives waitUntil', async () => {
    const sdk = otelSdk()
    let flushed = 0
    const flush = sdk.tracerProvider.forceFlush.bind(sdk.tracerProvider)
    sdk.tracerProvider.forceFlush = () => {
      flushed++
      return flush()
    }
    const server = new McpServer({ name: 'task-spans', version: '1.0.0' })
      .tool('refuses', { description: 'A tool error', task: 'required' }, () => {
        throw new ToolError('no')
      })
      .tool('invalid', { description: 'A protocol error', task: 'required' }, () => {
        throw new McpError(-32602, 'bad')
      })
      .tool('fine', { description: 'Works, renewing its lease a few times', task: 'required' }, async () => {
        await new Promise((resolve) => setTimeout(resolve, 150))
        return 'ok'
      })
    // A short lease, renewed every 20 ms: renewals are changes that are no transition.
    const mcp = createFetchHandler(server, { extensions: [tasks({ leaseMs: 60 })], telemetry: openTelemetry({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider }) })
    const pending: Promise<unknown>[] = []
    const client = taskClient((request) => mcp(request, { waitUntil: (p) => void pending.push(p) }))
    try {
      for (const tool of ['refuses', 'invalid', 'fine']) await client.waitFor(await client.start(tool), ['completed', 'failed'])
      await Promise.all(pending)
      const run = (tool: string) => sdk.spans().find((s) => s.name === `execute_tool ${tool}`)!
      expect(run('refuses').kind).toBe(SpanKind.INTERNAL)
      expect(run('refuses').attributes).toMatchObject({ 'error.type': 'tool_error', 'gen_ai.tool.name': 'refuses', 'gen_ai.operation.name': 'execute_tool' })
      expect(run('refuses').status.code).toBe(SpanStatusCode.ERROR)
      expect(run('invalid').attributes['error.type']).toBe('-32602')
      expect(run('fine').attributes['error.type']).toBeUndefined()
      expect(run('fine').status.code).toBe(SpanStatusCode.UNSET)
      // A tool error completes its task (with an isError result); a protocol error fails it.
      expect(await sdk.sumsBy('mcp.server.task.transitions', 'mcp.task.status')).toEqual({ working: 3, completed: 2, failed: 1 })
      // One flush per request (three calls, and the polls) and one per run.
      const requests = sdk.spans().filter((s) => s.kind === SpanKind.SERVER).length
      expect(flushed).toBe(requests + 3)
    } finally {
      await mcp.close()
      await sdk.shutdown()
    }
  })
})
