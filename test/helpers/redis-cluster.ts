/**
 * A Redis Cluster of the test's own: 3 masters with a replica each by default, on free loopback ports, so a
 * test can kill a master and watch a replica take its slots over. The admin commands go through redis-cli,
 * which the machine has wherever it has redis-server.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { freePort } from './port.js'
import { REDIS_SERVER } from './redis.js'

const HOST = '127.0.0.1' as const
/** A cluster node listens on port + 10000 too, for the cluster bus. */
const BUS_OFFSET = 10_000
const SLOTS = 16384
const run = promisify(execFile)

interface Node {
  port: number
  dir: string
  child: ChildProcess
  log: () => string
  /** CLUSTER MYID, read once the cluster is up: CLUSTER NODES names a dead node by it. */
  id: string
}

/** One command through redis-cli; its reply as redis-cli prints it when not on a terminal. */
export async function redisCli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-h', HOST, '-p', String(port), ...args], { timeout: 10_000 })
  return stdout
}

async function canListen(port: number): Promise<boolean> {
  const probe = createServer()
  const listening = await new Promise<boolean>((resolve) => {
    probe.once('error', () => resolve(false))
    probe.listen(port, HOST, () => resolve(true))
  })
  if (listening) await new Promise((r) => probe.close(r))
  return listening
}

/**
 * n free ports whose bus ports are free as well. The kernel hands out ephemeral ports up to 60999, so one
 * above 55535 would have its bus port past 65535: those are drawn again. No port may be another's bus port.
 */
async function clusterPorts(n: number): Promise<number[]> {
  const ports: number[] = []
  const taken = new Set<number>()
  for (let tries = 0; ports.length < n; tries++) {
    if (tries > 100 * n) throw new Error(`no ${n} free port pairs (port and port+${BUS_OFFSET}) found`)
    const port = await freePort()
    if (port >= 65535 - BUS_OFFSET || taken.has(port) || taken.has(port + BUS_OFFSET)) continue
    if (!(await canListen(port + BUS_OFFSET))) continue
    ports.push(port)
    taken.add(port).add(port + BUS_OFFSET)
  }
  return ports
}

async function startNode(port: number): Promise<Omit<Node, 'id'>> {
  const dir = await mkdtemp(join(tmpdir(), `redis-cluster-${port}-`))
  const child = spawn(REDIS_SERVER, [
    '--port', String(port), '--bind', HOST,
    '--cluster-enabled', 'yes', '--cluster-config-file', `nodes-${port}.conf`,
    // Short, so that a killed master is failed over in a second or three rather than 15 s.
    '--cluster-node-timeout', '1000',
    '--save', '', '--appendonly', 'no', '--dir', dir,
    // A master otherwise waits 5 s for more replicas before its first (diskless) sync to one.
    '--repl-diskless-sync-delay', '0',
  ], { stdio: ['ignore', 'pipe', 'pipe'] })
  let log = ''
  child.stdout!.on('data', (c) => (log += c))
  child.stderr!.on('data', (c) => (log += c))
  return { port, dir, child, log: () => log }
}

/** Polls `ready` until it holds, or throws `why()` (with whatever it says of the nodes) after `ms`. */
async function waitFor(ms: number, ready: () => Promise<boolean>, why: () => string): Promise<void> {
  for (const end = Date.now() + ms; ; await new Promise((r) => setTimeout(r, 50))) {
    // A node between states (still loading, just killed) fails a command: that is "not yet".
    if (await ready().catch(() => false)) return
    if (Date.now() > end) throw new Error(why())
  }
}

const field = (info: string, name: string) => new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim()

/** Each master of CLUSTER NODES, as its node id, port, flags and the slots it serves. */
function parseNodes(text: string) {
  return text.trim().split('\n').map((line) => {
    const [id = '', address = '', flags = '', , , , , , ...slots] = line.trim().split(' ')
    const port = Number(address.split('@')[0]!.split(':').pop())
    // A slot being migrated shows as [slot->-id]: the node still serves it, so it is left out here.
    const ranges = slots.filter((s) => !s.startsWith('[')).map((s) => s.split('-').map(Number) as [number, number?])
    const serves = (slot: number) => ranges.some(([from, to = from]) => from <= slot && slot <= to)
    return { id, port, flags: flags.split(','), slotCount: ranges.reduce((n, [from, to = from]) => n + to - from + 1, 0), serves }
  })
}

