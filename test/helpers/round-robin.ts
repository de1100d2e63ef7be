/**
 * A reverse proxy that sends each request to the next of its upstreams in turn, responses streamed back:
 * what a load balancer without affinity does to a session's requests. The Host header is the client's, as
 * behind a balancer, so that the servers' Host checks see what the client sent.
 */
import { createServer, request as forward, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface RoundRobin {
  readonly url: string
  /** Requests forwarded to each upstream, in the order given. */
  readonly counts: number[]
  /** Every request: the upstream it went to, its HTTP method and its body (bodies are read whole first). */
  readonly log: { upstream: number; method: string; body: string }[]
  close(): Promise<void>
}

export async function roundRobin(upstreams: readonly string[]): Promise<RoundRobin> {
  const targets = upstreams.map((u) => new URL(u))
  const counts = targets.map(() => 0)
  const log: RoundRobin['log'] = []
  let next = 0
  const server: Server = createServer(async (incoming, outgoing) => {
    const i = next++ % targets.length
    counts[i]!++
    const chunks: Buffer[] = []
    for await (const chunk of incoming) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks)
    log.push({ upstream: i, method: incoming.method!, body: body.toString() })
    const target = targets[i]!
    const upstream = forward({ host: target.hostname, port: target.port, path: incoming.url, method: incoming.method, headers: incoming.headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(outgoing)
    })
    upstream.on('error', () => outgoing.destroy())
    outgoing.on('close', () => upstream.destroy())
    upstream.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const path = new URL(upstreams[0]!).pathname
  return {
    url: `http://localhost:${port}${path}`,
    counts,
    log,
    close: () => new Promise((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}
