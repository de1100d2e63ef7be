import { base64UrlToBytes, bytesToBase64Url } from '../protocol/base64.js'
import { checkedPayload, foreignKey, rejected, resolvedSecret, type Secret, type SecretSource, type StateCodec } from './request-state.js'

/** e1: `e1.<key id>.<iv and AES-GCM ciphertext>`, the version and key id bound in as additional data. */
const VERSION = 'e1'
const encoder = new TextEncoder()

/** The AES-GCM key and the public key id, both derived (HKDF-SHA-256) from the secret's bytes. */
async function deriveKeys(secret: Secret | undefined): Promise<{ key: CryptoKey; id: string }> {
  const raw = secret === undefined ? crypto.getRandomValues(new Uint8Array(32)) : typeof secret === 'string' ? encoder.encode(secret) : (secret as Uint8Array)
  const base = await crypto.subtle.importKey('raw', raw as BufferSource, 'HKDF', false, ['deriveKey', 'deriveBits'])
  const hkdf = (info: string) => ({ name: 'HKDF', hash: 'SHA-256', salt: new Uint8Array(0), info: encoder.encode(info) })
  const key = await crypto.subtle.deriveKey(hkdf('mcp-edge requestState AES-GCM'), base, { name: 'AES-GCM', length: 256 }, false, ['encrypt', 'decrypt'])
  const id = new Uint8Array(await crypto.subtle.deriveBits(hkdf('mcp-edge requestState key id'), base, 48))
  return { key, id: bytesToBase64Url(id) }
}

/**
 * requestState encrypted as well as sealed (AES-256-GCM): for servers whose memos or answers hold what the
 * client must not read. The secret must be bytes or a string (a key is derived from it); the state is a
 * little larger and opaque to the client, which only ever sends it back.
 */
export function encryptedStateCodec(secret: Secret | SecretSource | undefined): StateCodec {
  const bytesOnly = (s: unknown) => {
    if (typeof CryptoKey !== 'undefined' && s instanceof CryptoKey) throw new Error('requestState.encrypt needs the secret as a string or bytes, not a CryptoKey')
  }
  bytesOnly(secret)
  const keys = resolvedSecret(secret, async (s) => {
    bytesOnly(s)
    return deriveKeys(s)
  })
  const foreign = foreignKey(secret)
  return {
    async seal(payload) {
      const { key, id } = await keys()
      const iv = crypto.getRandomValues(new Uint8Array(12))
      const sealed = new Uint8Array(await crypto.subtle.encrypt(
        { name: 'AES-GCM', iv, additionalData: encoder.encode(`${VERSION}.${id}`) }, key, encoder.encode(JSON.stringify(payload)),
      ))
      const both = new Uint8Array(iv.byteLength + sealed.byteLength)
      both.set(iv)
      both.set(sealed, iv.byteLength)
      return `${VERSION}.${id}.${bytesToBase64Url(both)}`
    },
    async open(token) {
      const parts = token.split('.')
      if (parts.length !== 3 || parts[0] !== VERSION) throw rejected('malformed')
      const { key, id } = await keys()
      if (parts[1] !== id) throw rejected(foreign)
      let plain: ArrayBuffer
      try {
        const both = base64UrlToBytes(parts[2]!)
        if (both.byteLength < 12 + 16) throw new Error('short')
        plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: both.subarray(0, 12) as BufferSource, additionalData: encoder.encode(`${VERSION}.${id}`) }, key, both.subarray(12) as BufferSource)
      } catch {
        throw rejected('its seal does not match')
      }
      let payload: unknown
      try {
        payload = JSON.parse(new TextDecoder().decode(plain))
      } catch {
        throw rejected('malformed')
      }
      return checkedPayload(payload)
    },
  }
}
