/**
 * Which requestStates have been taken (single-use rounds): each state carries a random id, and a retry is
 * served only if its id is claimed here for the first time. Ids are kept until their state would expire
 * anyway. Every instance serving one server must share the store (memory serves one process only).
 */
export interface UsedStates {
  /** True the first time `id` is claimed (keeping it until `untilMs`), false ever after. */
  claim(id: string, untilMs: number): Promise<boolean>
}

/**
 * Used ids in this process's memory, forgotten after their expiry (swept as new ones come).
 *
 * @example
 * ```ts
 * import { McpServer, memoryUsedStates } from 'mcp-edge'
 * import { serve } from 'mcp-edge/node'
 *
 * const server = new McpServer({ name: 'orders', version: '1.0.0' })
 *   .tool('cancel_order', { description: 'Asks first' }, async (_args, ctx) => {
 *     const answer = await ctx.elicit('sure', { message: 'Sure?', requestedSchema: { type: 'object', properties: {} } })
 *     return answer.action
 *   })
 *
 * // What `singleUse: true` makes; several processes share redisUsedStates instead.
 * await serve(server, { requestState: { singleUse: memoryUsedStates() } })
 * ```
 */
export function memoryUsedStates(): UsedStates {
  const used = new Map<string, number>()
  let nextSweep = 0
  return {
    async claim(id, untilMs) {
      const now = Date.now()
      if (now >= nextSweep) {
        for (const [key, until] of used) if (until <= now) used.delete(key)
        nextSweep = now + 60_000
      }
      const until = used.get(id)
      if (until !== undefined && until > now) return false
      used.set(id, untilMs)
      return true
    },
  }
}
