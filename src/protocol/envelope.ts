import { LOG_LEVELS, META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_LOG_LEVEL, META_PROTOCOL_VERSION, type LogLevel } from './constants.js'
import { invalidParams } from './errors.js'
import { isObject, type JsonObject } from './jsonrpc.js'
import type { ClientCapabilities, Implementation } from './types.js'

/** The per-request `_meta` envelope of the stateless protocol, read and checked (DIGEST §3). */
export interface Envelope {
  protocolVersion: string
  clientCapabilities: ClientCapabilities
  clientInfo?: Implementation | undefined
  logLevel?: LogLevel | undefined
  progressToken?: string | number | undefined
  meta: JsonObject
}

/** Missing or mistyped required fields make the request malformed: -32602 with HTTP 400. */
export function readEnvelope(params: JsonObject | undefined): Envelope {
  const meta = params?._meta
  if (!isObject(meta)) throw malformed('params._meta is required')
  const protocolVersion = meta[META_PROTOCOL_VERSION]
  if (typeof protocolVersion !== 'string' || protocolVersion === '') {
    throw malformed(`_meta["${META_PROTOCOL_VERSION}"] is required`)
  }
  const clientCapabilities = meta[META_CLIENT_CAPABILITIES]
  if (!isObject(clientCapabilities)) throw malformed(`_meta["${META_CLIENT_CAPABILITIES}"] is required`)

  const envelope: Envelope = { protocolVersion, clientCapabilities, meta }
  const clientInfo = meta[META_CLIENT_INFO]
  if (clientInfo !== undefined) {
    if (!isObject(clientInfo) || typeof clientInfo.name !== 'string' || typeof clientInfo.version !== 'string') {
      throw malformed(`_meta["${META_CLIENT_INFO}"] must have a string name and version`)
    }
    envelope.clientInfo = clientInfo as unknown as Implementation
  }
  const logLevel = meta[META_LOG_LEVEL]
  if (logLevel !== undefined) {
    if (!LOG_LEVELS.includes(logLevel as LogLevel)) {
      throw invalidParams(`_meta["${META_LOG_LEVEL}"] must be one of ${LOG_LEVELS.join(', ')}`)
    }
    envelope.logLevel = logLevel as LogLevel
  }
  const token = meta.progressToken
  if (token !== undefined) {
    if (typeof token !== 'string' && !(typeof token === 'number' && Number.isInteger(token))) {
      throw malformed('_meta.progressToken must be a string or an integer')
    }
    envelope.progressToken = token
  }
  return envelope
}

const malformed = (message: string) => invalidParams(`Invalid request envelope: ${message}`)
