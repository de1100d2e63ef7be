// The minimal server of bench/workers/edge.ts as a Lambda function on mcp-edge/lambda, as a user would write it.
import { McpServer } from '../../src/index.js'
import { createLambdaHandler } from '../../adapters/lambda/index.js'

const server = new McpServer({ name: 'minimal', version: '1.0.0' }).tool('echo', {
  description: 'Echoes its text',
  input: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
}, (args) => String(args.text))

export const handler = createLambdaHandler(server)
