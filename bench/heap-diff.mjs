// What the heap holds per listen stream, by kind of object: the difference of two heap snapshots
// (`bench/listen-fanout.ts --snapshot DIR` writes them) over the number of streams opened between them.
//   node --max-old-space-size=8000 bench/heap-diff.mjs DIR/memory-before.heapsnapshot DIR/memory-after.heapsnapshot 5000 [rows]
// Rows are self sizes by node type and constructor (closures by function name): what each stream adds.
import { readFileSync } from 'node:fs'

function bytesByKind(path) {
  const { snapshot, nodes, strings } = JSON.parse(readFileSync(path, 'utf8'))
  const fields = snapshot.meta.node_fields
  const types = snapshot.meta.node_types[0]
  const [type, name, size] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f))
  const unnamed = new Set(['string', 'concatenated string', 'sliced string', 'number', 'code'])
  const kinds = new Map()
  for (let i = 0; i < nodes.length; i += fields.length) {
    const t = types[nodes[i + type]]
    const key = unnamed.has(t) ? t : `${t} ${strings[nodes[i + name]].slice(0, 40)}`
    const kind = kinds.get(key) ?? { bytes: 0, count: 0 }
    kind.bytes += nodes[i + size]
    kind.count++
    kinds.set(key, kind)
  }
  return kinds
}

const [beforePath, afterPath, streams, rows = '40'] = process.argv.slice(2)
const before = bytesByKind(beforePath)
const after = bytesByKind(afterPath)
const n = Number(streams)
const none = { bytes: 0, count: 0 }
const keys = new Set([...before.keys(), ...after.keys()])
const diff = [...keys].map((key) => {
  const [a, b] = [before.get(key) ?? none, after.get(key) ?? none]
  return { key, bytes: (b.bytes - a.bytes) / n, count: (b.count - a.count) / n }
})
console.log(`${(diff.reduce((sum, d) => sum + d.bytes, 0)).toFixed(0)} bytes per stream`)
for (const d of diff.sort((x, y) => y.bytes - x.bytes).slice(0, Number(rows))) {
  console.log(`${d.bytes.toFixed(0).padStart(7)} B ${d.count.toFixed(2).padStart(7)} per stream  ${d.key}`)
}
