/**
 * The layers, read off the import graph (README, "Layout"): the definition (src/server) knows no exchange, the
 * exchange core knows no extension (tasks, resumable requests, authorization) and no HTTP, src/ knows no
 * adapter, an adapter reaches src/ only through the public entries, and no modules of src/ import each
 * other round a cycle. Each offence is one line with its file and line; the test fails on any, so a new
 * import that breaks a rule shows where.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = join(import.meta.dirname, '../..')

/** What each folder of src/ may import, besides itself. */
const MAY: Record<string, readonly string[]> = {
  protocol: [],
  server: ['protocol'],
  state: ['protocol'],
  auth: ['protocol', 'server'],
  exchange: ['protocol', 'server', 'state'],
  tasks: ['protocol', 'server', 'state', 'exchange'],
  resumable: ['protocol', 'server', 'state', 'exchange', 'tasks'],
  // The composition root builds the extensions it is given; none is named, so each is bundled only where imported.
  compose: ['protocol', 'server', 'state', 'exchange'],
  http: ['protocol', 'server', 'state', 'exchange', 'auth', 'compose'],
  // OpenTelemetry, behind its own entry (mcp-edge/otel): the core only knows the Telemetry it is given.
  otel: ['protocol', 'state', 'exchange'],
  entry: ['protocol', 'server', 'state', 'exchange', 'auth', 'tasks', 'resumable', 'compose', 'http', 'otel'],
}
const ENTRIES = ['src/index.ts', 'src/core.ts', 'src/otel/index.ts']

/**
 * Imports that break a rule today, each with the issue that removes it; one that no longer occurs fails
 * the test too, so this list only shrinks.
 */
const KNOWN: readonly string[] = []

interface Import { from: string; line: number; to: string }

/** Every relative import and re-export of the TypeScript files in `files` (path -> source). */
function importsOf(files: ReadonlyMap<string, string>): Import[] {
  const found: Import[] = []
  const statement = /^\s*(?:import|export)\b[^'"]*?\bfrom\s+['"](\.[^'"]+)['"]|^\s*import\s+['"](\.[^'"]+)['"]/gm
  for (const [from, source] of files) {
    // @example blocks in comments hold imports of the package, not of this file.
    const code = source.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '))
    for (const m of code.matchAll(statement)) {
      const target = normalize(join(dirname(from), (m[1] ?? m[2])!)).replace(/\.js$/, '.ts')
      found.push({ from, line: code.slice(0, m.index).split('\n').length, to: target })
    }
  }
  return found
}

const layerOf = (file: string) => (file.startsWith('adapters/') ? `adapters/${file.split('/')[1]}` : /^src\/[^/]+\.ts$/.test(file) ? 'entry' : file.split('/')[1]!)

/** The offences of `files` against the rules above, one line each; the known ones are left out. */
function violations(files: ReadonlyMap<string, string>): string[] {
  const out: string[] = []
  const known = new Set<string>()
  for (const { from, line, to } of importsOf(files)) {
    const here = layerOf(from)
    const there = layerOf(to)
    let why: string | undefined
    if (from.startsWith('src/') && to.startsWith('adapters/')) why = 'src/ never imports an adapter'
    else if (from.startsWith('adapters/') && to.startsWith('src/') && !ENTRIES.includes(to)) why = `an adapter reaches src/ only through ${ENTRIES.join(' or ')}`
    else if (from.startsWith('adapters/') && to.startsWith('adapters/') && there !== here) why = 'an adapter does not import another'
    else if (from.startsWith('src/') && to.startsWith('src/') && here !== there && !MAY[here]!.includes(there)) why = `${here} may import ${[here, ...MAY[here]!].join(', ')}`
    if (why === undefined) continue
    const pair = `${from} -> ${to}`
    if (KNOWN.includes(pair)) known.add(pair)
    else out.push(`${from}:${line} imports ${to}: ${why}`)
  }
  for (const pair of KNOWN) if (!known.has(pair)) out.push(`${pair} no longer occurs: remove it from KNOWN`)
  return out
}

/** The import cycles among the files of src/ (type imports too), each as its files; none is allowed. */
function cycles(files: ReadonlyMap<string, string>): string[][] {
  const next = new Map<string, string[]>()
  for (const { from, to } of importsOf(files)) if (from.startsWith('src/') && files.has(to)) next.set(from, [...(next.get(from) ?? []), to])
  // Tarjan's strongly connected components: a component of more than one file is a cycle.
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const found: string[][] = []
  const visit = (v: string) => {
    index.set(v, index.size)
    low.set(v, index.get(v)!)
    stack.push(v)
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) visit(w)
      if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, low.get(w)!))
    }
    if (low.get(v) !== index.get(v)) return
    const component = stack.splice(stack.indexOf(v))
    if (component.length > 1) found.push(component.sort())
  }
  for (const file of next.keys()) if (!index.has(file)) visit(file)
  return found
}

function sources(): Map<string, string> {
  const files = new Map<string, string>()
  for (const dir of ['src', 'adapters']) {
    for (const name of readdirSync(join(ROOT, dir), { recursive: true }) as string[]) {
      if (name.endsWith('.ts')) files.set(relative(ROOT, join(ROOT, dir, name)), readFileSync(join(ROOT, dir, name), 'utf8'))
    }
  }
  return files
}

describe('the layers', () => {
  it('hold: no import runs against them', () => {
    expect(violations(sources())).toEqual([])
  })

  it('make no cycle: each module of src/ can be read knowing only those below it', () => {
    expect(cycles(sources())).toEqual([])
  })

  it('would catch a cycle, with the files on it', () => {
    const files = sources()
    files.set('src/protocol/errors.ts', `import type { JsonRpcId } from './jsonrpc.js'\n${files.get('src/protocol/errors.ts')}`)
    expect(cycles(files)).toEqual([['src/protocol/errors.ts', 'src/protocol/jsonrpc.ts']])
  })

  it('would catch the core importing an extension, with the line that does it', () => {
    const files = sources()
    // On a line of its own, whether or not the file ends with a newline (StrykerJS' instrumented copy does not).
    const core = files.get('src/exchange/exchange.ts')!.trimEnd()
    files.set('src/exchange/exchange.ts', `${core}\nimport '../tasks/extension.js'\n`)
    expect(violations(files)).toEqual([
      `src/exchange/exchange.ts:${core.split('\n').length + 1} imports src/tasks/extension.ts: exchange may import exchange, protocol, server, state`,
    ])
  })

  it('would catch an adapter reaching past the public entries, and src/ reaching an adapter', () => {
    const files = new Map([
      ['adapters/node/x.ts', "import { exchange } from '../../src/exchange/exchange.js'\n"],
      ['src/http/y.ts', "import type { Foo } from '../../adapters/node/x.js'\n"],
      ['adapters/lambda/z.ts', "export { serve } from '../node/serve.js'\n"],
    ])
    expect(violations(files).filter((v) => !v.includes('KNOWN'))).toEqual([
      'adapters/node/x.ts:1 imports src/exchange/exchange.ts: an adapter reaches src/ only through src/index.ts or src/core.ts or src/otel/index.ts',
      'src/http/y.ts:1 imports adapters/node/x.ts: src/ never imports an adapter',
      'adapters/lambda/z.ts:1 imports adapters/node/serve.ts: an adapter does not import another',
    ])
  })
})
