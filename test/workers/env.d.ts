declare namespace Cloudflare {
  interface Env {
    MCP_HUB: DurableObjectNamespace<import('../../adapters/cloudflare/hub.js').McpHub>
    MCP_TASKS: DurableObjectNamespace<import('../../examples/everything/worker.js').McpTask>
    OAUTH_KV: KVNamespace
  }
  interface GlobalProps {
    mainModule: typeof import('../../examples/everything/worker.js')
    durableNamespaces: 'McpHub' | 'McpTask'
  }
}
