// A streaming function that answers without any server: the runtime client's own start, the baseline.
import { awslambda, send, type ResponseStream } from '../../adapters/lambda/stream.js'

export const handler = awslambda()!.streamifyResponse(async (_event: unknown, stream: ResponseStream, context: { callbackWaitsForEmptyEventLoop: boolean }) => {
  context.callbackWaitsForEmptyEventLoop = false
  await send(stream, () => ({ statusCode: 200, headers: { 'content-type': 'text/plain' } }), new Response('ok').body, { flushBytes: 0, stop: new AbortController().signal })
})
