/**
 * A setup file of the node project under StrykerJS only (vitest.config.ts): it lets mutants reach the
 * processes tests start (npm start, stdio children, the Lambda runtime client), which run the sandbox's
 * instrumented sources through tsx or a bundle built from them.
 *
 * - Mutant runs: the active mutant goes to children in __STRYKER_ACTIVE_MUTANT__, which instrumented code
 *   reads when nothing in its own process set one. Children get process.env (test/helpers spawn with it).
 * - The coverage run: children preload test/setup/child-coverage.mjs, which writes the mutants they reach to
 *   a directory of this file's own; after each test, what they reached since the last test is counted for
 *   that test, so StrykerJS runs it against those mutants instead of leaving them uncovered.
 *
 * StrykerJS's own setup file comes first, and after-hooks run in reverse ("stack"), so its current test id
 * is still set in this file's afterEach and its afterAll reads the coverage this file adds.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll } from 'vitest'

type Counts = Record<string, number>
interface Namespace {
  activeMutant?: string | number
  currentTestId?: string
  mutantCoverage?: { static: Counts; perTest: Record<string, Counts> }
}
const ns = ((globalThis as { __stryker__?: Namespace }).__stryker__ ??= {})
const PRELOAD = new URL('./child-coverage.mjs', import.meta.url).pathname
const ORPHAN_WATCH = new URL('./orphan-watch.mjs', import.meta.url).pathname
// Longer than the preload's 25 ms interval: a child's last counts are on disk before they are read.
const SETTLE_MS = 60

let dir: string | undefined
// What each child had reached when last read, so each test is credited only with what is new.
const seen = new Map<string, Counts>()
let lastTest: string | undefined

beforeAll(() => {
  if (!process.env.NODE_OPTIONS?.includes(ORPHAN_WATCH)) process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --import ${ORPHAN_WATCH}`.trim()
  if (ns.activeMutant !== undefined) {
    process.env.__STRYKER_ACTIVE_MUTANT__ = String(ns.activeMutant)
    return
  }
  delete process.env.__STRYKER_ACTIVE_MUTANT__
  dir = mkdtempSync(join(tmpdir(), 'mcp-edge-child-coverage-'))
  process.env.MCP_EDGE_CHILD_COVERAGE = dir
  process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS} --import ${PRELOAD}`
})

afterEach(async () => {
  lastTest = ns.currentTestId ?? lastTest
  if (lastTest !== undefined) await credit(lastTest)
})

afterAll(async () => {
  // What children reached while stopping, after the last test: that test started them, or shared them.
  if (lastTest !== undefined) await credit(lastTest)
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
})

async function credit(testId: string): Promise<void> {
  if (dir === undefined) return
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'))
  if (files.length === 0) return
  await new Promise((r) => setTimeout(r, SETTLE_MS))
  const coverage = (ns.mutantCoverage ??= { static: {}, perTest: {} })
  const forTest = (coverage.perTest[testId] ??= {})
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    const now = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Counts
    const before = seen.get(file) ?? {}
    for (const [mutant, count] of Object.entries(now)) {
      if (count > (before[mutant] ?? 0)) forTest[mutant] = (forTest[mutant] ?? 0) + count - (before[mutant] ?? 0)
    }
    seen.set(file, now)
  }
}
