/**
 * The function the runtime-client tests deploy: the everything server with tools that misbehave, a small
 * body limit and a short deadline margin; plus a raw streaming handler whose body stream fails midway.
 */
import { createLambdaHandler } from '../../adapters/lambda/index.js'
import { redisBackplane } from '../../adapters/redis/index.js'
import { awslambda, send, type ResponseStream } from '../../adapters/lambda/stream.js'
import { createEverythingServer } from '../../examples/everything/server.js'
import { tasks } from '../../src/index.js'

let lastAbort = 'never'

const server = createEverythingServer()
  .tool('throws', { description: 'Fails with an exception' }, () => {
    throw new Error('kaboom')
  })
  .tool('never_answers', { description: 'Ignores its signal and never returns' }, () => new Promise<string>(() => {}))
  .tool('until_aborted', { description: 'Reports progress, then runs until its signal aborts' }, async (_args, ctx) => {
    ctx.progress(0, 1)
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }))
    lastAbort = String((ctx.signal.reason as Error | undefined)?.message)
    return 'aborted'
  })
  .tool('last_abort', { description: 'Why until_aborted last saw its signal abort' }, () => lastAbort)

// Listen on Lambda needs a backplane every instance shares (the test machine's Redis); withoutGlobal has none.
const backplane = redisBackplane({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', prefix: `lambda-fixture-${process.pid}:` })
export const handler = createLambdaHandler(server, { maxBodyBytes: 2048, deadlineMarginMs: 1000, extensions: [tasks()], backplane })

export const brokenBody = awslambda()!.streamifyResponse(async (_event: unknown, stream: ResponseStream) => {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('first part\n'))
      setTimeout(() => controller.error(new Error('the body failed')), 20)
    },
  })
  await send(stream, () => ({ statusCode: 200, headers: { 'content-type': 'text/plain' } }), body, { flushBytes: 0, stop: new AbortController().signal }).catch(() => {})
})

/**
 * The same server, its handler made where no `awslambda` global is defined (a runtime that has none): the
 * handler then carries the streaming marker the runtime client reads itself. No backplane: it refuses listen.
 */
export const withoutGlobal = (() => {
  const scope = globalThis as { awslambda?: unknown }
  const defined = scope.awslambda
  delete scope.awslambda
  try {
    return createLambdaHandler(server, { extensions: [tasks()] })
  } finally {
    scope.awslambda = defined
  }
})()
