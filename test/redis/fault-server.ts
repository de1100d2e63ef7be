/**
 * The server of test/redis/faults.test.ts, in a process of its own: `touch` tells listen streams that one
 * resource changed and answers whether the change went out; `heap` reports the heap after a full GC.
 */
import { serve } from '../../adapters/node/index.js'
import { redisBackplane } from '../../adapters/redis/index.js'
import { McpServer } from '../../src/index.js'

const backplane = redisBackplane({ url: process.env.REDIS_URL, onError: () => {} })
const server = new McpServer({ name: 'faults', version: '1.0.0' })
  .resourceTemplate('test://item/{n}', { name: 'item' }, (uri) => uri)
  .tool('touch', { input: { type: 'object', properties: { uri: { type: 'string' } }, required: ['uri'] } }, async (args, ctx) => ({
    published: await ctx.notify.resourceUpdated(String(args.uri)),
  }))
  .tool('heap', {}, () => {
    globalThis.gc?.()
    return { heapUsed: process.memoryUsage().heapUsed }
  })
const running = await serve(server, { port: 0, handleSignals: true, backplane, onError: () => {} })
running.http.once('close', () => void backplane.close())
