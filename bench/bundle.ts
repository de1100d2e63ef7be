/**
 * Workers bundle size (as `wrangler deploy` would upload it, minified) and start-up time in workerd, for a
 * minimal server on mcp-edge in the README's deploy shape (createWorker, McpHub exported and bound) and the
 * same server on the official SDK v2, next to an empty Worker.
 *   node --import tsx bench/bundle.ts [--runs 10]
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { gzipSync } from 'node:zlib'
import { Miniflare } from 'miniflare'
import { bodyFor, headersFor, median } from './load.js'
import { fmt, machine, writeSection } from './report.js'

const { values } = parseArgs({ options: { runs: { type: 'string', default: '10' } } })
const RUNS = Number(values.runs)
// The start-up runs use the bundling config's date and flags, so that both halves measure one Worker.
const CONFIG = readFileSync('bench/workers/wrangler.toml', 'utf8')
const COMPAT = { compatibilityDate: /^compatibility_date = "([^"]+)"/m.exec(CONFIG)![1]!, compatibilityFlags: ['enable_request_signal'] }

const WORKERS = [
  { name: 'empty Worker (baseline)', entry: 'empty.ts' },
  { name: 'mcp-edge + McpHub, JSON Schema input', entry: 'edge.ts' },
  { name: 'mcp-edge + McpHub, zod input', entry: 'edge-zod.ts' },
  { name: 'SDK v2 (createMcpHandler), zod input', entry: 'sdk.ts' },
]
// The versions wrangler runs (package.json pins miniflare to wrangler's, so start-up runs on the same workerd);
// another workerd may be the one hoisted to node_modules.
const fromWrangler = createRequire(createRequire(import.meta.url).resolve('wrangler/package.json'))
const version = (name: string) => (JSON.parse(readFileSync(fromWrangler.resolve(`${name}/package.json`), 'utf8')) as { version: string }).version

function build(entry: string) {
  const out = mkdtempSync(join(tmpdir(), 'mcp-bundle-'))
  // An explicit config: otherwise wrangler would find the repository's wrangler.toml (the everything Worker).
  const log = execFileSync('./node_modules/.bin/wrangler', ['deploy', '--dry-run', '--config', 'bench/workers/wrangler.toml', '--outdir', out, `--metafile=${join(out, 'meta.json')}`, `bench/workers/${entry}`], {
    env: { ...process.env, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false' },
    encoding: 'utf8',
  })
  const file = join(out, readdirSync(out).find((f) => f.endsWith('.js'))!)
  const code = readFileSync(file)
  if (!/Total Upload/.test(log)) throw new Error(`wrangler did not bundle ${entry}: ${log}`)
  const meta = JSON.parse(readFileSync(join(out, 'meta.json'), 'utf8')) as { outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }> }
  const inputs = Object.entries(Object.values(meta.outputs).find((o) => Object.keys(o.inputs).length > 0)!.inputs)
  return { file, raw: code.byteLength, gzip: gzipSync(code, { level: 9 }).byteLength, inputs: inputs.map(([path, { bytesInOutput }]) => ({ path, bytes: bytesInOutput })) }
}

// What the minimal Worker's code is made of, by feature (its modules as wrangler's metafile counts them, minified);
// the first part that matches a module's path takes it.
const PARTS: [string, RegExp][] = [
  ['JSON Schema validator (tool input and output)', /src\/server\/json-schema\//],
  ['input requests (MRTR rounds, sealed requestState)', /src\/exchange\/(input|request-state|encrypted-state)\./],
  ['listen streams', /src\/exchange\/(listen|open-streams)\./],
  ['resources, prompts, completion', /src\/exchange\/methods\/(resources|prompts|completion)\.|src\/server\/uri-template\./],
  ['fan-out: McpHub, relays, backplane', /adapters\/cloudflare\/(hub|hub-tree|backplane)\.|src\/state\/backplane\./],
  ['Durable Object helpers: task store, used states, shared secret', /adapters\/cloudflare\/(task-store|used-states|shared-secret)\.|src\/state\/(tasks|used-states)\./],
  ['HTTP: handler, body, SSE, security, statuses', /src\/http\//],
  ['the rest: exchange core, definition, protocol, createWorker, the Worker module', /./],
]

const call = { method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }

/** From a new workerd to the first answer of a tools/call (of anything, for the empty Worker). */
async function startUp(file: string, entry: string): Promise<number> {
  const empty = entry === 'empty.ts'
  const hub = entry.startsWith('edge')
  const t = performance.now()
  const mf = new Miniflare({ workers: [{ config: {
    name: 'bench', ...COMPAT,
    manifest: { mainModule: 'worker.js', modules: { 'worker.js': { type: 'esm', contents: readFileSync(file, 'utf8') } } },
    env: {
      MCP_REQUEST_STATE_SECRET: { type: 'text', value: 'bench-secret-0123456789abcdef0123456789' },
      // As deployed: the hub bound (a binding costs nothing until a listen or a publish uses it).
      ...(hub ? { MCP_HUB: { type: 'durable-object', worker: 'bench', exportName: 'McpHub' } } : {}),
    },
    ...(hub ? { exports: { McpHub: { type: 'durable-object', storage: 'sqlite' } } } : {}),
  } }] })
  const res = await mf.dispatchFetch('http://localhost/mcp', { method: 'POST', headers: headersFor(call), body: bodyFor(call) })
  const text = await res.text()
  const ms = performance.now() - t
  await mf.dispose()
  if (!res.ok || (empty ? text !== 'ok' : !text.includes('"hi"'))) throw new Error(`unexpected answer: ${res.status} ${text.slice(0, 200)}`)
  return ms
}

