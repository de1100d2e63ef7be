/**
 * Resumable requests (src/resumable/) against a running everything server, the same checks on every runtime:
 * a client leaves a long call after its policy and first report, asks for its status, and resumes it on
 * another instance (or the same one where there is one), getting what it missed and the result.
 */
import { expect, it } from 'vitest'
import { META_2026, modernHeaders } from './server.js'
import { sseMessages, validateServerMessage } from './wire.js'

type Message = Record<string, any>

function post(url: string, id: string | number, method: string, params: Record<string, unknown>, signal?: AbortSignal) {
  const body = { ...params, _meta: META_2026({ resumableRequests: {} }, method === 'tools/call' ? { progressToken: 'long' } : {}) }
  return fetch(url, { method: 'POST', headers: modernHeaders(method, body), body: JSON.stringify({ jsonrpc: '2.0', id, method, params: body }), ...(signal ? { signal } : {}) })
}

async function* messages(res: Response, method: string): AsyncGenerator<Message> {
  expect(res.headers.get('content-type')).toBe('text/event-stream')
  for await (const message of sseMessages(res.body!)) {
    expect(validateServerMessage('2026-07-28', method, message)).toEqual([])
    yield message
  }
}

/** `urls()`: where the call starts, and where it is resumed (another instance sharing the store, or the same). */
export function resumableChecks(urls: () => [string, string]): void {
  it('a client that leaves a resumable call after the first report gets the rest, and the result, on resume', async () => {
    const [first, second] = urls()
    const id = `long-${crypto.randomUUID()}`
    const leaving = new AbortController()
    const seen: Message[] = []
    for await (const m of messages(await post(first, id, 'tools/call', { name: 'test_long_progress', arguments: {} }, leaving.signal), 'tools/call')) {
      seen.push(m)
      if (seen.length === 2) break
    }
    leaving.abort()
    expect(seen[0]).toMatchObject({ method: 'notifications/requests/resumePolicy', params: { requestId: id } })
    expect(seen[1]).toMatchObject({ method: 'notifications/progress', params: { progressToken: 'long', progress: 1 } })
    const resumeToken = seen[0]!.params.resumeToken as string

    const statusRes = await post(second, 'status', 'requests/getStatus', { requestId: id, resumeToken })
    const status = await statusRes.json() as Message
    expect(validateServerMessage('2026-07-28', 'requests/getStatus', status)).toEqual([])
    expect(status.result).toMatchObject({ requestId: id, status: 'processing', hasInputRequest: false })

    const rest: Message[] = []
    for await (const m of messages(await post(second, id, 'requests/resume', { resumeToken }), 'requests/resume')) rest.push(m)
    const progress = rest.filter((m) => m.method === 'notifications/progress').map((m) => m.params.progress)
    // Replayed at least once each (there is no Last-Event-ID here), in order, then live to the last.
    expect([...new Set(progress)]).toEqual([1, 2, 3, 4, 5, 6])
    expect(rest.at(-1)).toMatchObject({ id, result: { content: [{ type: 'text', text: 'Long work complete' }] } })
  }, 30_000)

  it('refuses a resume token under another request id', async () => {
    const [first] = urls()
    const leaving = new AbortController()
    let token: string | undefined
    for await (const m of messages(await post(first, 'own-id', 'tools/call', { name: 'test_long_progress', arguments: {} }, leaving.signal), 'tools/call')) {
      token = m.params.resumeToken
      break
    }
    leaving.abort()
    const refused = await (await post(first, 'other-id', 'requests/resume', { resumeToken: token })).json() as Message
    expect(validateServerMessage('2026-07-28', 'requests/resume', refused)).toEqual([])
    expect(refused.error).toMatchObject({ code: -32602, message: expect.stringMatching(/another id/) })
  })
}
