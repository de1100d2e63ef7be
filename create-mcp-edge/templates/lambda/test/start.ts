// How test/server.test.ts starts the function: built from template.yaml as `sam build` builds it, then run by
// AWS's own runtime client (aws-lambda-ric) behind a local function URL (mcp-edge-lambda), as `npm run dev` does.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import { samBuild } from '../scripts/sam-build.ts'

export interface Running { url: URL; close(): Promise<void> }

/** The runtime client builds its native part on Linux only, as Lambda itself is. */
export const unsupported: string | false = process.platform !== 'linux' &&
  `AWS's runtime client runs on Linux only: run the tests in CI or in a Linux container`

export async function start(): Promise<Running> {
  const bundle = await samBuild()
  const child = spawn(join('node_modules', '.bin', 'mcp-edge-lambda'), [bundle, '--handler', 'handler.handler', '--port', '0'], { stdio: ['ignore', 'pipe', 'inherit'] })
  const close = async () => {
    if (child.exitCode !== null) return
    child.kill('SIGTERM')
    await once(child, 'exit')
  }
  let output = ''
  for await (const chunk of child.stdout) {
    output += chunk
    // "mcp-edge-lambda: http://127.0.0.1:PORT/mcp runs handler.handler from ...", once it listens.
    const url = /(http:\/\/\S+) runs /.exec(output)?.[1]
    if (url) return { url: new URL(url), close }
  }
  throw new Error(`mcp-edge-lambda stopped before it listened: ${output}`)
}
