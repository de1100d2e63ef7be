/**
 * A function traced with OpenTelemetry: its spans go by OTLP/HTTP to OTLP_URL through a batch processor that
 * would hold them for an hour, so only the flush at the end of each invocation sends them.
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http'
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace'
import { createLambdaHandler } from '../../adapters/lambda/index.js'
import { McpServer } from '../../src/index.js'
import { openTelemetry } from '../../src/otel/index.js'

const exporter = new OTLPTraceExporter({ url: `${process.env.OTLP_URL}/v1/traces` })
const tracerProvider = new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: 3_600_000 })] })
const server = new McpServer({ name: 'traced-lambda', version: '1.0.0' }).tool('echo', { description: 'Echoes' }, () => 'echo')

export const handler = createLambdaHandler(server, { telemetry: openTelemetry({ tracerProvider }) })
