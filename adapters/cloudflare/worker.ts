import {
  createFetchHandler, RESUMABLE, TASKS, type AuthInfo, type Authorization, type FetchHandler, type HandlerOptions, type McpServer, type Notify, type RuntimeOptions,
} from '../../src/index.js'
import { assertTasksServed } from '../../src/core.js'
import { hubBackplane } from './backplane.js'
import type { McpHub } from './hub.js'
import { durableSharedSecret } from './shared-secret.js'
import { durableUsedStates } from './used-states.js'
import type { TaskObject } from './task-object.js'
import { durableTaskStore } from './task-store.js'
import { warnOnce } from './warn-once.js'

export interface WorkerOptions extends Omit<HandlerOptions, 'auth'> {
  /**
   * Authorization (see HandlerOptions.auth), or a function making it from the Worker's bindings (vars such
   * as the issuer live there). Behind workers-oauth-provider, leave `verify` out: the identity it verified
   * (`ctx.auth`, `ctx.props`) is taken as the request's, when its audience is `resource`.
   */
  auth?: Authorization | ((env: Record<string, unknown>) => Authorization | undefined) | undefined
  /** Endpoint path (default `/mcp`). */
  path?: string | undefined
  /** Binding name of the McpHub Durable Object namespace (default `MCP_HUB`); without it, fan-out stays in the isolate. */
  hubBinding?: string | undefined
  /** Hubs to spread listen topics over (default 4). */
  shards?: number | undefined
  /**
   * Relay hubs per shard (default: the var MCP_HUB_RELAYS, else 0): past ~25,000 listen streams on one topic,
   * give it one relay per 20,000 (HubBackplaneOptions.relays).
   */
  relays?: number | undefined
  /**
   * Binding name of the requestState secret (default `MCP_REQUEST_STATE_SECRET`). Without it (or
   * `requestState.secret`), a key kept in an McpHub object serves every isolate (durableSharedSecret).
   */
  secretBinding?: string | undefined
  /**
   * Binding name of the task Durable Object namespace (default `MCP_TASKS`; the class is `taskObject(worker)`).
   * With it, the durable work of `tasks()` and `resumable()` lives and runs in one Durable Object each, and
   * outlives the request that made it; without it, in the isolate's memory (`store` overrides both).
   */
  taskBinding?: string | undefined
  // allowedHosts / allowedOrigins default to the comma-separated vars MCP_ALLOWED_HOSTS / MCP_ALLOWED_ORIGINS,
  // listen.maxStreamsPerClient to the var MCP_LISTEN_MAX_PER_CLIENT, requestState.singleUse to the var
  // MCP_REQUEST_STATE_SINGLE_USE ("true"); with the hub binding, single use is claimed in McpHub objects.
}

/**
 * What the Workers runtime passes as the third argument of fetch: waitUntil, and what workers-oauth-provider
 * adds when it wraps the Worker (the token it verified, the grant's props).
 */
export interface WaitUntil {
  waitUntil(promise: Promise<unknown>): void
  readonly auth?: { readonly audience: string; readonly scope: readonly string[]; readonly expiresAt?: number | undefined; readonly userId?: string | undefined; readonly clientId?: string | undefined } | undefined
  readonly props?: unknown
}

/** workers-oauth-provider's verified token as an AuthInfo, if it was issued for this resource. */
function providerAuth(ctx: WaitUntil, resource: string | undefined): AuthInfo | undefined {
  const { auth } = ctx
  if (!auth || auth.audience !== resource) return undefined
  const claims = typeof ctx.props === 'object' && ctx.props !== null ? (ctx.props as Record<string, unknown>) : {}
  return { subject: auth.userId, clientId: auth.clientId, scopes: auth.scope, expiresAt: auth.expiresAt, claims }
}

export interface McpWorker<Env> {
  /**
   * The Worker's fetch handler: `export default worker`. It answers the MCP endpoint and 404 elsewhere; to
   * serve routes of your own beside it, mount it in a Hono app (see the README).
   */
  fetch(request: Request, env: Env, ctx: WaitUntil): Promise<Response>
  /**
   * Change notification from outside a request (`scheduled`, `queue`, a webhook route): it reaches the
   * listen streams of every isolate through the hubs.
   */
  notify(env: Env): Notify
}

