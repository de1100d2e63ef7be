import { base64UrlToBytes, bytesToBase64Url } from '../protocol/base64.js'
import { invalidParams } from '../protocol/errors.js'

/**
 * Opaque pagination cursors: the list they belong to and an offset. Nothing is kept on the server, so any
 * instance can continue a listing another one started.
 */
export function page<T>(items: readonly T[], list: string, cursor: unknown, size: number): { items: T[]; nextCursor?: string } {
  const start = cursor === undefined ? 0 : offset(cursor, list)
  const end = start + size
  const result: { items: T[]; nextCursor?: string } = { items: items.slice(start, end) }
  if (end < items.length) result.nextCursor = bytesToBase64Url(new TextEncoder().encode(`${list}:${end}`))
  return result
}

function offset(cursor: unknown, list: string): number {
  if (typeof cursor === 'string') {
    try {
      const text = new TextDecoder().decode(base64UrlToBytes(cursor))
      const at = text.slice(list.length + 1)
      const n = Number(at)
      // Exactly what page() issues: this list's name, a colon, an offset in canonical decimal.
      if (text.startsWith(`${list}:`) && Number.isSafeInteger(n) && n >= 0 && at === String(n)) return n
    } catch {
      // fall through to the error below
    }
  }
  throw invalidParams('Invalid cursor', { cursor })
}
