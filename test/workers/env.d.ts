declare namespace Cloudflare {
  interface Env {
    MCP_HUB: DurableObjectNamespace<import('../../adapters/cloudflare/hub.js').McpHub>
    MCP_TASKS: DurableObjectNamespace<import('../../examples/everything/worker.js').McpTask>
    OAUTH_KV: KVNamespace
    /** Set by .ci/run's relays leg: every listen test goes through relay hubs. */
    MCP_HUB_RELAYS?: string
  }
  interface GlobalProps {
    mainModule: typeof import('../../examples/everything/worker.js')
    durableNamespaces: 'McpHub' | 'McpTask'
  }
}
