export { serve, type RunningServer, type ServeOptions } from './serve.js'
export { serveStdio, type StdioOptions, type StdioServer } from './stdio.js'
