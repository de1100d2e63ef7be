import type { HttpBindings } from '@hono/node-server'
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response'
import type { BodySource, SseSink } from '../../src/core.js'
import type { RuntimeContext } from '../../src/index.js'
import { IncomingBody } from './body.js'

/**
 * @hono/node-server sends nothing for its "already sent" Response, when that was made by the real Response
 * class. Once a server has started it puts a lighter Response of its own in the global, which it would
 * send: a marker made after that does not work, and streams then go through a Response body instead.
 * One marker serves every stream (the handler may add CORS headers to it, which nothing reads).
 */
const usable = !Object.getOwnPropertySymbols(RESPONSE_ALREADY_SENT).some((key) => key.description === 'cache')

/**
 * What the handler knows of a Node request: one object, held as long as a listen stream is open, that also
 * writes SSE streams straight to the ServerResponse (Node buffers what the socket has not taken, and
 * `writableLength` is that backlog), where the marker works (see above).
 */
export function nodePlatform(env: HttpBindings): RuntimeContext {
  return usable ? new DirectPlatform(env) : { env, clientAddress: env.incoming.socket.remoteAddress, body: () => new IncomingBody(env.incoming) }
}

class DirectPlatform implements RuntimeContext, SseSink {
  readonly clientAddress: string | undefined

  constructor(readonly env: HttpBindings) {
    this.clientAddress = env.incoming.socket.remoteAddress
  }

  body(): BodySource {
    return new IncomingBody(this.env.incoming)
  }

  // The platform is the stream's sink too: one object less for each open stream.
  sse(headers: Record<string, string>, stream: { gone(): void }): { sink: SseSink; response: Response } {
    const { outgoing } = this.env
    outgoing.writeHead(200, headers)
    // `on`, not `once`: the stream ignores being told twice, and once's wrapper costs each stream 250 bytes.
    // A bound method: smaller than an arrow function with the scope it keeps `stream` in.
    outgoing.on('close', stream.gone.bind(stream))
    return { sink: this, response: RESPONSE_ALREADY_SENT }
  }

  write(text: string): void {
    this.env.outgoing.write(text)
  }

  queued(): number {
    return this.env.outgoing.writableLength
  }

  end(): void {
    this.env.outgoing.end()
  }

  destroy(): void {
    this.env.outgoing.destroy()
  }
}
