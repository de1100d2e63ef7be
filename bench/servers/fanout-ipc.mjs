// What both fan-out benchmark servers answer over IPC: memory probes, heap snapshots, publish, stop.
import { writeHeapSnapshot } from 'node:v8'

const now = () => performance.timeOrigin + performance.now()
const collect = async () => {
  for (let i = 0; i < 3; i++) globalThis.gc?.()
  await new Promise((r) => setTimeout(r, 50))
}

/** `publish` tells every stream of a tools change; `stop` ends them and the server. */
export function drive(url, publish, stop) {
  process.on('message', async (m) => {
    if (m.type === 'memory') {
      await collect()
      const { rss, heapUsed } = process.memoryUsage()
      process.send({ type: 'memory', rss, heapUsed })
    } else if (m.type === 'snapshot') {
      await collect()
      writeHeapSnapshot(m.path)
      process.send({ type: 'snapshot' })
    } else if (m.type === 'publish') {
      const t0 = now()
      await publish()
      process.send({ type: 'published', t0 })
    } else if (m.type === 'stop') {
      await stop()
      process.exit(0)
    }
  })
  process.send({ type: 'ready', url })
}
