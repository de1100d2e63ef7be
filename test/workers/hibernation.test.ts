/** A hub evicted between events (hibernation) still fans out: its sockets and tags survive, its fields do not. */
import { runInDurableObject } from 'cloudflare:test'
import { env, exports } from 'cloudflare:workers'
import { expect, it } from 'vitest'
import type { McpHub } from '../../adapters/cloudflare/index.js'
import { shardOf } from '../../src/core.js'
import { listChanged } from '../../src/index.js'
import { mcpRequest, sseReader } from './sse.js'

it('delivers a change after the hub was evicted while idle', async () => {
  const res = await exports.default.fetch(mcpRequest('subscriptions/listen', { notifications: { toolsListChanged: true } }, 'h-1'))
  const stream = sseReader(res.body!)
  expect((await stream.next()).method).toBe('notifications/subscriptions/acknowledged')
  const hub = env.MCP_HUB.get(env.MCP_HUB.idFromName(`mcp-hub-${shardOf(listChanged('tools').topic, 4)}`))
  await runInDurableObject(hub, async (instance: McpHub) => {
    ;(instance as unknown as { marker?: number }).marker = 1
  })
  // Workers' keep-alives do not wake the hub; after ~10 s idle it is evicted (simulated hibernation).
  await new Promise((r) => setTimeout(r, 12_000))
  const marker = await runInDurableObject(hub, async (instance: McpHub, state: DurableObjectState) => ({
    marker: (instance as unknown as { marker?: number }).marker,
    sockets: state.getWebSockets().length,
  }))
  expect(marker).toEqual({ marker: undefined, sockets: 1 })
  await exports.default.fetch(mcpRequest('tools/call', { name: 'test_trigger_tool_change', arguments: {} }))
  expect(await stream.next()).toMatchObject({ method: 'notifications/tools/list_changed', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 'h-1' } } })
  await stream.cancel()
})
