/**
 * OpenTelemetry under the real Lambda runtime client: the request's span, parented by the `_meta` trace
 * context, leaves the function before the invocation ends (the environment may be frozen right after).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFunction, type LocalFunction } from '../helpers/lambda.js'
import { otlpReceiver, type OtlpReceiver } from '../helpers/otel.js'
import { META_2026, rpc } from '../helpers/server.js'

let fn: LocalFunction
let otlp: OtlpReceiver
const ended: string[] = []

beforeAll(async () => {
  otlp = await otlpReceiver()
  fn = await startFunction('test/lambda/otel-fixture.ts', 'otel', {
    instances: 1, maxInstances: 1, env: { OTLP_URL: otlp.url },
    // What had arrived when each invocation ended.
    onReport: () => void ended.push(otlp.spans.map((s) => s.name).join(',')),
  })
}, 60_000)
afterAll(async () => {
  await fn?.close()
  await otlp?.close()
})

describe('Lambda with telemetry', () => {
  it('sends the request\'s span before the invocation ends', async () => {
    const traceparent = '00-6e0c63257de34c92bf9efcd03927272e-2b7e1f0a1c3d4e5f-01'
    const { body } = await rpc(fetch, 'tools/call', { name: 'echo', arguments: {}, _meta: { ...META_2026(), traceparent } }, { url: fn.url })
    expect(body.result.content[0].text).toBe('echo')
    await expect.poll(() => ended.length).toBe(1)
    expect(ended).toEqual(['tools/call echo'])
    expect(otlp.spans[0]).toMatchObject({ traceId: '6e0c63257de34c92bf9efcd03927272e', parentSpanId: '2b7e1f0a1c3d4e5f', kind: 2 })
  })
})
