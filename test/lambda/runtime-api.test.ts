/**
 * The local Runtime API, spoken to as aws-lambda-ric speaks to it, in the orders the runtime client really
 * uses. A streaming function that throws has its error posted without being awaited, so the runtime asks for
 * the next invocation before (or while) that POST arrives: the answer must still reach the caller.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { startRuntimeApi, type RuntimeApi } from '../../adapters/lambda/local/runtime-api.js'

const BASE = '/2018-06-01/runtime'
let api: RuntimeApi | undefined
afterEach(() => api?.close())

const next = (address: string) => fetch(`http://${address}${BASE}/invocation/next`)

async function delivered(): Promise<{ api: RuntimeApi; id: string; invocation: ReturnType<RuntimeApi['invoke']> }> {
  api = await startRuntimeApi()
  const first = next(api.address)
  const invocation = api.invoke({ hello: 1 }, 5000)
  const res = await first
  expect(await res.json()).toEqual({ hello: 1 })
  return { api, id: res.headers.get('lambda-runtime-aws-request-id')!, invocation }
}

describe('the local Runtime API', () => {
  it('takes an error posted after the runtime asked for the next invocation', async () => {
    const { api, id, invocation } = await delivered()
    const waiting = next(api.address)
    await expect(invocation.ended).resolves.toBeGreaterThanOrEqual(0)
    expect(api.idle).toBe(true)
    const posted = await fetch(`http://${api.address}${BASE}/invocation/${id}/error`, { method: 'POST', body: '{"errorType":"Error","errorMessage":"not HTTP"}' })
    expect(posted.status).toBe(202)
    expect(await invocation.outcome).toEqual({ kind: 'error', payload: '{"errorType":"Error","errorMessage":"not HTTP"}' })
    // The next invocation goes to the poll that was waiting.
    api.invoke({ hello: 2 }, 5000)
    expect(await (await waiting).json()).toEqual({ hello: 2 })
    expect(api.idle).toBe(false)
  })

  it('settles an answer that never came as failed when the environment dies', async () => {
    const { api, invocation } = await delivered()
    void next(api.address).catch(() => {})
    await invocation.ended
    api.fail('{"errorType":"Runtime.ExitError"}')
    expect(await invocation.outcome).toEqual({ kind: 'error', payload: '{"errorType":"Runtime.ExitError"}' })
  })

  it('refuses a POST for an id it never handed out', async () => {
    const { api } = await delivered()
    expect((await fetch(`http://${api.address}${BASE}/invocation/nope/response`, { method: 'POST', body: '{}' })).status).toBe(404)
  })
})
