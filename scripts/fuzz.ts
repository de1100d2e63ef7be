/**
 * `npm run fuzz`: 100,000 generated requests (test/fuzz/requests.ts) against one fetch handler of the
 * everything server; prints how they were answered, any 5xx, hang or malformed JSON, and whether the server
 * still answers a plain call afterwards. Exits 1 on any problem.
 *   npm run fuzz -- [--runs 100000] [--seed N]
 */
import { parseArgs } from 'node:util'
import fc from 'fast-check'
import { fuzzTarget, problemWith, requests, stillAnswers } from '../test/fuzz/requests.js'

const { values } = parseArgs({ options: { runs: { type: 'string', default: '100000' }, seed: { type: 'string' } } })
const runs = Number(values.runs)
const seed = values.seed === undefined ? Date.now() : Number(values.seed)
const handler = fuzzTarget()
const statuses = new Map<number, number>()
const problems: string[] = []
const started = performance.now()

// Each request is answered and counted in turn; the status is read from the handler's own answer.
const counting = Object.assign(async (request: Request) => {
  const res = await handler(request)
  statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
  return res
}, { ...handler })

await fc.assert(fc.asyncProperty(requests, async (generated) => {
  const problem = await problemWith(counting, generated)
  if (problem) problems.push(problem)
  return true
}), { numRuns: runs, seed })

const alive = await stillAnswers(handler)
await handler.close()
const seconds = (performance.now() - started) / 1000
const histogram = [...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`).join(', ')
console.log(`${runs} generated requests (seed ${seed}) in ${seconds.toFixed(1)} s; statuses ${histogram}`)
console.log(`5xx or hangs or malformed JSON: ${problems.length}; the server still answers: ${alive ? 'yes' : 'NO'}`)
for (const p of problems.slice(0, 10)) console.log(`  ${p.split('\n')[0]}`)
process.exit(problems.length === 0 && alive ? 0 : 1)
