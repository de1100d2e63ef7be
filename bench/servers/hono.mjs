// The ceiling: bare Hono on @hono/node-server, parsing the JSON-RPC body and echoing a tool result.
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import { announce } from './child.mjs'

const app = new Hono().post('/mcp', async (c) => {
  const body = await c.req.json()
  return c.json({ jsonrpc: '2.0', id: body.id, result: { resultType: 'complete', content: [{ type: 'text', text: body.params.arguments?.text ?? '' }] } })
})
serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => announce(`http://127.0.0.1:${info.port}/mcp`))
