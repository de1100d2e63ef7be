/**
 * OpenTelemetry for `npm start`: with the standard OTEL_EXPORTER_OTLP_ENDPOINT set, the SDK starts and exports
 * the server's spans and metrics over OTLP (OTEL_EXPORTER_OTLP_PROTOCOL picks http/protobuf, http/json or
 * grpc; OTEL_SERVICE_NAME and the other OTEL_* variables as the SDK documents them). The SDK is a dev
 * dependency here: a deployment brings its own, and mcp-edge needs only @opentelemetry/api.
 */
export async function otelFromEnv(env: NodeJS.ProcessEnv): Promise<{ shutdown(): Promise<void> } | undefined> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return undefined
  const { NodeSDK } = await import('@opentelemetry/sdk-node')
  const sdk = new NodeSDK({ serviceName: env.OTEL_SERVICE_NAME ?? 'mcp-edge-everything' })
  sdk.start()
  return sdk
}
