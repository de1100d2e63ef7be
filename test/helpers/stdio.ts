import { PassThrough } from 'node:stream'
import { serveStdio, type StdioOptions } from '../../adapters/node/index.js'
import type { McpServer } from '../../src/index.js'

/** serveStdio in this process on in-memory pipes: what it writes, parsed line by line, and a way to send. */
export async function harness(server: McpServer, options: StdioOptions = {}) {
  // Let the list changes of the definition itself go out before anyone listens.
  await new Promise((r) => setImmediate(r))
  const input = new PassThrough()
  const output = new PassThrough()
  const lines: Record<string, any>[] = []
  let buffer = ''
  output.on('data', (c) => {
    buffer += c
    let i
    while ((i = buffer.indexOf('\n')) >= 0) {
      const message = JSON.parse(buffer.slice(0, i))
      buffer = buffer.slice(i + 1)
      lines.push(message)
    }
  })
  const stdio = serveStdio(server, { input, output, maxMessageBytes: 1024, ...options })
  const send = (m: unknown) => input.write(`${typeof m === 'string' ? m : JSON.stringify(m)}\n`)
  return { stdio, input, output, lines, send }
}
