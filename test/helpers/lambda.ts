/** A bundled function behind the local function URL (scripts/lambda-local), on real runtime client processes. */
import { dirname } from 'node:path'
import { buildLambda } from '../../scripts/build-lambda.js'
import { startFunctionUrl, type FunctionUrl, type FunctionUrlOptions } from '../../scripts/lambda-local/function-url.js'

export interface LocalFunction extends FunctionUrl {
  /** What the runtime processes printed. */
  readonly logs: string[]
  /** The PID of every environment and how often each was started: a crash would change both. */
  processes(): string
}

export async function startFunction(entry: string, name: string, options: Partial<FunctionUrlOptions> = {}): Promise<LocalFunction> {
  const file = await buildLambda(entry, `dist/lambda/${name}`)
  const logs: string[] = []
  const running = await startFunctionUrl({ root: dirname(file), port: 0, rawEvents: true, log: (line) => void logs.push(line), ...options })
  return Object.assign(running, {
    logs,
    processes: () => running.environments.map((e) => `${e.pid}/${e.starts}`).join(' '),
  })
}

/** A function URL event's raw form, sent through the local front end as the event itself. */
export function rawEvent(url: string, event: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'x-local-lambda-event': 'raw' }, body: JSON.stringify(event) })
}
