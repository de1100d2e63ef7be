/**
 * Preloaded (NODE_OPTIONS --import) into every Node process a test starts under StrykerJS
 * (test/setup/stryker-children.ts). A mutant can make a child spin for ever; StrykerJS then kills the test
 * runner on its timeout, and the child, now nobody's, would take a core for the rest of the run (one did, for
 * 12 minutes). A worker thread, which runs while the main thread spins, ends the process once its parent is gone.
 */
import { Worker } from 'node:worker_threads'

new Worker(`
  const parent = process.ppid
  setInterval(() => { if (process.ppid !== parent) process.kill(process.pid, 'SIGKILL') }, 500)
`, { eval: true }).unref()
