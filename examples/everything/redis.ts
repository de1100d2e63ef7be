/**
 * Where the everything server's Redis is, from the environment: REDIS_CLUSTER_NODES (`host:port,host:port`,
 * seed nodes of a Redis Cluster) or REDIS_URL, with REDIS_PREFIX to keep servers sharing one apart. None: no
 * Redis, and everything stays in the process.
 */
export function redisFromEnv(env: Record<string, string | undefined>): { url?: string; cluster?: string[]; prefix: string | undefined } | undefined {
  const prefix = env.REDIS_PREFIX
  const cluster = env.REDIS_CLUSTER_NODES?.split(',').map((node) => node.trim()).filter(Boolean)
  if (cluster?.length) return { cluster, prefix }
  return env.REDIS_URL ? { url: env.REDIS_URL, prefix } : undefined
}
