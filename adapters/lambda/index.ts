export {
  createBufferedLambdaHandler, createLambdaHandler,
  type BufferedLambdaHandler, type LambdaContext, type LambdaEnv, type LambdaEvent, type LambdaOptions, type StreamingLambdaHandler,
} from './handler.js'
export type { ResponseStream } from './stream.js'
export type { UrlEvent, UrlResult } from './url-event.js'
export type { RestEvent, RestResult } from './rest-event.js'
