/**
 * Thrown by a tool on purpose: its message reaches the model as an `isError` result. Any other exception
 * is reported to the runtime's `onError` and answered with a generic message and a correlation id.
 *
 * @example
 * ```ts
 * import { McpServer, ToolError } from 'mcp-edge'
 *
 * export const server = new McpServer({ name: 'weather', version: '1.0.0' })
 *   .tool('get_weather', { description: 'Weather in a city', input: { type: 'object', properties: { city: { type: 'string' } } } },
 *     (args) => {
 *       if (typeof args.city !== 'string' || args.city === '') throw new ToolError('Name a city')
 *       return `Sunny in ${args.city}`
 *     })
 * ```
 */
export class ToolError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'ToolError'
  }
}
