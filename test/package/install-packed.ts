/** An empty ESM project in a temp dir with this repository's `npm pack` tarball installed, without network. */
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'

export const run = promisify(execFile)
const ROOT = process.cwd()

/** What README snippets import besides mcp-edge, and the compiler and types to check them with. */
const README_NEEDS = ['zod', 'hono', 'ioredis', 'typescript', '@types/node', '@cloudflare/workers-types', '@cloudflare/workers-oauth-provider']

export interface Consumer {
  dir: string
  tarball: string
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
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>
    for (const name of new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {}), ...README_NEEDS])) {
      linkFromRepository(dir, name)
    }
    await run(process.execPath, [join(dir, 'node_modules/typescript/bin/tsc'), '--init'], { cwd: dir })
    return { dir, tarball, remove }
  } catch (error) {
    remove()
    throw error
  }
}

function linkFromRepository(dir: string, name: string) {
  const source = join(ROOT, 'node_modules', name)
  if (!existsSync(source)) throw new Error(`${name} is not in this repository's node_modules: run npm ci`)
  const target = join(dir, 'node_modules', name)
  mkdirSync(dirname(target), { recursive: true })
  symlinkSync(realpathSync(source), target, 'junction')
}
