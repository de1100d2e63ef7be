/**
 * The package as a user gets it: `npm pack` (which builds), the tarball installed into an empty ESM project
 * whose tsconfig.json is what `tsc --init` writes, every ```ts block of README.md type-checked there by the
 * current TypeScript (7.x) and by 5.9, each with its own `tsc --init` defaults, then one tools/call through
 * the installed package in plain Node.
 *
 * README convention. Every ```ts block is a program of its own, checked with the imports it writes: with
 * Worker types (@cloudflare/workers-types) when it imports mcp-edge/cloudflare or names a Worker API, with
 * Node types otherwise. An HTML comment on the line before the fence changes that:
 *   <!-- consumer: continues -->  the block goes on from the previous checked block: the two are one program
 *   <!-- consumer: skip -->       the block is not a TypeScript program (a signature sketch): not checked
 * A block that stands on its own is best; skip is for what is not code.
 *
 * The @example of every documented declaration in the installed package's dist/**\/*.d.ts (what an editor
 * shows) is checked the same way, each a program of its own; and the declarations themselves with
 * skipLibCheck off, which `tsc --init` turns on: a type left dangling by stripInternal would pass unseen.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { COMPILERS, installPacked, run, type Compiler, type Consumer } from './install-packed.js'
import { docExamples } from './doc-examples.js'
import { readmeBlocks, type ReadmeBlock } from './readme-blocks.js'

// A block that must fail, per program: a check that passes everything (files left out, types not loaded)
// would make every README block look fine. TS2322 needs the types to load; without them it is TS2304.
const CANARY = {
  node: "export const canary: Buffer = 'not a Buffer'\n",
  workers: "export const canary: ExecutionContext = 'not a context'\n",
}

interface Diagnostic { file: string; line: number; column: number; code: string; message: string }

/** tsc --pretty false: `file(line,col): error TSnnnn: message`, then indented lines of the same message. */
function parseDiagnostics(output: string): { diagnostics: Diagnostic[]; other: string[] } {
  const diagnostics: Diagnostic[] = []
  const other: string[] = []
  for (const text of output.split('\n')) {
    const m = /^(.+?)\((\d+),(\d+)\): error (TS\d+): (.*)$/.exec(text)
    if (m) diagnostics.push({ file: m[1]!, line: Number(m[2]), column: Number(m[3]), code: m[4]!, message: m[5]! })
    else if (/^\s/.test(text) && diagnostics.length > 0) diagnostics.at(-1)!.message += `\n${text}`
    else if (text.trim() !== '') other.push(text)
  }
  return { diagnostics, other }
}

/** Where a block comes from, for messages and for its file's name. */
type Source = (block: ReadmeBlock) => { file: string; name: string }
const README: Source = (b) => ({ file: 'README.md', name: `readme-${b.line}` })

