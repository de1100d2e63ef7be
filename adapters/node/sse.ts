import type { ServerResponse } from 'node:http'
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response'
import type { DirectSse, SseSink } from '../../src/core.js'

/**
 * @hono/node-server sends nothing for its "already sent" Response, when that was made by the real Response
 * class. Once a server has started it puts a lighter Response of its own in the global, which it would
 * send: a marker made after that does not work, and streams then go through a Response body instead.
 * One marker serves every stream (the handler may add CORS headers to it, which nothing reads).
 */
const usable = !Object.getOwnPropertySymbols(RESPONSE_ALREADY_SENT).some((key) => key.description === 'cache')

/**
 * SSE streams written straight to the ServerResponse: Node buffers what the socket has not taken, and
 * `writableLength` is that backlog. Undefined where the marker does not work (see above).
 */
export function directSse(outgoing: ServerResponse): DirectSse | undefined {
  if (!usable) return undefined
  return (headers, onClose) => {
    outgoing.writeHead(200, headers)
    return { sink: new ResponseSink(outgoing, onClose), response: RESPONSE_ALREADY_SENT }
  }
}

class ResponseSink implements SseSink {
  #ended = false

  constructor(private readonly outgoing: ServerResponse, onClose: () => void) {
    outgoing.once('close', () => {
      if (!this.#ended) onClose()
    })
  }

  write(text: string): number {
    this.outgoing.write(text)
    return this.outgoing.writableLength
  }

  end(): void {
    this.#ended = true
    this.outgoing.end()
  }

  destroy(): void {
    this.#ended = true
    this.outgoing.destroy()
  }
}
