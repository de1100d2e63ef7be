/**
 * Resumable requests on Node as `npm start` runs the everything server: one process keeping them in memory,
 * and two processes sharing Redis, where a call left on one is resumed on the other.
 */
import { afterAll, beforeAll, describe } from 'vitest'
import { startEverythingProcess, type EverythingProcess } from '../helpers/everything-process.js'
import { REDIS_URL } from '../helpers/redis.js'
import { resumableChecks } from '../helpers/resumable-checks.js'

let alone: EverythingProcess
let shared: EverythingProcess[]
beforeAll(async () => {
  const redis = { REDIS_URL, REDIS_PREFIX: `resumable-${crypto.randomUUID()}:` }
  ;[alone, ...shared] = await Promise.all([startEverythingProcess({}), startEverythingProcess(redis), startEverythingProcess(redis)])
}, 30_000)
afterAll(async () => {
  await Promise.all([alone, ...shared].map((p) => p?.stop()))
})

describe('npm start, in memory', () => {
  resumableChecks(() => [alone.url, alone.url])
})

describe('npm start, two processes sharing Redis', () => {
  resumableChecks(() => [shared[0]!.url, shared[1]!.url])
})
