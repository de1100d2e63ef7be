/**
 * The local Runtime API, spoken to as aws-lambda-ric speaks to it, in the orders the runtime client really
 * uses. A streaming function that throws has its error posted without being awaited, so the runtime asks for
 * the next invocation before (or while) that POST arrives: the answer must still reach the caller.
 */
import { request } from 'node:http'
import { afterEach, describe, expect, it } from 'vitest'
import { startRuntimeApi, type RuntimeApi } from '../../adapters/lambda/local/runtime-api.js'
import { pollElsewhere } from '../helpers/runtime-poll.js'

const BASE = '/2018-06-01/runtime'
let api: RuntimeApi | undefined
afterEach(() => api?.close())

const next = (address: string) => fetch(`http://${address}${BASE}/invocation/next`)

async function delivered(): Promise<{ api: RuntimeApi; id: string; invocation: ReturnType<RuntimeApi['invoke']> }> {
  // This process stands for the runtime process: the API answers it alone.
  api = await startRuntimeApi(() => process.pid)
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

/** A GET from this process, naming `host` as its Host. */
function getAs(address: string, path: string, host: string): Promise<number> {
  const [hostname, port] = address.split(':')
  return new Promise((resolve, reject) => {
    request({ hostname, port: Number(port), path, headers: { host } }, (res) => {
      res.resume()
      resolve(res.statusCode!)
    }).on('error', reject).end()
  })
}

describe('the local Runtime API\'s door', () => {
  it('refuses another process that polls it, and hands the invocation to its own', async () => {
    api = await startRuntimeApi(() => process.pid)
    const foreign = pollElsewhere(api.address)
    await foreign.sent
    const invocation = api.invoke({ headers: { authorization: 'Bearer secret-token' } }, 5000)
    try {
      expect(await foreign.answer).toEqual({ status: 403, body: '' })
    } finally {
      foreign.kill()
    }
    const own = await next(api.address)
    expect(own.status).toBe(200)
    expect(own.headers.get('lambda-runtime-aws-request-id')).toBe(invocation.id)
  })

  it('refuses its own process naming any Host but the address it hands out', async () => {
    api = await startRuntimeApi(() => process.pid)
    const port = api.address.split(':')[1]
    for (const host of [`localhost:${port}`, `evil.example:${port}`, '127.0.0.1', `127.0.0.1:${Number(port) + 1}`]) {
      expect(await getAs(api.address, `${BASE}/invocation/next`, host), host).toBe(403)
    }
    expect(await getAs(api.address, `${BASE}/init/error`, `evil.example:${port}`)).toBe(403)
  })

  it('refuses every connection while no process serves it', async () => {
    api = await startRuntimeApi(() => undefined)
    expect((await next(api.address)).status).toBe(403)
  })
})
