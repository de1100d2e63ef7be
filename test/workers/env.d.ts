declare namespace Cloudflare {
  interface Env {
    MCP_HUB: DurableObjectNamespace<import('../../adapters/cloudflare/hub.js').McpHub>
  }
  interface GlobalProps {
    mainModule: typeof import('../../examples/everything/worker.js')
    durableNamespaces: 'McpHub'
  }
}
