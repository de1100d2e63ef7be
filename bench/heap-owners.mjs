// Who holds what each listen stream adds: every object of the second heap snapshot that the first did not have
// (ids above the first's highest), charged to the nearest object of a named class up its chain of first
// retainers (a ListenStream, a ServerResponse, a closure by its function name), over the number of streams.
//   node --max-old-space-size=8000 bench/heap-owners.mjs DIR/memory-before.heapsnapshot DIR/memory-after.heapsnapshot 3000 [rows]
// `bench/listen-fanout.ts --snapshot DIR` writes the snapshots; `bench/heap-diff.mjs` sorts the same by kind.
import { readFileSync } from 'node:fs'

const [beforePath, afterPath, streams, rows = '30'] = process.argv.slice(2)
const load = (path) => JSON.parse(readFileSync(path, 'utf8'))

const first = load(beforePath)
const firstId = first.snapshot.meta.node_fields.indexOf('id')
let known = 0
for (let i = 0; i < first.nodes.length; i += first.snapshot.meta.node_fields.length) known = Math.max(known, first.nodes[i + firstId])

const { snapshot, nodes, edges, strings } = load(afterPath)
const nodeFields = snapshot.meta.node_fields
const edgeFields = snapshot.meta.edge_fields
const [TYPE, NAME, SIZE, ID, EDGES] = ['type', 'name', 'self_size', 'id', 'edge_count'].map((f) => nodeFields.indexOf(f))
const [EDGE_TYPE, TO] = ['type', 'to_node'].map((f) => edgeFields.indexOf(f))
const nodeTypes = snapshot.meta.node_types[0]
const edgeTypes = snapshot.meta.edge_types[0]
const count = nodes.length / nodeFields.length

// The first strong retainer of each node, in snapshot order.
const retainer = new Int32Array(count).fill(-1)
for (let n = 0, e = 0; n < count; n++) {
  for (let k = nodes[n * nodeFields.length + EDGES]; k > 0; k--, e += edgeFields.length) {
    const to = edges[e + TO] / nodeFields.length
    const type = edgeTypes[edges[e + EDGE_TYPE]]
    if (retainer[to] === -1 && type !== 'weak' && type !== 'shortcut') retainer[to] = n
  }
}

// Containers that belong to whoever holds them.
const anonymous = new Set(['Object', 'Array', 'Map', 'Set', 'Promise', '', 'system / Context', 'system / PropertyArray', 'system / PromiseReaction'])
function owner(n) {
  for (let at = retainer[n], depth = 0; at !== -1 && depth < 14; at = retainer[at], depth++) {
    const type = nodeTypes[nodes[at * nodeFields.length + TYPE]]
    const name = strings[nodes[at * nodeFields.length + NAME]]
    if ((type === 'object' || type === 'closure') && !anonymous.has(name) && !name.startsWith('(')) return `${type} ${name.slice(0, 40)}`
  }
  return 'unknown'
}

const owners = new Map()
for (let n = 0; n < count; n++) {
  if (nodes[n * nodeFields.length + ID] <= known) continue
  const key = owner(n)
  owners.set(key, (owners.get(key) ?? 0) + nodes[n * nodeFields.length + SIZE])
}
const k = Number(streams)
const total = [...owners.values()].reduce((a, b) => a + b, 0)
console.log(`${(total / k).toFixed(0)} bytes per stream in new objects`)
for (const [key, bytes] of [...owners].sort((a, b) => b[1] - a[1]).slice(0, Number(rows))) {
  console.log(`${(bytes / k).toFixed(0).padStart(7)} B  ${key}`)
}
