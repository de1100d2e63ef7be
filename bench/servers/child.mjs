// What every benchmark server process shares: announce the URL, answer memory probes over IPC.
// The servers are plain JavaScript on the built package (dist/), as users run it: no loader, no transpiling.
export function announce(url) {
  process.on('message', async (m) => {
    if (m.type === 'exit') process.exit(0) // lets --cpu-prof write its profile
    if (m.type === 'cpu') return process.send({ type: 'cpu', ...process.cpuUsage() })
    if (m.type !== 'memory') return
    for (let i = 0; i < 3; i++) globalThis.gc?.()
    await new Promise((r) => setTimeout(r, 100))
    const { rss, heapUsed } = process.memoryUsage()
    process.send({ type: 'memory', rss, heapUsed })
  })
  process.send({ type: 'ready', url })
}

/** Ten tools besides the two the benchmark calls, so that tools/list returns a list of ordinary size. */
export const FILLER = Array.from({ length: 10 }, (_, i) => ({ name: `filler_${i}`, description: `Filler tool number ${i}` }))
