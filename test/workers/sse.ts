/** Reads JSON-RPC messages off an SSE body inside workerd, buffering to the blank line. */
export function sseReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  const queue: Record<string, any>[] = []
  return {
    async next(timeoutMs = 5000): Promise<Record<string, any>> {
      const deadline = Date.now() + timeoutMs
      while (queue.length === 0) {
        const left = deadline - Date.now()
        if (left <= 0) throw new Error('timed out waiting for an SSE message')
        const read = await Promise.race([reader.read(), new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timed out waiting for an SSE message')), left))])
        if (read.done) throw new Error('stream ended')
        buffer += decoder.decode(read.value, { stream: true })
        let end: number
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const data = buffer.slice(0, end).split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n')
          buffer = buffer.slice(end + 2)
          if (data) queue.push(JSON.parse(data))
        }
      }
      return queue.shift()!
    },
    cancel: () => reader.cancel(),
  }
}

export const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }

export function mcpRequest(method: string, params: Record<string, unknown>, id: string | number = 1, meta: Record<string, unknown> = META): Request {
  const headers: Record<string, string> = {
    'content-type': 'application/json', accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28', 'mcp-method': method,
  }
  const name = method === 'resources/read' ? params.uri : method === 'tools/call' ? params.name : method.startsWith('tasks/') ? params.taskId : undefined
  if (typeof name === 'string') headers['mcp-name'] = name
  return new Request('https://mcp.example.com/mcp', { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } }) })
}
