/**
 * Authorization for tests of what is bound to whom, not of tokens: the bearer token is the user's name
 * ("Bearer alice" is alice, with no scopes). Tests of tokens themselves use test/helpers/auth-server.ts.
 */
import type { AuthOptions } from '../../src/index.js'
import { META_2026, modernHeaders, rpc } from './server.js'

export const namedUsers = (more: Partial<AuthOptions> = {}): AuthOptions => ({
  resource: 'http://localhost/mcp',
  authorizationServers: ['https://as.example'],
  verify: async (token) => ({ subject: token, claims: {} }),
  ...more,
})

/** The headers of a request made by `user` under namedUsers(). */
export const as = (user: string) => ({ authorization: `Bearer ${user}` })

/** One request through `handler` as `user` (see namedUsers; undefined sends no token), schema-checked by rpc. */
export function rpcAs(handler: (r: Request) => Promise<Response>, user: string | undefined, method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> = {}) {
  const full = { ...params, _meta: META_2026(capabilities) }
  return rpc(handler, method, full, { headers: { ...modernHeaders(method, full), ...(user === undefined ? {} : as(user)) } })
}
