import { invalidParams } from '../../protocol/errors.js'
import type { JsonObject } from '../../protocol/jsonrpc.js'
import type { CachePolicy, Resource, ResourceTemplate } from '../../protocol/types.js'
import { cached, enabled, listPage, requireString, withInput, type Call } from '../call.js'
import { Context } from '../context.js'
import { resourceContents } from '../results.js'
import type { McpServer } from '../server.js'

export async function listResources(server: McpServer, call: Call): Promise<JsonObject> {
  const fixed = server.list<Resource>('resources', () => enabled(server.resources).map((e) => e.resource))
  const listing = enabled(server.templates).filter((e) => e.def.list)
  let all = fixed
  if (listing.length > 0) {
    const ctx = new Context(call)
    const listed = await Promise.all(listing.map((e) => e.def.list!(ctx)))
    all = [...fixed, ...listed.flat()]
  }
  return listPage(server, call, 'resources', all)
}

export async function listTemplates(server: McpServer, call: Call): Promise<JsonObject> {
  return listPage(server, call, 'resourceTemplates', server.list<ResourceTemplate>('resourceTemplates', () => enabled(server.templates).map((e) => e.template)))
}

/** A static resource by exact URI, else the first template that matches; nothing (or no contents) is -32602. */
export async function readResource(server: McpServer, call: Call): Promise<JsonObject> {
  const uri = requireString(call.params, 'uri')
  const notFound = () => invalidParams(`Resource not found: ${uri}`, { uri })
  const fixed = server.resources.get(uri)
  return withInput(server, call, async (ctx) => {
    let contents
    let policy: CachePolicy | undefined
    if (fixed?.enabled) {
      contents = resourceContents(await fixed.handler(uri, ctx), uri, fixed.resource.mimeType)
      policy = fixed.cache
    } else {
      const entry = enabled(server.templates).find((e) => e.parsed.match(uri))
      if (!entry) throw notFound()
      contents = resourceContents(await entry.handler(uri, entry.parsed.match(uri)!, ctx), uri, entry.template.mimeType)
      policy = entry.def.cache
    }
    if (!contents || contents.length === 0) throw notFound()
    return cached(call, policy ?? server.cachePolicy('read'), { contents })
  })
}
