import type { Transport } from './types.js'

/**
 * Whose share of the limits a request uses (listen streams, kept work): its principal, or an anonymous
 * client's address (src/http/client-address.ts says which); undefined when neither is known (stdio), and
 * only the totals apply.
 */
export function clientShare(principal: string | undefined, { clientAddress }: Pick<Transport, 'clientAddress'>): string | undefined {
  return principal ?? (clientAddress === undefined ? undefined : `address ${clientAddress}`)
}
