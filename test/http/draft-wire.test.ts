/** The seed draft's wire on Node as `npm start` runs the everything server (test/helpers/draft-checks.ts). */
import { afterAll, beforeAll, describe } from 'vitest'
import { draftWireChecks } from '../helpers/draft-checks.js'
import { startEverythingProcess, type EverythingProcess } from '../helpers/everything-process.js'

let server: EverythingProcess
beforeAll(async () => {
  server = await startEverythingProcess({})
}, 30_000)
afterAll(() => server?.stop())

describe('npm start: DRAFT-2026-v1 clients', () => {
  draftWireChecks(() => server.url)
})
