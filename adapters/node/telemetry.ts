/**
 * On Node, requests are traced whenever the deployment has `@opentelemetry/api` installed (an optional peer):
 * an SDK it registers (NodeSDK, say) then just works, and without one the API's no-ops cost next to nothing.
 * Without the package, nothing is loaded.
 */
import type { Telemetry } from '../../src/index.js'

export const defaultTelemetry: Telemetry | undefined = await import('@opentelemetry/api').then(
  () => import('../../src/otel/index.js').then((otel) => otel.openTelemetry()),
  () => undefined,
)
