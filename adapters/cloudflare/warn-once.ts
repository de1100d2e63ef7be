const said = new Set<string>()

/**
 * console.warn, once per isolate for each message: an isolate's bindings are the same for every request it
 * serves, so what a missing one costs is said when the first handler is made, not on every request.
 */
export function warnOnce(message: string): void {
  if (said.has(message)) return
  said.add(message)
  console.warn(message)
}
