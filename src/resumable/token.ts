import { invalidParams } from '../protocol/errors.js'
import { isObject, type JsonRpcId } from '../protocol/jsonrpc.js'
import type { Runtime } from '../exchange/types.js'

/**
 * The method that takes resume tokens, and what a token's payload names as its method (a requestState's names
 * the method it continues): no requestState is ever issued for it, nor accepted as one.
 */
export const RESUME = 'requests/resume'

/**
 * The resumeToken: sealed like a requestState (HMAC with the server's requestState key, encrypted where those
 * are), so any instance can check it, and bound to the request id, the principal and the request's record.
 */
export function sealToken(runtime: Runtime, record: string, requestId: JsonRpcId, principal: string | undefined, until: number): Promise<string> {
  return runtime.requestState.seal({
    n: runtime.server.info.name, m: RESUME, d: JSON.stringify(requestId), x: until,
    ...(principal === undefined ? {} : { p: principal }), a: {}, s: { r: record },
  })
}

/** The record a token names, once it holds for this request id and principal; -32602 saying why not otherwise. */
export async function openToken(runtime: Runtime, token: unknown, requestId: JsonRpcId, principal: string | undefined): Promise<string> {
  if (typeof token !== 'string') throw invalidParams('params.resumeToken must be a string')
  let payload
  try {
    payload = await runtime.requestState.open(token)
  } catch (e) {
    throw invalidParams(`Invalid resumeToken: ${(e as Error).message.replace(/^Invalid requestState: /, '')}`)
  }
  if (payload.n !== runtime.server.info.name || payload.m !== RESUME || !isObject(payload.s) || typeof payload.s.r !== 'string') throw invalidParams('Invalid resumeToken: it is not a resume token of this server')
  if (payload.d !== JSON.stringify(requestId)) throw invalidParams('Invalid resumeToken: it was issued for a request of another id')
  if (payload.p !== principal) throw invalidParams('Invalid resumeToken: it was issued to a different principal')
  return payload.s.r as string
}