/** Type-checks blocks in one program; returns, per block that fails, its errors at their source's positions. */
async function typeCheck(consumer: Consumer, compiler: Compiler, blocks: ReadmeBlock[], types: 'node' | 'workers', source: Source = README): Promise<string[]> {
  const fileOf = (b: ReadmeBlock) => `blocks/${source(b).name}.ts`
  mkdirSync(join(consumer.dir, 'blocks'), { recursive: true })
  for (const b of blocks) writeFileSync(join(consumer.dir, fileOf(b)), `${b.code}\n`)
  const canary = `blocks/canary-${types}.ts`
  writeFileSync(join(consumer.dir, canary), CANARY[types])
  const config = `tsconfig.${types}.${compiler.name}.json`
  writeFileSync(join(consumer.dir, config), JSON.stringify({
    extends: `./${compiler.tsconfig}`,
    compilerOptions: { types: [types === 'node' ? 'node' : '@cloudflare/workers-types'] },
    files: [canary, ...blocks.map(fileOf)],
  }, null, 2))

  const output = await run(process.execPath, [compiler.tsc, '-p', config, '--noEmit', '--pretty', 'false'], { cwd: consumer.dir })
    .then(({ stdout }) => stdout, (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}` || String(error))
  const { diagnostics, other } = parseDiagnostics(output)
  expect(other, 'tsc output that is not a diagnostic').toEqual([])
  expect(diagnostics.filter((d) => d.file === canary).map((d) => d.code), `the ${types} canary`).toEqual(['TS2322'])
  const known = new Set([canary, ...blocks.map(fileOf)])
  expect(diagnostics.filter((d) => !known.has(d.file)), 'diagnostics outside the blocks').toEqual([])

  return blocks.flatMap((b) => {
    const own = diagnostics.filter((d) => d.file === fileOf(b))
    if (own.length === 0) return []
    const { file } = source(b)
    const errors = own.map((d) => `  ${file}:${b.lines[d.line - 1] ?? b.lines.at(-1)}:${d.column} ${d.code} ${d.message}`)
    return [`${file}:${b.line}, checked by TypeScript ${compiler.version} with ${types === 'node' ? 'Node' : 'Worker'} types:\n${errors.join('\n')}`]
  })
}

/** What a user calls to define or serve a server: each has an @example in its declaration. */
const ENTRY_POINTS = [
  'McpServer', 'tool', 'prompt', 'resource', 'resourceTemplate', 'remove', 'disable', 'onListChanged', 'ToolError',
  'createFetchHandler', 'createApp', 'jwtVerifier', 'memoryBackplane', 'memoryTaskStore', 'memoryUsedStates', 'tasks',
  'resumable', 'bearerAuth', 'exchange', 'createRuntime', 'serve', 'serveStdio', 'redisBackplane', 'redisTaskStore', 'redisUsedStates',
  'redisSharedSecret', 'createLambdaHandler', 'createBufferedLambdaHandler', 'createWorker', 'McpHub', 'taskObject', 'hubBackplane',
  'durableSharedSecret', 'durableUsedStates', 'durableTaskStore',
]

describe('the packed package in a consumer project', () => {
  let consumer: Consumer
  beforeAll(async () => {
    consumer = await installPacked()
  }, 180_000)
  afterAll(() => consumer?.remove())
  const current = () => consumer.compilers.find((c) => c.name === 'typescript')!

  it.for([...COMPILERS])('type-checks every ```ts block of README.md with %s, under the tsconfig.json its tsc --init writes', { timeout: 120_000 }, async (name) => {
    const compiler = consumer.compilers.find((c) => c.name === name)!
    expect(compiler.version).toMatch(name === 'typescript' ? /^7\./ : /^5\.9\./)
    const blocks = readmeBlocks(readFileSync('README.md', 'utf8'))
    expect(blocks.length).toBeGreaterThan(0)
    const failures = [
      ...await typeCheck(consumer, compiler, blocks.filter((b) => !b.workers), 'node'),
      ...await typeCheck(consumer, compiler, blocks.filter((b) => b.workers), 'workers'),
    ]
    if (failures.length > 0) throw new Error(`${failures.length} of ${blocks.length} README blocks do not type-check:\n\n${failures.join('\n\n')}`)
  })

  it('is clean under publint (strict) and arethetypeswrong for an ESM-only package', async () => {
    const bin = (name: string) => join(process.cwd(), 'node_modules/.bin', name)
    const lint = await run(bin('publint'), ['run', consumer.tarball, '--strict'])
    expect(lint.stdout).toContain('All good!')
    // attw exits 1 on any problem its profile counts; the JSON names every problem, ignored or not. An
    // ESM-only package cannot be required (node16-cjs) or resolved without exports (node10): nothing else.
    const types = await run(bin('attw'), [consumer.tarball, '--profile', 'esm-only', '--format', 'json'], { maxBuffer: 16 << 20 })
    const problems = Object.values(JSON.parse(types.stdout).problems as Record<string, Array<{ kind: string; entrypoint: string; resolutionKind?: string }>>).flat()
    expect(problems.filter((p) => p.resolutionKind !== 'node10' && p.resolutionKind !== 'node16-cjs')).toEqual([])
  }, 60_000)

  it('type-checks the @example of every entry point and registration method in the published declarations', async () => {
    const examples = docExamples(join(consumer.dir, 'node_modules/mcp-edge'))
    const documented = new Set(examples.map((e) => e.declares))
    const missing = ENTRY_POINTS.filter((name) => !documented.has(name))
    expect(missing, 'entry points without an @example').toEqual([])
    const byFile = new Map(examples.map((e) => [e, { file: join('node_modules/mcp-edge', e.file), name: `${e.declares}-${e.line}` }]))
    const source: Source = (b) => byFile.get(b as (typeof examples)[number])!
    const failures = [
      ...await typeCheck(consumer, current(), examples.filter((e) => !e.workers), 'node', source),
      ...await typeCheck(consumer, current(), examples.filter((e) => e.workers), 'workers', source),
    ]
    if (failures.length > 0) throw new Error(`${failures.length} of ${examples.length} examples do not type-check:\n\n${failures.join('\n\n')}`)
  }, 120_000)

  it.for([...COMPILERS])('has declarations that hold together with skipLibCheck off, for %s', { timeout: 120_000 }, async (name) => {
    const compiler = consumer.compilers.find((c) => c.name === name)!
    for (const [types, entries] of [['node', ['', '/core', '/node', '/redis', '/lambda']], ['workers', ['/cloudflare']]] as const) {
      const file = `blocks/entries-${types}.ts`
      writeFileSync(join(consumer.dir, file), entries.map((e, i) => `export * as entry${i} from 'mcp-edge${e}'\n`).join(''))
      const config = `tsconfig.declarations-${types}.${name}.json`
      writeFileSync(join(consumer.dir, config), JSON.stringify({
        extends: `./${compiler.tsconfig}`,
        compilerOptions: { types: [types === 'node' ? 'node' : '@cloudflare/workers-types'], skipLibCheck: false },
        files: [file],
      }))
      const output = await run(process.execPath, [compiler.tsc, '-p', config, '--noEmit', '--pretty', 'false'], { cwd: consumer.dir })
        .then(({ stdout }) => stdout, (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}`)
      // Other packages' declarations are theirs to keep: only the package's own and the entries file count.
      const ours = parseDiagnostics(output).diagnostics.filter((d) => d.file.includes('node_modules/mcp-edge/') || d.file === file)
      expect(ours, `${types} declarations`).toEqual([])
    }
  })

  it('answers a tools/call through the installed package, in plain Node', async () => {
    copyFileSync('test/package/smoke.mjs', join(consumer.dir, 'smoke.mjs'))
    const { stdout } = await run(process.execPath, ['smoke.mjs'], { cwd: consumer.dir })
    const out = JSON.parse(stdout)
    expect(out.resolved).toBe(pathToFileURL(join(consumer.dir, 'node_modules/mcp-edge/dist/src/index.js')).href)
    expect(out.subpaths['mcp-edge/node']).toContain('serve')
    expect(out.subpaths['mcp-edge/redis']).toContain('redisBackplane')
    expect(out.subpaths['mcp-edge/redis']).toContain('redisTaskStore')
    expect(out.status).toBe(200)
    expect(out.contentType).toBe('application/json')
    expect(out.body).toMatchObject({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '5' }] } })
    expect(out.body.result.isError).toBeUndefined()
  }, 60_000)
})
