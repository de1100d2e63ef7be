import type { MethodDescriptor } from '../types.js'
import { complete } from './completion.js'
import { discover, initialize, ping, setLevel } from './lifecycle.js'
import { getPrompt, listPrompts } from './prompts.js'
import { listResources, listTemplates, readResource, subscribe, unsubscribe } from './resources.js'
import { callTool, listTools } from './tools.js'

/** The methods of the protocol itself; `subscriptions/listen` lives in ../listen.ts, extensions add theirs. */
export const CORE_METHODS: readonly MethodDescriptor<any>[] = [
  discover, initialize, ping, setLevel,
  listTools, callTool, listPrompts, getPrompt, listResources, listTemplates, readResource, subscribe, unsubscribe, complete,
]
