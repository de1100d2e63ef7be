import type { ServerResponse } from 'node:http'
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response'
import type { DirectSse } from '../../src/index.js'

/**
 * @hono/node-server sends nothing for a Response of its own "already sent" kind, made by its real Response
 * class. Once a server has started it puts a lighter Response of its own in the global, which it would
 * send: a marker made under that one does not work, and streams go through a Response body instead.
 */
const AlreadySent = RESPONSE_ALREADY_SENT.constructor as typeof Response
const ALREADY_SENT_HEADERS = Object.fromEntries(RESPONSE_ALREADY_SENT.headers)
const usable = !Object.getOwnPropertySymbols(RESPONSE_ALREADY_SENT).some((key) => key.description === 'cache')

/**
 * SSE streams written straight to the ServerResponse: Node buffers what the socket has not taken, and
 * `writableLength` is that backlog. Undefined where the marker cannot be made (see above).
 */
export function directSse(outgoing: ServerResponse): DirectSse | undefined {
  if (!usable) return undefined
  return (headers, onClose) => {
    let ended = false
    outgoing.writeHead(200, headers)
    outgoing.once('close', () => {
      if (!ended) onClose()
    })
    const sink = {
      write: (text: string) => (outgoing.write(text), outgoing.writableLength),
      end() {
        ended = true
        outgoing.end()
      },
      destroy() {
        ended = true
        outgoing.destroy()
      },
    }
    // One per stream: the handler adds CORS headers to what it returns, which must not reach the next stream.
    return { sink, response: new AlreadySent(null, { headers: ALREADY_SENT_HEADERS }) }
  }
}
