/**
 * Generated requests against the fetch handler (test/fuzz/requests.ts): a few hundred per CI run, with the
 * seed in the failure so that it can be replayed; `npm run fuzz` runs 100,000. Then the same with
 * authorization on, each request with an Authorization header of a mix (test/fuzz/authorization.ts).
 */
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authorizationMix, type AuthMix } from './authorization.js'
import { fuzzTarget, problemWith, requests, stillAnswers, withAuthorization } from './requests.js'

const handler = fuzzTarget()
let mix: AuthMix
beforeAll(async () => {
  mix = await authorizationMix()
})
afterAll(() => Promise.all([handler.close(), mix?.close()]))

const runs = Number(process.env.FUZZ_RUNS ?? 300)

describe('generated requests', () => {
  it('are never answered 5xx, never hang, and leave the server answering', async () => {
    await fc.assert(fc.asyncProperty(requests, async (generated) => {
      expect(await problemWith(handler, generated)).toBeUndefined()
    }), { numRuns: runs })
    expect(await stillAnswers(handler)).toBe(true)
  }, 120_000)

  it('with authorization on and any Authorization header, are never answered 5xx, never hang, and the key set is not refetched for each', async () => {
    const guarded = fuzzTarget(mix.auth)
    const started = Date.now()
    try {
      await fc.assert(fc.asyncProperty(withAuthorization(requests, mix.headers), async (generated) => {
        expect(await problemWith(guarded, generated)).toBeUndefined()
      }), { numRuns: runs })
      expect(await stillAnswers(guarded, mix.valid)).toBe(true)
      expect(await stillAnswers(guarded)).toBe(false)
      // Forged kids and signatures may have the keys fetched again, but at most once per 30 s.
      expect(mix.jwksFetches()).toBeLessThanOrEqual(2 + Math.floor((Date.now() - started) / 30_000))
    } finally {
      await guarded.close()
    }
  }, 120_000)
})
