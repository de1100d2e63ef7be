/** An empty ESM project in a temp dir with this repository's `npm pack` tarball installed, without network. */
import { execFile } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { promisify } from 'node:util'

export const run = promisify(execFile)
const ROOT = process.cwd()

/**
 * The compilers a user may have: the current TypeScript, and 5.9, the last before the native port, which
 * many projects and tools still pin (package.json installs it as `typescript-5`).
 */
export const COMPILERS = ['typescript', 'typescript-5'] as const

/** What README snippets import besides mcp-edge, the types to check them with, and the bundler. */
const README_NEEDS = ['zod', 'hono', 'ioredis', '@opentelemetry/api', ...COMPILERS, '@types/node', '@cloudflare/workers-types', '@cloudflare/workers-oauth-provider', 'esbuild']

export interface Compiler {
  name: (typeof COMPILERS)[number]
  version: string
  tsc: string
  /** What this compiler's `tsc --init` wrote, in the consumer's folder. */
  tsconfig: string
}

interface Manifest {
  dependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional?: boolean }>
}

export interface Consumer {
  dir: string
  tarball: string
  compilers: Compiler[]
  remove(): void
}

/** `npm pack` of the package in `dir` (its prepack runs) into the folder `into`, made if missing, which holds no other tarball; returns the tarball's path. */
export async function pack(dir: string, into: string): Promise<string> {
  mkdirSync(into, { recursive: true })
  await run('npm', ['pack', '--pack-destination', into], { cwd: dir, maxBuffer: 64 << 20 })
  const tarballs = readdirSync(into).filter((f) => f.endsWith('.tgz'))
  if (tarballs.length !== 1) throw new Error(`npm pack left ${tarballs.length} tarballs in ${into}`)
  return join(into, tarballs[0]!)
}

/**
 * `npm pack` runs prepack (the build) and leaves only dist/ behind. The tarball is unpacked into
 * node_modules/mcp-edge as npm would; its dependencies and the README's are links to this repository's
 * node_modules. An `npm install` would want the registry to resolve them (--offline fails on a cold cache),
 * while links take no time and still make a dependency missing from package.json fail to resolve: only the
 * ones the tarball's manifest declares are linked, next to it.
 */
export async function installPacked(): Promise<Consumer> {
  const packDir = mkdtempSync(join(tmpdir(), 'mcp-edge-pack-'))
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-edge-consumer-')))
  const remove = () => {
    rmSync(packDir, { recursive: true, force: true })
    rmSync(dir, { recursive: true, force: true })
  }
  try {
    const tarball = await pack(ROOT, packDir)

    writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2)}\n`)
    const installed = join(dir, 'node_modules/mcp-edge')
    mkdirSync(installed, { recursive: true })
    await run('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1'])
    linkBins(dir, 'mcp-edge')
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Manifest
    // Optional peers (ioredis, aws-lambda-ric) are the user's choice: only those the README uses are linked.
    const required = Object.keys(manifest.peerDependencies ?? {}).filter((name) => !manifest.peerDependenciesMeta?.[name]?.optional)
    for (const name of new Set([...Object.keys(manifest.dependencies ?? {}), ...required, ...README_NEEDS])) {
      linkFromRepository(dir, name)
    }
    const compilers = await Promise.all(COMPILERS.map((name) => initTypeScript(dir, name)))
    return { dir, tarball, compilers, remove }
  } catch (error) {
    remove()
    throw error
  }
}

/** `tsc --init` of one compiler, in a folder of its own (it always writes tsconfig.json), moved beside the project's. */
async function initTypeScript(dir: string, name: Compiler['name']): Promise<Compiler> {
  const tsc = join(dir, 'node_modules', name, 'bin/tsc')
  const scratch = mkdtempSync(join(dir, '.init-'))
  await run(process.execPath, [tsc, '--init'], { cwd: scratch })
  const tsconfig = `tsconfig.${name}.json`
  renameSync(join(scratch, 'tsconfig.json'), join(dir, tsconfig))
  rmSync(scratch, { recursive: true })
  const { version } = JSON.parse(readFileSync(join(dir, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }
  return { name, version, tsc, tsconfig }
}

/** The consumer's node_modules/<name> as a link to this repository's, its commands in node_modules/.bin. */
export function linkFromRepository(dir: string, name: string) {
  const source = join(ROOT, 'node_modules', name)
  if (!existsSync(source)) throw new Error(`${name} is not in this repository's node_modules: run npm ci`)
  const target = join(dir, 'node_modules', name)
  mkdirSync(dirname(target), { recursive: true })
  symlinkSync(realpathSync(source), target, 'junction')
  linkBins(dir, name)
}

/** node_modules/.bin links to a package's `bin` files, made executable, as npm makes them on install. */
function linkBins(dir: string, name: string) {
  const pkg = join(dir, 'node_modules', name)
  const { bin } = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { bin?: string | Record<string, string> }
  const bins = typeof bin === 'string' ? { [name.split('/').pop()!]: bin } : (bin ?? {})
  const binDir = join(dir, 'node_modules/.bin')
  mkdirSync(binDir, { recursive: true })
  for (const [command, file] of Object.entries(bins)) {
    // typescript and typescript-5 both name `tsc`: the first linked keeps it, as npm gives it to `typescript`.
    if (existsSync(join(binDir, command))) continue
    chmodSync(join(pkg, file), 0o755)
    symlinkSync(relative(binDir, join(pkg, file)), join(binDir, command))
  }
}
