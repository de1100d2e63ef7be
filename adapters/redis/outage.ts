import { Cluster, type Redis } from 'ioredis'

/**
 * Where a connection goes, for messages: from what ioredis parsed (so a URL, a client or the defaults all
 * read alike), with the password, if any, as `***`. Never the URL as given, which may carry it in a query.
 */
export function redisAddress(redis: Redis | Cluster): string {
  // The seeds it was given (ioredis keeps them, undeclared): its nodes are not known before it connects.
  if (redis instanceof Cluster) return `the Redis Cluster of ${(redis as unknown as { startupNodes: { host: string; port: number }[] }).startupNodes.map((n) => `${n.host}:${n.port}`).join(', ')}`
  const { host, port, path, db, username, password, tls } = redis.options
  const user = username || password ? `${username ?? ''}${password ? ':***' : ''}@` : ''
  if (path) return `${user}unix:${path}`
  return `${tls ? 'rediss' : 'redis'}://${user}${host}:${port}${db ? `/${db}` : ''}`
}

const reason = (e: unknown) => (e instanceof Error ? e.message : String(e)) || 'no reason given'

/**
 * A connection error as an operator needs it: a Redis never reached (a wrong address, a firewall, a password
 * refused) is not the same trouble as one that answered and then went away.
 */
export const unreachable = (reached: boolean, where: string, cause: unknown): Error =>
  new Error(reached
    ? `lost its connection to ${where} (${reason(cause)}); reconnecting`
    : `could not connect to ${where} (${reason(cause)}); retrying`, { cause })

/** The default onError of a Redis user: one line on stderr, without a stack for what is no bug. */
export const logOutage = (subject: string) => (e: unknown) => console.error(`mcp-edge: ${subject}: ${reason(e)}`)

/**
 * The outages of one user of Redis, each reported once (ioredis reconnects by itself and would otherwise
 * print each attempt as an unhandled error): "could not connect" until Redis first answered, "lost" after.
 */
export class Outages {
  #reached = false
  #reported = false
  constructor(readonly where: string, readonly onError: (error: unknown) => void) {}

  /** Redis answered: the next failure starts a new outage, a loss. */
  up(): void {
    this.#reached = true
    this.#reported = false
  }

  /** Reports `error` unless this outage was reported already. */
  report(error: unknown): void {
    if (this.#reported) return
    this.#reported = true
    this.onError(error)
  }

  /** A connection's `error` event. */
  readonly failed = (cause: unknown): void => this.report(unreachable(this.#reached, this.where, cause))
}

/** Reports a connection's failures once per outage; its user reports what the connection cannot see (a stall). */
export function reportOutages(redis: Redis | Cluster, onError: (error: unknown) => void): Outages {
  const outages = new Outages(redisAddress(redis), onError)
  redis.on('ready', () => outages.up())
  redis.on('error', outages.failed)
  return outages
}
