/** A 2025 client's session over raw HTTP, against a server in another process: initialize, a request in it, DELETE. */
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' }

/** A new session's id. */
export async function openSession(url: string): Promise<string> {
  const body = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } } }
  const res = await fetch(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(body) })
  await res.body?.cancel()
  if (res.status !== 200) throw new Error(`initialize: ${res.status}`)
  return res.headers.get('mcp-session-id')!
}

/** The status of a tools/list in the session: 200 while it lives, 404 once it is unknown. */
export async function inSession(url: string, session: string): Promise<number> {
  const res = await fetch(url, { method: 'POST', headers: { ...HEADERS, 'mcp-session-id': session }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }) })
  await res.body?.cancel()
  return res.status
}

/** The status of the session's DELETE. */
export async function endSession(url: string, session: string): Promise<number> {
  const res = await fetch(url, { method: 'DELETE', headers: { ...HEADERS, 'mcp-session-id': session } })
  await res.body?.cancel()
  return res.status
}