/** The server and options a worker was made from: the task Durable Object runs tasks with the same ones. */
export interface WorkerDefinition {
  readonly server: McpServer
  readonly options: WorkerOptions
}
// Kept off the handler object, which workerd reads as the module's default export.
const definitions = new WeakMap<McpWorker<never>, WorkerDefinition>()
export const definitionOf = (worker: McpWorker<never>): WorkerDefinition | undefined => definitions.get(worker)

const count = (value: unknown) => (typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : undefined)
const list = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.split(',').map((v) => v.trim()) : undefined)

/**
 * The var MCP_HUB_RELAYS (a string, or a number from wrangler.toml's [vars]), refused unless a whole number in
 * hubBackplane's range: read loosely, a typo meant no relays and 1,001 a TypeError on every request that did
 * not name the var. Thrown when the first request brings the bindings, the earliest a Worker sees them.
 */
function relaysVar(value: unknown): number | undefined {
  if (value === undefined) return undefined
  const relays = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value
  if (typeof relays !== 'number' || !Number.isInteger(relays) || relays < 0 || relays > 1000) {
    throw new TypeError(`mcp-edge: the var MCP_HUB_RELAYS must be a whole number from 0 to 1000 (relay hubs per shard), not ${JSON.stringify(value)}`)
  }
  return relays
}

/**
 * The services every part of one deployment shares, from its bindings: the hub backplane, the requestState
 * secret and single-use claims (in McpHub objects unless given). The Worker and the task Durable Objects both
 * build their runtimes from these.
 */
export function bindingServices(options: WorkerOptions, env: object): Pick<RuntimeOptions, 'backplane' | 'requestState'> {
  const bindings = env as Record<string, unknown>
  const secretName = options.secretBinding ?? 'MCP_REQUEST_STATE_SECRET'
  const hubName = options.hubBinding ?? 'MCP_HUB'
  const namespace = bindings[hubName] as DurableObjectNamespace<McpHub> | undefined
  const hubs = () => namespace!
  const secret = options.requestState?.secret ?? (typeof bindings[secretName] === 'string' && bindings[secretName] !== '' ? bindings[secretName] : undefined)
    ?? (namespace ? durableSharedSecret({ namespace: hubs }) : undefined)
  if (secret === undefined) warnOnce(`mcp-edge: no ${secretName} and no ${hubName}: input requests work only while one isolate answers every round`)
  if (!namespace && !options.backplane) {
    warnOnce(`mcp-edge: no ${hubName} binding: listen streams hear only of changes made in their own isolate (a tool call or notify(env) `
      + `in another isolate reaches none of them). Bind the McpHub Durable Object as ${hubName} and export { McpHub } from 'mcp-edge/cloudflare' (README, Deploy to Cloudflare).`)
  }
  // `true` would mean this isolate's memory, which another isolate answering the retry does not see.
  const singleUse = options.requestState?.singleUse ?? bindings.MCP_REQUEST_STATE_SINGLE_USE === 'true'
  const { onError } = options
  const relays = options.relays ?? relaysVar(bindings.MCP_HUB_RELAYS)
  const backplaneError = onError && ((e: unknown) => onError(e, { during: 'backplane' }))
  return {
    backplane: options.backplane ?? (namespace ? hubBackplane({
      namespace: hubs, binding: hubName, shards: options.shards, relays, onError: backplaneError,
    }) : undefined),
    requestState: { ...options.requestState, secret, singleUse: singleUse === true && namespace ? durableUsedStates({ namespace: hubs }) : singleUse },
  }
}

const DURABLE_WORK: Record<string, string> = { [TASKS]: 'tasks', [RESUMABLE]: 'resumable requests' }

/** Says which durable work lives in the isolate's memory for want of the task binding, if any does. */
function inIsolateMemory(binding: string, { extensions, sessions }: WorkerOptions): void {
  const what = extensions?.filter((e) => 'build' in e && !e.store).map((e) => DURABLE_WORK[e.id] ?? e.id) ?? []
  if (sessions) what.push('2025 sessions')
  if (what.length === 0) return
  warnOnce(`mcp-edge: no ${binding} binding: ${what.join(' and ')} live in this isolate's memory, so a request about one `
    + `that reaches another isolate does not find it, and it ends with the isolate. Bind taskObject(worker) as ${binding} (README, Deploy to Cloudflare).`)
}

