/**
 * Vitest global setup of the node project: the Lambda tests run functions under the real runtime client,
 * whose native part npm does not build (install scripts are off). scripts/lambda-ric.sh builds it once per
 * node_modules, a few minutes the first time; then nothing.
 */
import { execFileSync } from 'node:child_process'

export default function buildRuntimeClient(): void {
  if (process.env.STRYKER_MUTATOR_WORKER !== undefined) return
  execFileSync('scripts/lambda-ric.sh', { stdio: 'inherit' })
}
