/**
 * `npm run build:lambda`: bundles a Lambda entry (default examples/everything/lambda.ts) into one ES module,
 * dist/lambda/<name>/index.mjs with its handler export, as template.yaml deploys it. Dependencies are bundled
 * (ioredis among them): the function needs no node_modules.
 */
import { build } from 'esbuild'
import { statSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { dirname, join } from 'node:path'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')

export async function buildLambda(entry = 'examples/everything/lambda.ts', outdir = 'dist/lambda/everything'): Promise<string> {
  const outfile = join(root, outdir, 'index.mjs')
  await build({
    entryPoints: [join(root, entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    // CommonJS dependencies (ioredis) call require(); an ES module has none until it makes one.
    banner: { js: "import { createRequire as __mcpEdgeRequire } from 'node:module'; const require = __mcpEdgeRequire(import.meta.url);" },
  })
  return outfile
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const file = await buildLambda(process.argv[2], process.argv[3])
  const bytes = statSync(file).size
  console.log(`${file}: ${bytes} bytes raw, ${gzipSync(readFileSync(file), { level: 9 }).length} bytes gzip`)
}