/**
 * Serves an McpServer as a Cloudflare Worker. Listen streams stay in the Worker (billed for CPU, not for
 * waiting); changes fan out through McpHub Durable Objects, which hibernate between events; tasks live in
 * McpTask Durable Objects, one each, when the Worker has that binding. Export the classes from the Worker
 * module under the names wrangler.toml binds: `export { McpHub } from 'mcp-edge/cloudflare'` and
 * `export class McpTask extends taskObject(worker) {}`.
 * `Env` is your bindings' type (what `wrangler types` generates); the server definition is never changed.
 *
 * @example
 * ```ts
 * import { McpServer } from 'mcp-edge'
 * import { createWorker } from 'mcp-edge/cloudflare'
 *
 * const server = new McpServer({ name: 'weather', version: '1.0.0' })
 *   .tool('get_weather', { description: 'Sunny, always' }, () => 'Sunny')
 *
 * export { McpHub } from 'mcp-edge/cloudflare'   // the fan-out Durable Object, bound as MCP_HUB in wrangler.toml
 * export default createWorker(server)
 * ```
 */
export function createWorker<Env extends object = Record<string, unknown>>(server: McpServer, options: WorkerOptions = {}): McpWorker<Env> {
  // Bindings exist only once a request (or event) brings them: one handler per env, made on first use.
  assertTasksServed(server, options.extensions)
  const handlers = new WeakMap<object, FetchHandler>()
  const authFor = (env: Env) => (typeof options.auth === 'function' ? options.auth(env as Record<string, unknown>) : options.auth)

  const handlerFor = (env: Env): FetchHandler => {
    let handler = handlers.get(env)
    if (handler) return handler
    const bindings = env as Record<string, unknown>
    const taskName = options.taskBinding ?? 'MCP_TASKS'
    const tasks = bindings[taskName] as DurableObjectNamespace<TaskObject> | undefined
    if (!tasks && !options.store) inIsolateMemory(taskName, options)
    // Tasks and resumable requests live and run in the task objects, so that they outlive the request.
    const store = options.store ?? (tasks && durableTaskStore({ namespace: () => tasks }))
    handler = createFetchHandler(server, {
      ...options,
      auth: authFor(env),
      ...bindingServices(options, env),
      // A Worker's timer belongs to the request that set it: each listen stream keeps its own.
      requestTimers: true,
      store,
      // Cloudflare routes by hostname, so a deployed Worker needs no Host check; `wrangler dev` listens on
      // loopback like any local server and does (npm run dev sets MCP_ALLOWED_HOSTS for it).
      allowedHosts: options.allowedHosts ?? list(bindings.MCP_ALLOWED_HOSTS) ?? '*',
      allowedOrigins: options.allowedOrigins ?? list(bindings.MCP_ALLOWED_ORIGINS),
      listen: { ...options.listen, maxStreamsPerClient: options.listen?.maxStreamsPerClient ?? count(bindings.MCP_LISTEN_MAX_PER_CLIENT) },
    })
    handlers.set(env, handler)
    return handler
  }

  const path = options.path ?? '/mcp'
  const worker: McpWorker<Env> = {
    // No router here: a Worker pays for every byte it ships (cold start), and one path needs none.
    async fetch(request, env, ctx) {
      const handler = handlerFor(env)
      const pathname = new URL(request.url).pathname
      if (pathname !== path && pathname !== options.healthPath && !handler.metadataPaths.includes(pathname)) return new Response('Not Found', { status: 404 })
      return handler(request, {
        env, waitUntil: (p) => ctx.waitUntil(p), auth: ctx.auth && providerAuth(ctx, authFor(env)?.resource),
        // Set by Cloudflare's edge, whatever the client sends.
        clientAddress: request.headers.get('cf-connecting-ip') ?? undefined,
      })
    },
    notify: (env) => handlerFor(env).notify,
  }
  definitions.set(worker as McpWorker<never>, { server, options })
  return worker
}
