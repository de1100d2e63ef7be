export { createWorker, type McpWorker, type WorkerOptions } from './worker.js'
export { McpHub } from './hub.js'
export { hubBackplane, type HubBackplaneOptions } from './backplane.js'
