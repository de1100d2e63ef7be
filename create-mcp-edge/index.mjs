#!/usr/bin/env node
// `npm create mcp-edge@latest my-server`: copies templates/shared and templates/<runtime> into an empty folder,
// with the project's name in place of my-mcp-server, then runs npm install there.
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { basename, join, relative, resolve, sep } from 'node:path'
import { createInterface } from 'node:readline/promises'
import { parseArgs } from 'node:util'

const RUNTIMES = {
  workers: 'Cloudflare Workers (wrangler, a Durable Object for listen fan-out)',
  lambda: 'AWS Lambda (function URL with response streaming, SAM)',
  node: 'Node (node:http)',
}
const TEMPLATES = join(import.meta.dirname, 'templates')
const PLACEHOLDER = 'my-mcp-server'
const { version } = JSON.parse(readFileSync(join(import.meta.dirname, 'package.json'), 'utf8'))

const USAGE = `Usage: npm create mcp-edge@latest [folder] -- [--runtime workers|lambda|node] [--no-install]

  --runtime, -r   ${Object.entries(RUNTIMES).map(([k, v]) => `${k}: ${v}`).join('\n                  ')}
  --no-install    leave npm install to you
  --mcp-edge      the mcp-edge dependency's version or spec (default ${version}), e.g. a tarball's path
Without --runtime, and with a terminal to ask on, it asks.`

/** @param {string[]} argv */
async function main(argv) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    allowNegative: true,
    options: {
      runtime: { type: 'string', short: 'r' },
      install: { type: 'boolean', default: true },
      'mcp-edge': { type: 'string', default: version },
      help: { type: 'boolean', short: 'h' },
    },
  })
  if (values.help) return console.log(USAGE)
  const asking = process.stdin.isTTY && process.stdout.isTTY
  const prompt = asking ? createInterface({ input: process.stdin, output: process.stdout }) : undefined
  let folder, runtime
  try {
    folder = positionals[0] ?? (await prompt?.question('Project folder (my-mcp-server): '))?.trim() ?? fail('Name the project folder.')
    runtime = values.runtime ?? (prompt ? await askRuntime(prompt) : fail('Say which runtime with --runtime workers, lambda or node.'))
  } catch (error) {
    // Ctrl+D or Ctrl+C at a question: the user left; nothing was written.
    if (/** @type {{ code?: string }} */ (error).code !== 'ABORT_ERR') throw error
    console.log()
    process.exit(130)
  } finally {
    prompt?.close()
  }
  if (!Object.hasOwn(RUNTIMES, runtime)) fail(`Unknown runtime "${runtime}": workers, lambda or node.`)
  create(resolve(folder || 'my-mcp-server'), runtime, values['mcp-edge'], values.install)
}

/** @param {import('node:readline/promises').Interface} prompt */
async function askRuntime(prompt) {
  const names = Object.keys(RUNTIMES)
  console.log('Where will it run?')
  names.forEach((name, i) => console.log(`  ${i + 1}. ${RUNTIMES[/** @type {keyof RUNTIMES} */ (name)]}`))
  for (;;) {
    const answer = (await prompt.question(`Runtime [1-${names.length}] or name: `)).trim().toLowerCase()
    const picked = names[Number(answer) - 1] ?? names.find((name) => name === answer)
    if (picked) return picked
  }
}

/**
 * @param {string} dir
 * @param {string} runtime
 * @param {string} mcpEdge
 * @param {boolean} install
 */
function create(dir, runtime, mcpEdge, install) {
  // A .git of its own is fine (`git init` first); anything else would be overwritten or mixed in.
  if (existsSync(dir) && readdirSync(dir).some((entry) => entry !== '.git')) fail(`${dir} is not empty: pick a new folder.`)
  const name = projectName(dir)
  // The files every runtime shares (the server's definition, its test), then the runtime's own.
  for (const layer of [join(TEMPLATES, 'shared'), join(TEMPLATES, runtime)]) cpSync(layer, dir, { recursive: true })
  // npm pack leaves out every .gitignore (it reads them as ignore rules), so the template ships it as _gitignore.
  renameSync(join(dir, '_gitignore'), join(dir, '.gitignore'))
  for (const file of files(dir).filter((file) => !relative(dir, file).startsWith('.git' + sep))) {
    const text = readFileSync(file, 'utf8')
    if (text.includes(PLACEHOLDER)) writeFileSync(file, text.replaceAll(PLACEHOLDER, name))
  }
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  manifest.dependencies['mcp-edge'] = mcpEdge
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`)

  const where = relative(process.cwd(), dir) || '.'
  console.log(`Made ${name} in ${where}: ${RUNTIMES[/** @type {keyof RUNTIMES} */ (runtime)]}.`)
  if (install && spawnSync('npm', ['install'], { cwd: dir, stdio: 'inherit', shell: process.platform === 'win32' }).status !== 0) {
    fail(`npm install failed in ${where}: run it there again once the cause is fixed.`)
  }
  console.log(`\nNext:\n  cd ${where}\n${install ? '' : '  npm install\n'}  npm run dev    # a local server to try with an MCP client\n  npm test       # type check, then the SDK client against it\nREADME.md says how to deploy.`)
}

/** A name npm and every runtime accept: wrangler wants lowercase letters, digits and dashes, at most 63. */
function projectName(/** @type {string} */ dir) {
  return basename(dir).toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 63) || 'my-mcp-server'
}

/** @param {string} dir @returns {string[]} */
function files(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name))
}

/** @param {string} message @returns {never} */
function fail(message) {
  console.error(`create-mcp-edge: ${message}\n\n${USAGE}`)
  process.exit(1)
}

await main(process.argv.slice(2))
