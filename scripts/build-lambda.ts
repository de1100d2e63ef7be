/**
 * What `sam build` does with template.yaml's function, without SAM: its esbuild step, the esbuild command
 * line made from the function's `Metadata: BuildProperties` the way SAM's builder makes it, run in the
 * project (where SAM runs it in a copy after `npm ci`, which UseNpmCi asks for). Tests, benchmarks and
 * `npm run start:lambda` build every function this way, so all of them run what a deployment runs.
 *
 * SAM's builder (aws/aws-lambda-builders, workflows/nodejs_npm_esbuild/esbuild.py) turns each property's
 * PascalCase name into kebab case and passes true as `--name`, a string as `--name=value` and each item of
 * a list as `--name:item`; false passes nothing. It always adds --bundle, --platform=node and --outdir;
 * --target=es2020, --format=cjs and --minify unless the properties set them. EntryPoints default to the
 * Handler's file; UseNpmCi is its own.
 */
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { basename, dirname, extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { parse } from 'yaml'

/** A value of the template, as YAML gives it (CloudFormation's tags, `!Ref X`, read as their text). */
export type Yaml = string | number | boolean | null | Yaml[] | { [key: string]: Yaml }

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

export interface SamFunction {
  readonly codeUri: string
  readonly handler: string
  readonly runtime: string
  readonly buildMethod: Yaml
  readonly buildProperties: Readonly<Record<string, Yaml>>
  readonly invokeMode: Yaml
}

/** A function of a SAM template (default: this repository's McpFunction). */
export function samFunction(template = readFileSync(join(root, 'template.yaml'), 'utf8'), name = 'McpFunction'): SamFunction {
  const resources = (parse(template, { logLevel: 'error' }) as Record<string, Record<string, Record<string, Record<string, Yaml>>>>).Resources
  const fn = resources?.[name]
  if (!fn?.Properties) throw new Error(`template.yaml has no ${name} with Properties`)
  const { CodeUri, Handler, Runtime, FunctionUrlConfig } = fn.Properties
  return {
    codeUri: String(CodeUri),
    handler: String(Handler),
    runtime: String(Runtime),
    buildMethod: fn.Metadata?.BuildMethod ?? null,
    buildProperties: (fn.Metadata?.BuildProperties ?? {}) as Record<string, Yaml>,
    invokeMode: (FunctionUrlConfig as Record<string, Yaml> | undefined)?.InvokeMode ?? null,
  }
}

/** The esbuild arguments SAM passes for these BuildProperties (entry points first), with output into `outdir`. */
export function samEsbuildArgs(properties: Readonly<Record<string, Yaml>>, handler: string, codeUri: string, outdir: string): string[] {
  const options = Object.entries(properties).map(([name, value]) => [name.replace(/(?<!^)(?=[A-Z])/g, '_').toLowerCase(), value, name] as const)
  const given = new Map(options.map(([key, value]) => [key, value]))
  const module = handler.slice(0, handler.lastIndexOf('.'))
  const entries = given.get('entry_points') ?? [['.ts', '.js'].map((ext) => module + ext).find((file) => existsSync(join(codeUri, file))) ?? module]
  if (!Array.isArray(entries) || entries.length === 0) throw new Error('BuildProperties EntryPoints: a list of files')
  const args = [...entries.map(String), '--bundle', '--platform=node', `--outdir=${outdir}`]
  if (!given.has('target')) args.push('--target=es2020')
  if (!given.has('format')) args.push('--format=cjs')
  if (!given.has('minify')) args.push('--minify')
  for (const [key, value, name] of options) {
    if (['bundle', 'platform', 'outdir', 'use_npm_ci', 'entry_points'].includes(key)) continue
    const flag = `--${key.replaceAll('_', '-')}`
    if (typeof value === 'boolean') args.push(...(value ? [flag] : []))
    else if (typeof value === 'string') args.push(`${flag}=${value}`)
    else if (Array.isArray(value)) args.push(...value.map((item) => `${flag}:${String(item)}`))
    else throw new Error(`BuildProperties ${name}: ${JSON.stringify(value)} fails sam build (a boolean, a string or a list)`)
  }
  return args
}

export interface Built {
  /** The bundle's directory (what SAM zips). */
  readonly dir: string
  /** The bundle. */
  readonly file: string
  /** The handler for it, as Lambda names it. */
  readonly handler: string
}

/**
 * Builds template.yaml's function into `outdir` (relative to the repository) as `sam build` would; with
 * `entry`, another module the same way (its `handler` export). `without` leaves properties out.
 */
export async function buildLambda(outdir: string, options: { entry?: string; without?: string[] } = {}): Promise<Built> {
  const fn = samFunction()
  const properties = Object.fromEntries(Object.entries(fn.buildProperties).filter(([key]) => !options.without?.includes(key)))
  if (options.entry) properties.EntryPoints = [options.entry]
  const dir = join(root, outdir)
  const args = samEsbuildArgs(properties, fn.handler, join(root, fn.codeUri), dir)
  await promisify(execFile)(join(root, 'node_modules/.bin/esbuild'), args, { cwd: join(root, fn.codeUri) })
  const entry = args[0]!
  const out = args.find((a) => a.startsWith('--out-extension:.js='))?.slice('--out-extension:.js='.length) ?? '.js'
  const name = basename(entry, extname(entry))
  return { dir, file: join(dir, name + out), handler: options.entry ? `${name}.handler` : fn.handler }
}
