/**
 * `npm run fuzz`: 100,000 generated requests (test/fuzz/requests.ts) against one fetch handler of the
 * everything server; prints how they were answered, any 5xx, hang or malformed JSON, and whether the server
 * still answers a plain call afterwards. Exits 1 on any problem. With --auth, the handler has authorization
 * on (jwtVerifier against a local authorization server) and each request carries an Authorization header of
 * a mix (test/fuzz/authorization.ts): the answers are tallied by kind of header too.
 *   npm run fuzz -- [--runs 100000] [--seed N] [--auth]
 */
import { parseArgs } from 'node:util'
import fc from 'fast-check'
import { authorizationMix } from '../test/fuzz/authorization.js'
import { fuzzTarget, problemWith, requests, stillAnswers, withAuthorization } from '../test/fuzz/requests.js'

const { values } = parseArgs({ options: { runs: { type: 'string', default: '100000' }, seed: { type: 'string' }, auth: { type: 'boolean', default: false } } })
const runs = Number(values.runs)
const seed = values.seed === undefined ? Date.now() : Number(values.seed)
const mix = values.auth ? await authorizationMix() : undefined
const handler = fuzzTarget(mix?.auth)
const statuses = new Map<number, number>()
/** Statuses per kind of Authorization header, with --auth. */
const byKind = new Map<string, Map<number, number>>()
const problems: string[] = []
const started = performance.now()
const count = (tally: Map<number, number>, status: number) => tally.set(status, (tally.get(status) ?? 0) + 1)
const histogram = (tally: Map<number, number>) => [...tally].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`).join(', ')

// Each request is answered and counted in turn; the status is read from the handler's own answer.
let kind: string | undefined
const counting = Object.assign(async (request: Request) => {
  const res = await handler(request)
  count(statuses, res.status)
  if (kind !== undefined) count(byKind.get(kind) ?? byKind.set(kind, new Map()).get(kind)!, res.status)
  return res
}, { ...handler })

await fc.assert(fc.asyncProperty(mix ? withAuthorization(requests, mix.headers) : requests, async (generated) => {
  kind = generated.authorization
  const problem = await problemWith(counting, generated)
  if (problem) problems.push(`${kind === undefined ? '' : `[${kind}] `}${problem}`)
  return true
}), { numRuns: runs, seed })

const alive = await stillAnswers(handler, mix?.valid)
await handler.close()
const seconds = (performance.now() - started) / 1000
console.log(`${runs} generated requests${mix ? ' with authorization' : ''} (seed ${seed}) in ${seconds.toFixed(1)} s; statuses ${histogram(statuses)}`)
for (const [k, tally] of [...byKind].sort(([a], [b]) => a.localeCompare(b))) console.log(`  Authorization ${k}: ${histogram(tally)}`)
if (mix) console.log(`key set fetched ${mix.jwksFetches()} time(s)`)
console.log(`5xx or hangs or malformed JSON: ${problems.length}; the server still answers: ${alive ? 'yes' : 'NO'}`)
for (const p of problems.slice(0, 10)) console.log(`  ${p.split('\n')[0]}`)
await mix?.close()
process.exit(problems.length === 0 && alive ? 0 : 1)
