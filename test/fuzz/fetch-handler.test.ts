/**
 * Generated requests against the fetch handler (test/fuzz/requests.ts): a few hundred per CI run, with the
 * seed in the failure so that it can be replayed; `npm run fuzz` runs 100,000.
 */
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { fuzzTarget, problemWith, requests, stillAnswers } from './requests.js'

const handler = fuzzTarget()
afterAll(() => handler.close())

describe('generated requests', () => {
  it('are never answered 5xx, never hang, and leave the server answering', async () => {
    await fc.assert(fc.asyncProperty(requests, async (generated) => {
      expect(await problemWith(handler, generated)).toBeUndefined()
    }), { numRuns: Number(process.env.FUZZ_RUNS ?? 300) })
    expect(await stillAnswers(handler)).toBe(true)
  }, 120_000)
})
