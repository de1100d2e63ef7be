/**
 * A task's run as a span of its own: INTERNAL, `execute_tool {tool}`, marked with how the run failed, and
 * flushed where the platform may freeze the instance once it has answered. Across processes:
 * test/otel/processes.test.ts.
 */
import { context, SpanKind, SpanStatusCode } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createFetchHandler, McpError, McpServer, tasks, ToolError } from '../../src/index.js'
import { openTelemetry } from '../../src/otel/index.js'
import { otelSdk } from '../helpers/otel.js'
import { taskClient } from '../helpers/tasks.js'

// What NodeSDK registers: without it nothing is active, and a task has no request to link back to.
beforeAll(() => void context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable()))
afterAll(() => context.disable())

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
      // A trace of its own, linked once to the request that made it (which it runs inside of, here).
      const made = sdk.spans().find((s) => s.name === 'tools/call fine')!
      expect(run('fine').spanContext().traceId).not.toBe(made.spanContext().traceId)
      expect(run('fine').links.map((l) => l.context.spanId)).toEqual([made.spanContext().spanId])
      // A tool error completes its task (with an isError result); a protocol error fails it.
      expect(await sdk.sumsBy('mcp.server.task.transitions', 'mcp.task.status')).toEqual({ working: 3, completed: 2, failed: 1 })
      expect(await sdk.descriptors()).toMatchObject({ 'mcp.server.task.transitions': { unit: '{task}', description: 'Tasks entering a status' } })
      // One flush per request (three calls, and the polls) and one per run.
      const requests = sdk.spans().filter((s) => s.kind === SpanKind.SERVER).length
      expect(flushed).toBe(requests + 3)
    } finally {
      await mcp.close()
      await sdk.shutdown()
    }
  })
})
