/**
 * Authorization: tools/call with a verified JWT (RS256, the key set cached after the first request) beside
 * the same server without authorization, in the same run. Goal: at least 85% of the unauthenticated throughput.
 *   npm run build && node --import tsx bench/auth.ts [--seconds 5] [--rounds 5] [--connections 32]
 */
import { parseArgs } from 'node:util'
import { startAuthServer } from '../test/helpers/auth-server.js'
import { freePort } from '../test/helpers/port.js'
import { ensureWrk, median, startServer, wrk, type Request, type Server, type WrkResult } from './load.js'
import { fmt, machine, writeSection } from './report.js'

const { values } = parseArgs({ options: {
  seconds: { type: 'string', default: '5' }, rounds: { type: 'string', default: '5' }, connections: { type: 'string', default: '32' },
} })
const SECONDS = Number(values.seconds)
const ROUNDS = Number(values.rounds)
const CONNECTIONS = Number(values.connections)
const ECHO: Request = { method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello world' } } }

ensureWrk()
const as = await startAuthServer()
const KINDS = ['none', 'jwt', 'uncached'] as const
type Kind = typeof KINDS[number]
/** A JWT-checking server on a port of its own, which its resource URL and token name. */
async function jwtServer(name: string, cachedTokens: number): Promise<{ server: Server; request: Request }> {
  const port = await freePort()
  const resource = `http://127.0.0.1:${port}/mcp`
  const server = await startServer(name, 'auth.mjs', [], { PORT: String(port), AUTH_ISSUER: as.issuer, AUTH_JWKS_URI: as.jwksUri, RESOURCE: resource, AUTH_CACHED_TOKENS: String(cachedTokens) })
  const token = await as.token(resource, { scope: 'mcp:read mcp:write' })
  return { server, request: { ...ECHO, headers: { Authorization: `Bearer ${token}` } } }
}
const setups: Record<Kind, { server: Server; request: Request }> = {
  none: { server: await startServer('no auth', 'auth.mjs', [], { PORT: '0' }), request: ECHO },
  jwt: await jwtServer('JWT', 1000),
  uncached: await jwtServer('JWT, nothing remembered', 0),
}
const runs: Record<Kind, WrkResult[]> = { none: [], jwt: [], uncached: [] }
const measure = (kind: Kind, seconds: number) => wrk(setups[kind].server.url, setups[kind].request, { seconds, connections: CONNECTIONS })
try {
  for (const kind of KINDS) await measure(kind, 1)
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [...KINDS].reverse() : KINDS
    for (const kind of order) {
      const result = await measure(kind, SECONDS)
      if (result.errors > 0) throw new Error(`${kind}: ${result.errors} failed requests`)
      runs[kind].push(result)
    }
  }
} finally {
  for (const kind of KINDS) await setups[kind].server.stop()
  await as.close()
}
const med = (rs: WrkResult[]) => ({ rps: median(rs.map((r) => r.rps)), p50: median(rs.map((r) => r.p50)), p99: median(rs.map((r) => r.p99)) })
const none = med(runs.none)
const jwt = med(runs.jwt)
const uncached = med(runs.uncached)
const ratio = jwt.rps / none.rps
console.log(`tools/call: no auth ${Math.round(none.rps)} req/s, verified JWT ${Math.round(jwt.rps)} req/s (${fmt(ratio * 100)}%), every request verified ${Math.round(uncached.rps)} req/s (${fmt((uncached.rps / none.rps) * 100)}%); key set fetched ${as.jwksFetches} time(s)`)
const row = (name: string, r: typeof none) => `| ${name} | ${Math.round(r.rps).toLocaleString('en')} | ${fmt((r.rps / none.rps) * 100)}% | ${fmt(r.p50, 2)} ms | ${fmt(r.p99, 2)} ms |`

writeSection('auth', `
## Authorization: tools/call with a verified JWT beside no authorization

\`npm run build && node --import tsx bench/auth.ts --seconds ${SECONDS} --rounds ${ROUNDS} --connections ${CONNECTIONS}\` on ${new Date().toISOString().slice(0, 10)}, ${machine()}.
Three \`serve()\` processes of an echo tool (pinned to core 0, measured one at a time): without \`auth\`; with
\`auth: { resource, verify: jwtVerifier({ issuer, jwksUri }) }\` against a local authorization server (RS256 key, one
token with \`aud\`, \`exp\` and two scopes sent on every request; the key set was fetched ${as.jwksFetches} times in the whole run,
once per process); and the same with \`cachedTokens: 0\`, where every request's signature is checked. wrk (1 thread,
${CONNECTIONS} connections, core 1), the three in turn, medians of ${ROUNDS} rounds of ${SECONDS} s.

| tools/call | req/s | of no authorization | p50 | p99 |
|---|---|---|---|---|
${row('no authorization', none)}
${row('verified JWT (remembered after the first request)', jwt)}
${row('verified JWT, signature checked every request', uncached)}

Goal: at least 85% of the unauthenticated throughput: **${fmt(ratio * 100)}%**.
`)
