import { invalidParams } from '../../protocol/errors.js'
import type { CachePolicy, ResourceContents } from '../../protocol/types.js'
import { cached, listPage, requireString, withInput } from '../call.js'
import { servedBy } from '../capabilities.js'
import { Context } from '../context.js'
import type { MethodDescriptor } from '../method.js'
import { listMethod } from './lists.js'
import { resourceContents } from '../results.js'

export const listResources: MethodDescriptor = {
  method: 'resources/list',
  served: servedBy('resources'),
  async run(call) {
    const { server } = call.runtime
    const fixed = server.listed('resource', call)
    const listing = server.entries('resourceTemplate', call).filter((e) => e.def.list)
    if (listing.length === 0) return listPage(call, 'resources', fixed)
    const ctx = new Context(call)
    const listed = await Promise.all(listing.map((e) => e.def.list!(ctx)))
    return listPage(call, 'resources', [...fixed, ...listed.flat()])
  },
}

export const listTemplates = listMethod('resources/templates/list', 'resourceTemplate', 'resourceTemplates', 'resources')

/** A static resource by exact URI, else the first template that matches; nothing (or no contents) is -32602. */
export const readResource: MethodDescriptor<string> = {
  method: 'resources/read',
  served: servedBy('resources'),
  nameParam: 'uri',
  target: (call) => requireString(call.params, 'uri'),
  run(call, uri) {
    const { server } = call.runtime
    const notFound = () => invalidParams(`Resource not found: ${uri}`, { uri })
    const fixed = server.find('resource', uri, call)
    return withInput(call, async (ctx) => {
      let contents: ResourceContents[] | undefined
      let policy: CachePolicy | undefined
      if (fixed) {
        contents = resourceContents(await fixed.handler(uri, ctx), uri, fixed.resource.mimeType)
        policy = fixed.cache
      } else {
        const entry = server.entries('resourceTemplate', call).find((e) => e.parsed.match(uri))
        if (!entry) throw notFound()
        contents = resourceContents(await entry.handler(uri, entry.parsed.match(uri)!, ctx), uri, entry.template.mimeType)
        policy = entry.def.cache
      }
      if (!contents || contents.length === 0) throw notFound()
      return cached(call, policy ?? server.cachePolicy('read'), { contents })
    })
  },
}
