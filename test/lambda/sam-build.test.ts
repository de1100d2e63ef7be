/**
 * template.yaml's function as `sam build` makes it (scripts/build-lambda.ts runs the esbuild command line SAM
 * makes of its BuildProperties). test/lambda/function-url.test.ts serves that build to the conformance suite
 * and the SDK client; this checks what SAM needs to make it, and that the banner is what makes it load.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { SetupError, startFunctionUrl } from '../../adapters/lambda/local/function-url.js'
import { buildLambda, samEsbuildArgs, samFunction } from '../../scripts/build-lambda.js'

const fn = samFunction()

describe("template.yaml's function, built as sam build builds it", () => {
  it('is built by SAM with esbuild from an npm ci install, for the Node.js runtime it is deployed on, streaming', () => {
    expect(fn.buildMethod).toBe('esbuild')
    expect(fn.invokeMode).toBe('RESPONSE_STREAM')
    // SAM installs with `npm install --omit=dev` unless UseNpmCi: esbuild and ioredis are devDependencies here.
    const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as Record<string, Record<string, string>>
    const installed = fn.buildProperties.UseNpmCi === true ? { ...manifest.dependencies, ...manifest.devDependencies } : manifest.dependencies
    expect(Object.keys(installed ?? {})).toEqual(expect.arrayContaining(['esbuild', 'ioredis']))
    // esbuild's target is the runtime's Node.js version: syntax newer than the runtime would not load.
    const target = samEsbuildArgs(fn.buildProperties, fn.handler, fn.codeUri, 'out').find((a) => a.startsWith('--target='))
    expect(`--target=node${/^nodejs(\d+)\.x$/.exec(fn.runtime)?.[1]}`).toBe(target)
  })

  it('maps BuildProperties to esbuild flags as SAM does: a string with =, each list item with :, true alone, false not at all', () => {
    const args = samEsbuildArgs({ EntryPoints: ['a.ts'], Format: 'esm', Banner: ['js=x'], Minify: false, KeepNames: true, UseNpmCi: true }, 'a.handler', '.', 'out')
    expect(args).toEqual(['a.ts', '--bundle', '--platform=node', '--outdir=out', '--target=es2020', '--format=esm', '--banner:js=x', '--keep-names'])
    expect(() => samEsbuildArgs({ Target: 22 }, 'a.handler', '.', 'out')).toThrow(/Target: 22 fails sam build/)
  })

  it('without its banner, the bundle cannot load ioredis: the local function URL refuses to start and says which banner to add', async () => {
    const built = await buildLambda('dist/lambda/everything-no-banner', { without: ['Banner'] })
    const error = await startFunctionUrl({ root: built.dir, handler: built.handler, port: 0, instances: 1, log: () => {} }).then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(SetupError)
    expect((error as Error).message).toMatch(/^lambda\.handler failed to load: \S+: Dynamic require of "\w+" is not supported/)
    expect((error as Error).message).toContain(`--banner:js="${String((fn.buildProperties.Banner as string[])[0]).slice('js='.length)}"`)
  }, 60_000)
})
