/**
 * `npm run build`: builds a function of template.yaml as `sam build` does with BuildMethod esbuild, without
 * SAM: the same esbuild command, each BuildProperty turned into one flag the way AWS Lambda Builders turns it
 * (Minify: true is --minify, Format: esm is --format=esm, a list is one --key:item per item). So the tests and
 * `npm run dev` load exactly what `sam deploy` uploads.
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { parse } from 'yaml'

type Property = string | boolean | string[]

/** Returns the folder holding the bundle (handler.mjs for this template), as SAM's artifact folder would. */
export async function samBuild(functionId = 'McpFunction', outdir = join('dist', functionId)): Promise<string> {
  // CloudFormation's tags (!Ref, !Sub) mean nothing here: they are left unresolved, quietly.
  const template = parse(readFileSync('template.yaml', 'utf8'), { logLevel: 'error' })
  const fn = template.Resources[functionId]
  if (fn?.Metadata?.BuildMethod !== 'esbuild') throw new Error(`template.yaml: ${functionId} is not built with esbuild`)
  const { EntryPoints: entryPoints, ...properties } = fn.Metadata.BuildProperties as Record<string, Property>
  const flags = Object.entries({ Target: 'es2020', Format: 'cjs', Minify: true, ...properties }).flatMap(([key, value]) => {
    const flag = `--${key.replace(/(?<!^)([A-Z])/g, '-$1').toLowerCase()}`
    if (Array.isArray(value)) return value.map((item) => `${flag}:${item}`)
    return value === true ? [flag] : value === false ? [] : [`${flag}=${value}`]
  })
  const esbuild = join('node_modules', '.bin', process.platform === 'win32' ? 'esbuild.cmd' : 'esbuild')
  await promisify(execFile)(esbuild, ['--bundle', '--platform=node', `--outdir=${outdir}`, '--log-level=warning', ...flags, ...entryPoints as string[]], { shell: process.platform === 'win32' })
  return outdir
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(`Built ${await samBuild()}`)
