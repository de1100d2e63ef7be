// The floor of the listen fan-out benchmark: the same SSE streams held by bare node:http, with no MCP, no
// fetch bridge, no backplane. What a stream costs here is Node's own (socket, parser, request, response).
import { createServer } from 'node:http'
import { drive } from './fanout-ipc.mjs'

const open = new Set()
const event = (message) => `event: message\ndata: ${JSON.stringify(message)}\n\n`
const http = createServer((req, res) => {
  let body = ''
  req.setEncoding('utf8')
  req.on('data', (chunk) => (body += chunk))
  req.on('end', () => {
    const { id } = JSON.parse(body)
    const _meta = { 'io.modelcontextprotocol/subscriptionId': id }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform' })
    res.write(event({ jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: { toolsListChanged: true }, _meta } }))
    const stream = { res, _meta }
    open.add(stream)
    res.on('close', () => open.delete(stream))
  })
})
http.maxConnections = Infinity
await new Promise((resolve) => http.listen(0, '127.0.0.1', resolve))
drive(`http://127.0.0.1:${http.address().port}/mcp`, async () => {
  for (const { res, _meta } of open) res.write(event({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta } }))
}, async () => {
  http.closeAllConnections()
  http.close()
})
