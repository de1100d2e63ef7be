import { INVALID_REQUEST } from '../../protocol/constants.js'
import { invalidParams, McpError, methodNotFound } from '../../protocol/errors.js'
import type { CachePolicy, ResourceContents } from '../../protocol/types.js'
import type { ResourceEntry, TemplateEntry } from '../../server/server.js'
import { cached, listed, listPage, requireString, withInput } from '../call.js'
import type { Call, MethodDescriptor } from '../types.js'
import { servedBy } from '../capabilities.js'
import { Context } from '../context.js'
import { listMethod } from './lists.js'
import { resourceContents } from '../results.js'

export const listResources: MethodDescriptor = {
  method: 'resources/list',
  served: servedBy('resources'),
  async run(call) {
    const { server, hideOutOfScope } = call.runtime
    const fixed = listed(call, 'resource')
    const listing = server.entries('resourceTemplate', call, hideOutOfScope).filter((e) => e.def.list)
    if (listing.length === 0) return listPage(call, 'resources', fixed)
    const ctx = new Context(call)
    const made = await Promise.all(listing.map((e) => e.def.list!(ctx)))
    return listPage(call, 'resources', [...fixed, ...made.flat()])
  },
}

export const listTemplates = listMethod('resources/templates/list', 'resourceTemplate', 'resourceTemplates', 'resources')

/** Where a URI is served from: a static resource, or a template with the variables it matched. */
export type ResourceTarget =
  | { readonly uri: string; readonly fixed: ResourceEntry; readonly template?: undefined; readonly scopes: readonly string[] | undefined }
  | { readonly uri: string; readonly fixed?: undefined; readonly template: TemplateEntry; readonly variables: Record<string, string>; readonly scopes: readonly string[] | undefined }

/** A static resource by exact URI, else the first template that matches, as the asker may see them. */
export function resourceAt(call: Call, uri: string): ResourceTarget | undefined {
  const { server } = call.runtime
  const fixed = server.find('resource', uri, call)
  if (fixed) return { uri, fixed, scopes: fixed.scopes }
  for (const template of server.entries('resourceTemplate', call)) {
    const variables = template.parsed.match(uri)
    if (variables) return { uri, template, variables, scopes: template.scopes }
  }
  return undefined
}

const notFound = (uri: string) => invalidParams(`Resource not found: ${uri}`, { uri })

/** A static resource by exact URI, else the first template that matches; nothing (or no contents) is -32602. */
export const readResource: MethodDescriptor<ResourceTarget> = {
  method: 'resources/read',
  served: servedBy('resources'),
  nameParam: 'uri',
  target(call) {
    const uri = requireString(call.params, 'uri')
    const target = resourceAt(call, uri)
    if (!target) throw notFound(uri)
    return target
  },
  scopes: (target) => target.scopes,
  run(call, target) {
    const { uri, fixed, template } = target
    return withInput(call, async (ctx) => {
      let contents: ResourceContents[] | undefined
      let policy: CachePolicy | undefined
      if (fixed) {
        contents = resourceContents(await fixed.handler(uri, ctx), uri, fixed.resource.mimeType)
        policy = fixed.cache
      } else {
        contents = resourceContents(await template.handler(uri, target.variables, ctx), uri, template.template.mimeType)
        policy = template.def.cache
      }
      if (!contents || contents.length === 0) throw notFound(uri)
      return cached(call, policy ?? call.runtime.server.cachePolicy('read'), { contents })
    })
  },
}

/**
 * `resources/subscribe` and `resources/unsubscribe` of a 2025 session: kept with the session, so that its
 * GET stream, on whichever instance holds it, carries `notifications/resources/updated` for the URI.
 * A URI the asker may not read is refused as if it did not exist.
 */
const subscription = (method: string, on: boolean): MethodDescriptor => ({
  method,
  eras: ['legacy'],
  served: servedBy('resources'),
  async run(call) {
    const { session, keepsSessions } = call.transport
    if (!keepsSessions) throw methodNotFound(method)
    if (!session) throw new McpError(INVALID_REQUEST, `${method} needs the session that initialize begins (over HTTP, its Mcp-Session-Id)`)
    const uri = requireString(call.params, 'uri')
    if (on && !call.runtime.readable(uri, call)) throw notFound(uri)
    await session.subscribe(uri, on)
    return {}
  },
})

export const subscribe = subscription('resources/subscribe', true)
export const unsubscribe = subscription('resources/unsubscribe', false)
