/**
 * Thrown by a tool on purpose: its message reaches the model as an `isError` result. Any other exception
 * is reported to the runtime's `onError` and answered with a generic message and a correlation id.
 */
export class ToolError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = 'ToolError'
  }
}
