import { base64UrlToBytes, bytesToBase64Url } from '../protocol/base64.js'
import { invalidParams } from '../protocol/errors.js'
import { isObject, type JsonObject } from '../protocol/jsonrpc.js'
import { sharedRead } from './shared-read.js'

/**
 * The `requestState` of multi-round-trip requests: answers gathered so far and values the handler memoised,
 * bound to the method, a digest of the original params, the principal and an expiry, and sealed with
 * HMAC-SHA-256 (WebCrypto). The client may read it but cannot change it (DIGEST §7: treat it as hostile).
 */
export interface StatePayload {
  /** name of the server that issued it: servers sharing a secret do not accept each other's states */
  n: string
  /** method */
  m: string
  /** digest of the request's own params */
  d: string
  /** expiry, ms since epoch */
  x: number
  /** principal the state belongs to, when the request was authenticated */
  p?: string
  /** answers of earlier rounds, by input key */
  a: JsonObject
  /** memoised handler values */
  s: JsonObject
  /** random id, when each state may be used once (requestState.singleUse) */
  u?: string
  /** the round of the request that brings it back (the first request is round 1); states without it are of round 2 */
  r?: number
}

export interface StateCodec {
  seal(payload: StatePayload): Promise<string>
  /** Throws -32602 for a token that was tampered with, expired or not made by this key. */
  open(token: string): Promise<StatePayload>
}

/** s2: `s2.<key id>.<payload>.<mac>`; the key id tells a state of another secret from a forged one. */
const VERSION = 's2'
const encoder = new TextEncoder()

export type Secret = string | Uint8Array | CryptoKey

/**
 * Where the secret comes from when it is not given outright: asked on first use (and again after a failure),
 * e.g. `redisSharedSecret`, which makes one key for every instance sharing a Redis.
 */
export type SecretSource = () => Promise<Secret>

/** The secret itself, once, however it is given; a source that fails, or never answers, is asked again. */
export function resolvedSecret<T>(secret: Secret | SecretSource | undefined, use: (secret: Secret | undefined) => Promise<T>): () => Promise<T> {
  return sharedRead(async () => {
    const s = typeof secret === 'function' ? await secret() : secret
    assertSecretLength(s)
    return use(s)
  })
}

export function assertSecretLength(secret: Secret | undefined): void {
  const bytes = typeof secret === 'string' ? new TextEncoder().encode(secret) : secret instanceof Uint8Array ? secret : undefined
  if (bytes && bytes.byteLength < 32) throw new Error('requestState secret must be at least 32 bytes (e.g. 64 hex characters)')
}

export async function importStateKey(secret: Secret | undefined): Promise<CryptoKey> {
  if (typeof CryptoKey !== 'undefined' && secret instanceof CryptoKey) return secret
  let raw: Uint8Array
  if (secret === undefined) raw = crypto.getRandomValues(new Uint8Array(32))
  else raw = typeof secret === 'string' ? encoder.encode(secret) : (secret as Uint8Array)
  assertSecretLength(raw)
  return crypto.subtle.importKey('raw', raw as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify'])
}

/**
 * `key` is called on first use, not before: Workers forbid generating random values (and most async work)
 * while a module is being loaded, which is when servers are usually defined.
 */
export function stateCodec(secret: Secret | SecretSource | undefined): StateCodec {
  const key = resolvedSecret(secret, async (s) => {
    const k = await importStateKey(s)
    return { key: k, id: await keyId(k) }
  })
  const foreign = foreignKey(secret)
  return {
    async seal(payload) {
      const { key: hmacKey, id } = await key()
      const body = `${VERSION}.${id}.${bytesToBase64Url(encoder.encode(JSON.stringify(payload)))}`
      const mac = new Uint8Array(await crypto.subtle.sign('HMAC', hmacKey, encoder.encode(body)))
      return `${body}.${bytesToBase64Url(mac)}`
    },
    async open(token) {
      const parts = token.split('.')
      if (parts.length !== 4 || parts[0] !== VERSION) throw rejected('malformed')
      // Outside the try below: a key that cannot be imported is the server's fault, not the client's.
      const { key: hmacKey, id } = await key()
      if (parts[1] !== id) throw rejected(foreign)
      let mac: Uint8Array
      let payload: unknown
      try {
        mac = base64UrlToBytes(parts[3]!)
        const ok = await crypto.subtle.verify('HMAC', hmacKey, mac as BufferSource, encoder.encode(`${parts[0]}.${parts[1]}.${parts[2]}`))
        if (!ok) throw rejected('its signature does not match')
        payload = JSON.parse(new TextDecoder().decode(base64UrlToBytes(parts[2]!)))
      } catch (e) {
        throw e instanceof Error && e.name === 'McpError' ? e : rejected('malformed')
      }
      return checkedPayload(payload)
    },
  }
}

/** What a client is told when a state comes from an instance with another key: the fix is the operator's. */
export const foreignKey = (secret: Secret | SecretSource | undefined) => secret === undefined
  ? 'it was sealed by another instance, and this one has no shared secret: give every instance the same requestState.secret (MCP_REQUEST_STATE_SECRET)'
  : 'it was sealed with another requestState secret: every instance serving this server must share one'

/** An opened payload, if it has the shape of one and has not expired. */
export function checkedPayload(payload: unknown): StatePayload {
  if (!isObject(payload) || typeof payload.m !== 'string' || typeof payload.x !== 'number') throw rejected('malformed')
  if (payload.x < Date.now()) throw rejected('it has expired')
  return payload as unknown as StatePayload
}

/** A public name of a key: 48 bits of an HMAC under it, which tells keys apart and gives nothing of them away. */
async function keyId(key: CryptoKey): Promise<string> {
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode('mcp-edge requestState key id')))
  return bytesToBase64Url(mac.subarray(0, 6))
}

export const rejected = (why: string) => invalidParams(`Invalid requestState: ${why}`)

/** SHA-256 of the canonical JSON of a value: key order does not change the digest. */
export async function digest(value: unknown): Promise<string> {
  const hash = await crypto.subtle.digest('SHA-256', encoder.encode(canonicalJson(value)))
  return bytesToBase64Url(new Uint8Array(hash))
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  if (isObject(value)) {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort()
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(value[k])}`).join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}
