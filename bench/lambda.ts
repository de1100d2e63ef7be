/**
 * AWS Lambda: bundle size, cold start under the real runtime client (aws-lambda-ric) and warm tools/call
 * through the local function URL, for a minimal server on mcp-edge and the same server on the official SDK
 * v2, next to a function with no server at all. Each is bundled the same way (template.yaml's esbuild build,
 * scripts/build-lambda.ts).
 *   node --import tsx bench/lambda.ts [--runs 10] [--seconds 5]
 */
import { execFileSync, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { gzipSync } from 'node:zlib'
import { buildLambda } from '../scripts/build-lambda.js'
import { startFunctionUrl } from '../adapters/lambda/local/function-url.js'
import { startRuntimeApi } from '../adapters/lambda/local/runtime-api.js'
import { runtimeClient, spawnRuntime } from '../adapters/lambda/local/runtime.js'
import { bodyFor, ensureWrk, headersFor, median, wrk } from './load.js'
import { fmt, machine, writeSection } from './report.js'

const { values } = parseArgs({ options: { runs: { type: 'string', default: '10' }, seconds: { type: 'string', default: '5' } } })
const RUNS = Number(values.runs)
const SECONDS = Number(values.seconds)

const FUNCTIONS = [
  { name: 'no server (baseline)', entry: 'empty.ts' },
  { name: 'mcp-edge, JSON Schema input', entry: 'edge.ts' },
  { name: 'SDK v2 (createMcpHandler), zod input', entry: 'sdk.ts' },
]
const call = { method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }

/** The tools/call as a function URL's payload-2.0 event. */
const event = {
  version: '2.0', routeKey: '$default', rawPath: '/mcp', rawQueryString: '',
  headers: { ...Object.fromEntries(Object.entries(headersFor(call)).map(([k, v]) => [k.toLowerCase(), v])), host: 'localhost' },
  requestContext: { domainName: 'localhost', http: { method: 'POST', path: '/mcp' } },
  body: bodyFor(call), isBase64Encoded: false,
}

/** A new runtime process to its first poll (runtime client and module loaded) and to its first answer. */
async function coldStart(root: string, handler: string, empty: boolean): Promise<{ init: number; answer: number }> {
  let child: ChildProcess | undefined
  // The Runtime API answers that process alone (adapters/lambda/local/peer.ts).
  const api = await startRuntimeApi(() => child?.pid)
  const invocation = api.invoke(event, 30_000)
  const t = performance.now()
  child = spawnRuntime(runtimeClient(root), root, handler, api.address)
  child.stdout?.resume()
  child.stderr?.resume()
  await api.ready
  const init = performance.now() - t
  const outcome = await invocation.outcome
  if (outcome.kind !== 'stream') throw new Error(`unexpected outcome: ${JSON.stringify(outcome)}`)
  let text = ''
  for await (const chunk of outcome.body) text += chunk
  const answer = performance.now() - t
  if (!(empty ? text.endsWith('ok') : text.includes('"hi"'))) throw new Error(`unexpected answer: ${text.slice(0, 300)}`)
  await new Promise((resolve) => (child.once('exit', resolve), child.kill('SIGKILL')))
  await api.close()
  return { init, answer }
}

execFileSync('scripts/lambda-ric.sh', { stdio: 'inherit' })
ensureWrk()
const built = await Promise.all(FUNCTIONS.map(async (f) => {
  const { dir, file, handler } = await buildLambda(`dist/lambda/bench-${f.entry.replace('.ts', '')}`, { entry: `bench/lambda/${f.entry}` })
  const code = readFileSync(file)
  return { ...f, root: dir, handler, raw: code.byteLength, gzip: gzipSync(code, { level: 9 }).byteLength }
}))

const cold = new Map(built.map((f) => [f.name, { init: [] as number[], answer: [] as number[] }]))
for (let run = 0; run < RUNS; run++) {
  for (const f of built) {
    const { init, answer } = await coldStart(f.root, f.handler, f.entry === 'empty.ts')
    cold.get(f.name)!.init.push(init)
    cold.get(f.name)!.answer.push(answer)
  }
}

const warm = new Map<string, Awaited<ReturnType<typeof wrk>>>()
for (const f of built.filter((f) => f.entry !== 'empty.ts')) {
  const fn = await startFunctionUrl({ root: f.root, handler: f.handler, port: 0, instances: 1, maxInstances: 1, holdBytes: 0, log: () => {} })
  await fetch(fn.url, { method: 'POST', headers: headersFor(call), body: bodyFor(call) })
  warm.set(f.name, await wrk(fn.url, call, { seconds: SECONDS, connections: 1 }))
  await fn.close()
}

const base = median(cold.get(FUNCTIONS[0]!.name)!.init)
const initOf = (name: string) => median(cold.get(name)!.init) - base
const edge = FUNCTIONS[1]!.name
const sdk = FUNCTIONS[2]!.name
const rows = built.map((f) => {
  const c = cold.get(f.name)!
  const w = warm.get(f.name)
  return `| ${f.name} | ${fmt(f.raw / 1024)} KB | ${fmt(f.gzip / 1024)} KB | ${fmt(median(c.init))} ms | ${f.entry === 'empty.ts' ? '—' : `${fmt(initOf(f.name))} ms`} | ${fmt(median(c.answer))} ms | ${w ? `${fmt(w.rps, 0)} req/s, p50 ${fmt(w.p50, 2)} ms` : '—'} |`
})

const body = `## AWS Lambda: bundle, cold start under the runtime client, warm tools/call

\`node --import tsx bench/lambda.ts --runs ${RUNS} --seconds ${SECONDS}\` on ${new Date().toISOString().slice(0, 10)}, ${machine()}.
One minimal server (one \`echo\` tool) on mcp-edge (\`createLambdaHandler\`) and on the official SDK v2 (\`createMcpHandler\`,
given the same event-to-Request plumbing and response pump), beside a streaming function with no server. Each is one
ES module bundled by esbuild (minified, dependencies included) as \`sam build\` does with template.yaml. Cold start: a new
\`aws-lambda-ric\` process (with its native client) against a local Runtime API that already holds a tools/call
invocation; *first poll* is process start until the runtime client, its handler module loaded, asks for work;
*module init* is that less the baseline's (what loading the server costs); *first answer* is process start until
the whole response has arrived. Medians of ${RUNS} runs, contenders in turn. Warm: tools/call through the local
function URL (one runtime process, as one Lambda instance serves one request at a time), wrk with one connection for
${SECONDS} s.

| function | bundle | gzip | first poll | module init | first answer | warm tools/call |
|---|---|---|---|---|---|---|
${rows.join('\n')}

mcp-edge's module init is **${fmt(initOf(edge) / initOf(sdk) * 100, 0)}%** of the SDK v2's (${fmt(initOf(edge))} ms against ${fmt(initOf(sdk))} ms;
goal: at most a third), its bundle ${fmt(built[1]!.gzip / built[2]!.gzip * 100, 0)}% of the SDK's (gzip), and its warm tools/call
${fmt(warm.get(edge)!.rps / warm.get(sdk)!.rps, 2)}× the SDK's requests per second; both warm figures include the local front end and Runtime API, a few
milliseconds a request. On AWS, CPU scales with the function's memory setting; these ran on the machine above.`

console.log(body)
writeSection('lambda', body)
