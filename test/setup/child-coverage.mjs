/**
 * Preloaded (NODE_OPTIONS --import) into every Node process a test starts while StrykerJS measures coverage
 * (test/setup/stryker-children.ts sets it up). Instrumented code counts the mutants it reaches in
 * globalThis.__stryker__.mutantCoverage, but in a child process no test runner reads them: this writes them
 * to MCP_EDGE_CHILD_COVERAGE/<pid>.json, every 25 ms while they change and once more at exit, where the test
 * process attributes them to the test that was running. Plain JavaScript with no imports of the project:
 * it loads before tsx and before any instrumented module.
 */
import { renameSync, writeFileSync } from 'node:fs'

const dir = process.env.MCP_EDGE_CHILD_COVERAGE
if (dir) {
  const file = `${dir}/${process.pid}.json`
  let written = ''
  const flush = () => {
    // A child has no current test, so everything it reaches is counted as `static`.
    const reached = globalThis.__stryker__?.mutantCoverage?.static
    if (reached === undefined) return
    const json = JSON.stringify(reached)
    if (json === written) return
    written = json
    // Whole files only: the reader never sees half of one.
    writeFileSync(`${file}.tmp`, json)
    renameSync(`${file}.tmp`, file)
  }
  setInterval(flush, 25).unref()
  process.on('exit', flush)
}
