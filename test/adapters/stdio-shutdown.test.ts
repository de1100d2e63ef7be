/** stdio at the end of its input: the tasks running in the process get the grace period, as requests do. */
import { describe, expect, it } from 'vitest'
import { McpServer, memoryTaskStore, tasks } from '../../src/index.js'
import { harness } from '../helpers/stdio.js'
import { META_2026 } from '../helpers/server.js'
import { TASK_CAPABILITIES } from '../helpers/tasks.js'

describe('stdio: input ends while a task runs', () => {
  it('lets the task finish within the grace period, then stops', async () => {
    const store = memoryTaskStore()
    const server = new McpServer({ name: 'eof', version: '1.0.0' })
      .tool('work', { task: 'required' }, () => new Promise((resolve) => setTimeout(() => resolve('worked'), 300)))
    const h = await harness(server, { extensions: [tasks({ store })], shutdownGraceMs: 5_000 })
    const params = { name: 'work', arguments: {}, _meta: META_2026(TASK_CAPABILITIES) }
    h.input.end(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params })}\n`)
    await h.stdio.closed
    const taskId = h.lines[0]!.result.taskId as string
    expect(await store.get(taskId)).toMatchObject({ status: 'completed', result: { content: [{ type: 'text', text: 'worked' }] } })
  })
})