export async function ownRedisCluster(options: { masters?: number; replicasPerMaster?: number } = {}) {
  const masters = options.masters ?? 3
  const replicas = options.replicasPerMaster ?? 1
  const ports = await clusterPorts(masters * (1 + replicas))
  const nodes: Node[] = []
  const dead = new Set<number>()
  const alive = () => nodes.filter((n) => !dead.has(n.port))
  const logs = () => nodes.map((n) => `--- node ${n.port} ---\n${n.log().slice(-3000)}`).join('\n')

  const stop = async () => {
    await Promise.all(nodes.map(async ({ child, dir }) => {
      // A killed child has a signalCode and no exitCode: stopping twice must not wait for a second exit.
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit')
        child.kill('SIGKILL')
        await exited
      }
      await rm(dir, { recursive: true, force: true })
    }))
  }

  try {
    for (const port of ports) nodes.push({ ...(await startNode(port)), id: '' })
    await Promise.all(nodes.map((n) => {
      // Exiting before it answers (port taken meanwhile, bad flag) ends the wait with redis-server's own words.
      const exited = once(n.child, 'exit').then(() => { throw new Error(`redis-server ${n.port} exited:\n${n.log()}`) })
      exited.catch(() => {})
      return Promise.race([exited, waitFor(10_000, async () => (await redisCli(n.port, 'PING')).trim() === 'PONG', () => `redis-server ${n.port} did not answer PING:\n${n.log()}`)])
    }))

    const create = await run('redis-cli', ['--cluster', 'create', ...ports.map((p) => `${HOST}:${p}`), '--cluster-replicas', String(replicas), '--cluster-yes'], { timeout: 60_000 })
      .catch((e: Error & { stdout?: string }) => { throw new Error(`redis-cli --cluster create failed: ${e.message}\n${e.stdout ?? ''}\n${logs()}`) })
    for (const n of nodes) n.id = (await redisCli(n.port, 'CLUSTER', 'MYID')).trim()

    // redis-cli returns once the nodes agree on the slots; the replicas may still be syncing, and a node
    // may not yet have met every other one (which a replica needs to be elected after a failover).
    let last = ''
    await waitFor(30_000, async () => {
      for (const n of nodes) {
        const info = await redisCli(n.port, 'CLUSTER', 'INFO')
        const replication = await redisCli(n.port, 'INFO', 'replication')
        last = `node ${n.port}:\n${info}${replication}`
        if (field(info, 'cluster_state') !== 'ok' || field(info, 'cluster_slots_ok') !== String(SLOTS)) return false
        if (field(info, 'cluster_known_nodes') !== String(nodes.length)) return false
        if (field(replication, 'role') === 'slave' && field(replication, 'master_link_status') !== 'up') return false
      }
      return true
    }, () => `the Redis Cluster did not come up: last seen\n${last}\nredis-cli --cluster create said:\n${create.stdout}\n${logs()}`)
  } catch (e) {
    await stop()
    throw e
  }

  /** CLUSTER NODES as a living node sees it. */
  const clusterNodes = async (port = alive()[0]!.port) => parseNodes(await redisCli(port, 'CLUSTER', 'NODES'))

  return {
    nodes: ports.map((port) => ({ host: HOST, port })),
    /** host:port of every node, comma-separated: what REDIS_CLUSTER_NODES takes. */
    seeds: ports.map((p) => `${HOST}:${p}`).join(','),
    /** The master serving the key's slot, as a living node sees it now. */
    async masterOf(key: string): Promise<{ port: number }> {
      const port = alive()[0]!.port
      const slot = Number(await redisCli(port, 'CLUSTER', 'KEYSLOT', key))
      const master = (await clusterNodes(port)).find((n) => n.flags.includes('master') && n.serves(slot))
      if (!master) throw new Error(`no master serves slot ${slot} (key ${key})`)
      return { port: master.port }
    },
    /** SIGKILL, as in a crash: no goodbye to the other nodes, who find out through the node timeout. */
    async kill(port: number) {
      const node = nodes.find((n) => n.port === port)
      if (!node) throw new Error(`no cluster node on port ${port}`)
      dead.add(port)
      if (node.child.exitCode !== null || node.child.signalCode !== null) return
      const exited = once(node.child, 'exit')
      node.child.kill('SIGKILL')
      await exited
    },
    /**
     * Until every surviving node sees the dead node's slots served by another (a promoted replica), and says
     * cluster_state:ok with every slot served. Right after a kill the survivors still say ok: what tells the
     * failover done is the dead node holding no slots any more. A dead replica held none: nothing to wait for.
     */
    async waitForFailover(deadPort: number) {
      const deadId = nodes.find((n) => n.port === deadPort)?.id
      if (!deadId) throw new Error(`no cluster node on port ${deadPort}`)
      let last = ''
      await waitFor(30_000, async () => {
        for (const n of alive()) {
          const info = await redisCli(n.port, 'CLUSTER', 'INFO')
          const view = await redisCli(n.port, 'CLUSTER', 'NODES')
          last = `node ${n.port}:\n${info}${view}`
          if (field(info, 'cluster_state') !== 'ok' || field(info, 'cluster_slots_ok') !== String(SLOTS)) return false
          if ((parseNodes(view).find((m) => m.id === deadId)?.slotCount ?? 0) > 0) return false
        }
        return true
      }, () => `no failover of node ${deadPort}: last seen\n${last}\n${logs()}`)
    },
    stop,
  }
}
