/**
 * Extensions are opt-in (README, "Serving"): a server that does not import tasks(), resumable(), sessions()
 * or bearerAuth() does not bundle them. Bundled here as wrangler does (esbuild, ESM, minified, names kept),
 * from the sources; what each bundle holds is read off esbuild's metafile.
 */
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { build } from 'esbuild'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '../..')

/** A bundle of `code` (a Worker module): the source files of src/ and adapters/ it holds code of, and its gzip size. */
async function bundled(code: string): Promise<{ files: string[]; gzip: number }> {
  const result = await build({
    stdin: { contents: code, resolveDir: ROOT, loader: 'ts' },
    bundle: true, minify: true, keepNames: true, format: 'esm', write: false, metafile: true, platform: 'neutral', logLevel: 'silent',
    conditions: ['workerd', 'worker', 'browser'], mainFields: ['module', 'main'], external: ['cloudflare:*', 'node:*'],
    alias: { 'mcp-edge/cloudflare': './adapters/cloudflare/index.ts', 'mcp-edge': './src/index.ts' },
  })
  const inputs = Object.values(result.metafile.outputs)[0]!.inputs
  const files = Object.entries(inputs).filter(([file, { bytesInOutput }]) => bytesInOutput > 0 && /^(src|adapters)\//.test(file)).map(([file]) => file)
  return { files, gzip: gzipSync(result.outputFiles[0]!.contents, { level: 9 }).byteLength }
}

const SERVER = "new McpServer({ name: 'm', version: '1' }).tool('echo', { description: 'e' }, () => 'echo')"
const MINIMAL = `import { McpServer } from 'mcp-edge'\nimport { createWorker } from 'mcp-edge/cloudflare'\nexport { McpHub } from 'mcp-edge/cloudflare'\nexport default createWorker(${SERVER})\n`

// Bundled once, for the two tests that read it.
let minimalBundle: ReturnType<typeof bundled> | undefined
const minimal = () => (minimalBundle ??= bundled(MINIMAL))

describe('opt-in extensions', () => {
  it('a minimal Worker bundles no tasks, resumable requests, 2025 sessions or authorization', { timeout: 30_000 }, async () => {
    const { files } = await minimal()
    expect(files).toContain('src/exchange/exchange.ts')
    expect(files.filter((f) => /^src\/(tasks|resumable|auth|http\/session)\/|^src\/exchange\/session-stream\.ts$/.test(f))).toEqual([])
  })

  it('each import brings its own in: tasks(), resumable(), sessions(), bearerAuth()', { timeout: 30_000 }, async () => {
    const { files } = await bundled(MINIMAL
      .replace("import { McpServer } from 'mcp-edge'", "import { bearerAuth, McpServer, resumable, sessions, tasks } from 'mcp-edge'")
      .replace(`createWorker(${SERVER})`, `createWorker(${SERVER}, { extensions: [tasks(), resumable()], sessions: sessions(), auth: bearerAuth({ resource: 'https://m.example/mcp', authorizationServers: ['https://as.example'] }) })`))
    expect(files).toEqual(expect.arrayContaining([
      'src/tasks/extension.ts', 'src/tasks/runner.ts', 'src/resumable/extension.ts', 'src/auth/gate.ts', 'src/http/session/routes.ts', 'src/exchange/session-stream.ts',
    ]))
  })

  // A ratchet, not a goal: the minimal Worker (32,759 bytes here; BENCHMARKS.md, "Workers bundle size and start-up",
  // says what it is made of) is what the protocol's default features cost, and code that makes every Worker larger
  // should raise this on purpose, saying why in its commit. Raised from 32 KiB by issue 45's hardening (+1,124 bytes
  // from 31,635: bodies counted per client with a time limit, telemetry names from the server's own, SSE backlog
  // weighed per run of writes, one hub socket per shard for a listener however many topics it follows).
  // Not under StrykerJS, whose instrumented sources are half again as large as what ships.
  it.skipIf(process.env.STRYKER_MUTATOR_WORKER !== undefined)('the minimal Worker stays within its size budget: 33 KiB gzip', { timeout: 30_000 }, async () => {
    const { gzip } = await minimal()
    expect(gzip).toBeLessThanOrEqual(33 * 1024)
  })
})
