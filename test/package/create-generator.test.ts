/**
 * create-mcp-edge's bin, run from this repository as `npm create mcp-edge` runs it: what it writes, what it
 * refuses, and what it asks on a terminal. test/package/create-templates.test.ts installs and tests what it
 * writes; here nothing is installed (--no-install).
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { run } from './install-packed.js'

const BIN = resolve('create-mcp-edge/index.mjs')
const TEMPLATES = resolve('create-mcp-edge/templates')
const RUNTIMES = ['workers', 'lambda', 'node'] as const

let dir: string
afterEach(() => rmSync(dir, { recursive: true, force: true }))
const tempDir = () => (dir = mkdtempSync(join(tmpdir(), 'create-mcp-edge-')))

/** Runs the bin without a terminal; resolves with its exit code and output (execFile rejects on exit 1). */
function create(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return run(process.execPath, [BIN, ...args], { cwd }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  )
}

/** Every file under `root`, relative to it, sorted. */
function listing(root: string): string[] {
  return readdirSync(root, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => relative(root, join(e.parentPath, e.name))).sort()
}

describe('create-mcp-edge', () => {
  it.each(RUNTIMES)('writes the %s template into a new folder, named after the folder', async (runtime) => {
    const { code, stdout } = await create(['My Server!', '--runtime', runtime, '--no-install', '--mcp-edge', 'file:../mcp-edge.tgz'], tempDir())
    expect(code).toBe(0)
    expect(stdout).toContain('npm install')   // the next steps say it, since it did not run
    const project = join(dir, 'My Server!')
    // The shared files and the runtime's, with the _gitignore that npm pack keeps as the .gitignore a project needs.
    const template = [...listing(join(TEMPLATES, 'shared')), ...listing(join(TEMPLATES, runtime))]
    expect(listing(project)).toEqual(template.map((f) => (f === '_gitignore' ? '.gitignore' : f)).sort())
    expect(listing(project)).toEqual(expect.arrayContaining(['src/server.ts', 'test/server.test.ts', 'test/start.ts', 'README.md']))
    const manifest = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'))
    expect(manifest.name).toBe('my-server')
    expect(manifest.dependencies['mcp-edge']).toBe('file:../mcp-edge.tgz')
    for (const file of listing(project)) expect(readFileSync(join(project, file), 'utf8'), file).not.toContain('my-mcp-server')
    expect(readFileSync(join(project, 'README.md'), 'utf8')).toMatch(/^# my-server\n/)
    if (runtime === 'workers') expect(readFileSync(join(project, 'wrangler.toml'), 'utf8')).toMatch(/^name = "my-server"$/m)
  })

  it('depends on the mcp-edge released with it, which has the same version', async () => {
    await create(['server', '--runtime', 'node', '--no-install'], tempDir())
    const { version } = JSON.parse(readFileSync('package.json', 'utf8'))
    expect(JSON.parse(readFileSync('create-mcp-edge/package.json', 'utf8')).version).toBe(version)
    expect(JSON.parse(readFileSync(join(dir, 'server/package.json'), 'utf8')).dependencies['mcp-edge']).toBe(version)
  })

  it('refuses a folder that is not empty, and leaves it alone', async () => {
    const project = join(tempDir(), 'taken')
    mkdirSync(project)
    writeFileSync(join(project, 'notes.txt'), 'mine')
    const { code, stderr } = await create(['taken', '--runtime', 'node', '--no-install'], dir)
    expect(code).toBe(1)
    expect(stderr).toContain('is not empty')
    expect(listing(project)).toEqual(['notes.txt'])
  })

  it('takes a folder that holds only .git', async () => {
    mkdirSync(join(tempDir(), 'repo/.git'), { recursive: true })
    expect((await create(['repo', '--runtime', 'node', '--no-install'], dir)).code).toBe(0)
    expect(existsSync(join(dir, 'repo/package.json'))).toBe(true)
  })

  it('without --runtime and no terminal to ask on, says what to pass and writes nothing', async () => {
    const { code, stderr } = await create(['server', '--no-install'], tempDir())
    expect(code).toBe(1)
    expect(stderr).toContain('--runtime workers, lambda or node')
    expect(existsSync(join(dir, 'server'))).toBe(false)
  })

  it('refuses a runtime it has no template for', async () => {
    const { code, stderr } = await create(['server', '--runtime', 'deno', '--no-install'], tempDir())
    expect(code).toBe(1)
    expect(stderr).toContain('Unknown runtime "deno"')
    expect(existsSync(join(dir, 'server'))).toBe(false)
  })

  it('on a terminal, asks for the folder and the runtime until the answer is one', async () => {
    // script(1) gives the bin a pseudo-terminal, as a user's shell would; each answer waits for its question.
    const child = spawn('script', ['-qefc', `'${process.execPath}' '${BIN}' --no-install`, '/dev/null'], { cwd: tempDir(), stdio: ['pipe', 'pipe', 'inherit'] })
    const answers: [RegExp, string][] = [[/Project folder \(my-mcp-server\): /, 'asked'], [/Runtime \[1-3\] or name: /, '9'], [/Runtime \[1-3\] or name: /, '1']]
    let screen = ''
    child.stdout.on('data', (chunk: Buffer) => {
      screen += chunk
      const next = answers[0]
      if (next && next[0].test(screen)) {
        answers.shift()
        screen = ''
        child.stdin.write(`${next[1]}\n`)
      }
    })
    const code = await new Promise((resolve) => child.once('exit', resolve))
    expect(answers).toEqual([])
    expect(code).toBe(0)
    expect(JSON.parse(readFileSync(join(dir, 'asked/package.json'), 'utf8')).name).toBe('asked')
    expect(existsSync(join(dir, 'asked/wrangler.toml'))).toBe(true)   // 1: Workers
  })
})
