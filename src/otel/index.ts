// `mcp-edge/otel`: requests as OpenTelemetry spans and metrics (needs @opentelemetry/api, an optional peer).
export { openTelemetry, type OpenTelemetryOptions } from './telemetry.js'
