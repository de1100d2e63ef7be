import { TASKS } from '../protocol/constants.js'
import { isObject } from '../protocol/jsonrpc.js'
import type { Call } from '../exchange/types.js'
import { seedWantsTask } from './seed.js'

/** Whether the request declared the tasks extension (2026-07-28): only then may a call become a task. */
export const declared = (call: Call): boolean => isObject(call.client.capabilities.extensions?.[TASKS])

/**
 * Whether a tool call runs as a task: the one place that decides it, for the tasks extension and for
 * resumable requests (which leave such calls to it). At 2026-07-28 a task tool does when the request
 * declared the extension; the seed draft's client asks with `params.task` (and is refused a combination
 * the tool does not support).
 */
export const runsAsTask = (call: Call, support: 'optional' | 'required' | undefined): boolean =>
  call.profile.tasks === 'core' ? seedWantsTask(call, support) : support !== undefined && declared(call)
