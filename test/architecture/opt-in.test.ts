/**
 * Extensions are opt-in (README, "Serving"): a server that does not import tasks(), resumable(), sessions()
 * or bearerAuth() does not bundle them. Bundled here as wrangler does (esbuild, ESM, minified), from the
 * sources; what each bundle holds is read off esbuild's metafile.
 */
import { join } from 'node:path'
import { build } from 'esbuild'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '../..')

/** The source files of src/ and adapters/ a bundle of `code` (a Worker module) holds code of. */
async function bundled(code: string): Promise<string[]> {
  const result = await build({
    stdin: { contents: code, resolveDir: ROOT, loader: 'ts' },
    bundle: true, minify: true, format: 'esm', write: false, metafile: true, platform: 'neutral', logLevel: 'silent',
    conditions: ['workerd', 'worker', 'browser'], mainFields: ['module', 'main'], external: ['cloudflare:*', 'node:*'],
    alias: { 'mcp-edge/cloudflare': './adapters/cloudflare/index.ts', 'mcp-edge': './src/index.ts' },
  })
  const inputs = Object.values(result.metafile.outputs)[0]!.inputs
  return Object.entries(inputs).filter(([file, { bytesInOutput }]) => bytesInOutput > 0 && /^(src|adapters)\//.test(file)).map(([file]) => file)
}

const SERVER = "new McpServer({ name: 'm', version: '1' }).tool('echo', { description: 'e' }, () => 'echo')"
const MINIMAL = `import { McpServer } from 'mcp-edge'\nimport { createWorker } from 'mcp-edge/cloudflare'\nexport { McpHub } from 'mcp-edge/cloudflare'\nexport default createWorker(${SERVER})\n`

describe('opt-in extensions', () => {
  it('a minimal Worker bundles no tasks, resumable requests, 2025 sessions or authorization', { timeout: 30_000 }, async () => {
    const files = await bundled(MINIMAL)
    expect(files).toContain('src/exchange/exchange.ts')
    expect(files.filter((f) => /^src\/(tasks|resumable|auth|http\/session)\/|^src\/exchange\/session-stream\.ts$/.test(f))).toEqual([])
  })

  it('each import brings its own in: tasks(), resumable(), sessions(), bearerAuth()', { timeout: 30_000 }, async () => {
    const files = await bundled(MINIMAL
      .replace("import { McpServer } from 'mcp-edge'", "import { bearerAuth, McpServer, resumable, sessions, tasks } from 'mcp-edge'")
      .replace(`createWorker(${SERVER})`, `createWorker(${SERVER}, { extensions: [tasks(), resumable()], sessions: sessions(), auth: bearerAuth({ resource: 'https://m.example/mcp', authorizationServers: ['https://as.example'] }) })`))
    expect(files).toEqual(expect.arrayContaining([
      'src/tasks/extension.ts', 'src/tasks/runner.ts', 'src/resumable/extension.ts', 'src/auth/gate.ts', 'src/http/session/routes.ts', 'src/exchange/session-stream.ts',
    ]))
  })
})
