/**
 * A 2025 session ended (DELETE) with the memory store, across a restart of the server process: the record of
 * its end is gone with the process, so the restart starts a new session epoch and refuses every id sealed
 * before it (src/http/session/epoch.ts). What the memory store can promise: a restart ends every session.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { startEverythingProcess, type EverythingProcess } from '../helpers/everything-process.js'
import { endSession, inSession, openSession } from '../helpers/session-client.js'

// The same secret before and after: the ids still verify, and only the epoch tells them apart. No Redis (the
// run's REDIS_URL would be inherited): the memory store.
const ENV = { MCP_REQUEST_STATE_SECRET: 'restart-secret-0123456789abcdefghij', REDIS_URL: '', REDIS_CLUSTER_NODES: '' }
let server: EverythingProcess | undefined
afterEach(() => server?.stop())

describe('2025 sessions on the memory store, across a restart', () => {
  it('a deleted session stays refused, and so is every other: the client initializes again', async () => {
    server = await startEverythingProcess(ENV)
    const deleted = await openSession(server.url)
    const kept = await openSession(server.url)
    expect(await endSession(server.url, deleted)).toBe(204)
    expect([await inSession(server.url, deleted), await inSession(server.url, kept)]).toEqual([404, 200])

    await server.stop()
    server = await startEverythingProcess(ENV)
    expect(await inSession(server.url, deleted)).toBe(404)
    expect(await inSession(server.url, kept)).toBe(404)
    const fresh = await openSession(server.url)
    expect(await inSession(server.url, fresh)).toBe(200)
  })
})
