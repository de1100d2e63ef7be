/**
 * What a child process needs from this one to see StrykerJS's active mutant and report what it reaches
 * (test/setup/stryker-children.ts), for spawners that do not pass process.env on: the SDK's stdio
 * transports keep only a safe few variables, and the local function URL gives the runtime client no
 * NODE_OPTIONS of this process. Empty outside StrykerJS.
 */
export function mutationEnv(): Record<string, string> {
  if (process.env.STRYKER_MUTATOR_WORKER === undefined) return {}
  const env: Record<string, string> = {}
  for (const key of ['__STRYKER_ACTIVE_MUTANT__', 'MCP_EDGE_CHILD_COVERAGE', 'NODE_OPTIONS']) {
    const value = process.env[key]
    if (value !== undefined) env[key] = value
  }
  return env
}
