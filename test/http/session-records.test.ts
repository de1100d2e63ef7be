/**
 * What a 2025 session remembers, as compare-and-set transitions on the real memory store: changes racing on
 * other instances all land, an ended session is never brought back, a full store refuses.
 */
import { describe, expect, it } from 'vitest'
import { memoryTaskStore, StoreFull, type TaskRecord } from '../../src/index.js'
import { change, ended, levelSet, recordId, stateOf, subscribed, type SessionLimits } from '../../src/http/session/records.js'
import type { SessionClaims } from '../../src/http/session/token.js'

const LIMITS: SessionLimits = { maxSubscriptions: 10, maxSubscriptionChars: 1000, perClient: 10, total: 100 }
const claims = (key: string): SessionClaims => ({ key, principal: 'alice', expiresAt: Date.now() + 60_000, client: { capabilities: {} } })

describe('session records', () => {
  it('a change that started from a record another instance has changed since is applied over the newer one', async () => {
    const store = memoryTaskStore()
    const session = claims('stale')
    await change(store, session, subscribed('a://1', true), LIMITS, undefined)
    const known = { record: await store.get(recordId('stale')) }
    // Another instance subscribes meanwhile.
    await change(store, session, subscribed('a://2', true), LIMITS, undefined)
    const after = await change(store, session, levelSet('debug'), LIMITS, undefined, known)
    expect(after).toEqual({ ended: false, logLevel: 'debug', subscriptions: ['a://1', 'a://2'] })
    expect(known.record!.version).toBe(3)
    expect(stateOf(await store.get(recordId('stale')))).toEqual(after)
  })

  it('changes racing to make the first record both land: the one that lost the create changes what the other made', async () => {
    const store = memoryTaskStore()
    const session = claims('race')
    await Promise.all([change(store, session, levelSet('info'), LIMITS, undefined), change(store, session, subscribed('a://1', true), LIMITS, undefined)])
    const record = await store.get(recordId('race'))
    expect(stateOf(record)).toEqual({ ended: false, logLevel: 'info', subscriptions: ['a://1'] })
    expect(record).toMatchObject({ owner: 'alice', version: 2, status: 'working', expiresAt: session.expiresAt })
  })

  it('an ended session stays ended: a later change writes nothing', async () => {
    const store = memoryTaskStore()
    const session = claims('gone')
    await change(store, session, ended, LIMITS, undefined)
    const record = await store.get(recordId('gone'))
    expect(record).toMatchObject({ status: 'cancelled', version: 1 })
    expect(await change(store, session, subscribed('a://1', true), LIMITS, undefined)).toMatchObject({ ended: true, subscriptions: [] })
    expect((await store.get(recordId('gone')))!.version).toBe(1)
  })

  it('a full store refuses the first record of a session (StoreFull, for the caller to answer 429 or 503)', async () => {
    const store = memoryTaskStore()
    const full = { ...LIMITS, perClient: 1 }
    await change(store, claims('one'), levelSet('info'), full, 'client-a')
    await expect(change(store, claims('two'), levelSet('info'), full, 'client-a')).rejects.toBeInstanceOf(StoreFull)
  })

  it('reads a stored record defensively: what is not a level or a URI is left out', () => {
    const record = { id: 'x', status: 'working', work: { session: { level: 'loud', subscriptions: ['a://1', 7, null, 'a://2'] } } } as unknown as TaskRecord
    expect(stateOf(record)).toEqual({ ended: false, logLevel: undefined, subscriptions: ['a://1', 'a://2'] })
    expect(stateOf({ ...record, work: { session: { subscriptions: 'a://1' } } })).toEqual({ ended: false, logLevel: undefined, subscriptions: [] })
    expect(stateOf({ ...record, work: { tool: 'not a session' } })).toEqual({ ended: false, logLevel: undefined, subscriptions: [] })
    expect(stateOf(undefined)).toEqual({ ended: false, logLevel: undefined, subscriptions: [] })
  })
})
