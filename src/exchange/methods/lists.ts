import type { ServerCapabilities } from '../../protocol/types.js'
import type { ListName } from '../../server/definitions.js'
import type { Kind } from '../../server/server.js'
import { listed, listPage } from '../call.js'
import { servedBy } from '../capabilities.js'
import type { MethodDescriptor } from '../types.js'

/** A list method: one page of the entries of a kind that the asker may see. */
export const listMethod = (method: string, kind: Kind, list: ListName, capability: keyof ServerCapabilities): MethodDescriptor => ({
  method,
  served: servedBy(capability),
  run: async (call) => listPage(call, list, listed(call, kind)),
})