const built = WORKERS.map((w) => ({ ...w, ...build(w.entry) }))
const times = new Map<string, number[]>(built.map((w) => [w.name, []]))
for (let run = 0; run < RUNS; run++) for (const w of built) times.get(w.name)!.push(await startUp(w.file, w.entry))

const baseline = median(times.get(WORKERS[0]!.name)!)
const sdk = built.find((w) => w.entry === 'sdk.ts')!
const rows = built.map((w) => {
  const t = median(times.get(w.name)!)
  const ratio = w.entry === 'empty.ts' || w.entry === 'sdk.ts' ? '' : `${fmt((100 * w.gzip) / sdk.gzip, 1)}% of the SDK's`
  return `| ${w.name} | ${fmt(w.raw / 1024)} KiB | ${fmt(w.gzip / 1024)} KiB | ${ratio} | ${fmt(t)} ms | ${w.entry === 'empty.ts' ? '' : `${fmt(t - baseline)} ms`} |`
})
for (const r of rows) console.log(r)

const minimal = built.find((w) => w.entry === 'edge.ts')!
const sums = PARTS.map(() => 0)
for (const i of minimal.inputs) sums[PARTS.findIndex(([, pattern]) => pattern.test(i.path))]! += i.bytes
const parts = PARTS.map(([name], k) => `| ${name} | ${fmt(sums[k]! / 1024)} KiB | ${fmt((100 * sums[k]!) / minimal.raw)}% |`)
for (const p of parts) console.log(p)

writeSection('bundle', `
## Workers bundle size and start-up

\`node --import tsx bench/bundle.ts --runs ${RUNS}\` on ${new Date().toISOString().slice(0, 10)}, ${machine()}, wrangler ${version('wrangler')}, workerd ${version('workerd')}.
The mcp-edge Workers have the README's deploy shape: \`export default createWorker(server)\` and \`export { McpHub }\` (the
fan-out Durable Object, bound as MCP_HUB), with one tool. Each Worker in \`bench/workers/\` is bundled by \`wrangler deploy --dry-run\` with \`minify = true\` (what a deploy uploads;
gzip -9 of it, which matches wrangler's own "Total Upload … gzip" figure within 0.1 KiB). Start-up: a new workerd (Miniflare) loads the bundle and answers one \`tools/call\`; median of ${RUNS}
runs, workers alternating; the last column subtracts the empty Worker's time, which leaves module loading and the first request.

| Worker | raw | gzip | gzip vs SDK | new workerd to first answer | minus empty Worker |
|---|---|---|---|---|---|
${rows.join('\n')}

All four are built with the same settings (\`bench/workers/wrangler.toml\`: wrangler's defaults plus \`minify\`), and every
start-up run checks the answer. Cold start under the Lambda runtime client is in the AWS Lambda section.

What the minimal mcp-edge Worker's ${fmt(minimal.raw / 1024)} KiB are made of (its modules' minified bytes, as wrangler's metafile counts them):

| part | raw | of the bundle |
|---|---|---|
${parts.join('\n')}

Tasks, resumable requests, 2025 sessions and authorization are in none of it: each is bundled only where imported
(\`test/architecture/opt-in.test.ts\`, which also holds the minimal Worker to a 32 KiB gzip budget).
`)
