/**
 * A function behind the local function URL (adapters/lambda/local), on real runtime client processes, built
 * as `sam build` builds template.yaml's function (scripts/build-lambda.ts).
 */
import { buildLambda } from '../../scripts/build-lambda.js'
import { startFunctionUrl, type FunctionUrl, type FunctionUrlOptions } from '../../adapters/lambda/local/function-url.js'
import { mutationEnv } from './mutation.js'

export interface LocalFunction extends FunctionUrl {
  /** What the runtime processes printed. */
  readonly logs: string[]
  /** The PID of every environment and how often each was started: a crash would change both. */
  processes(): string
}

/**
 * `entry` bundled into dist/lambda/<name> and served with its `handler` export (options.handler names
 * another, as `file.export`); without `entry`, template.yaml's own function with its Handler.
 */
export async function startFunction(entry: string | undefined, name: string, options: Partial<FunctionUrlOptions> = {}): Promise<LocalFunction> {
  const built = await buildLambda(`dist/lambda/${name}`, entry === undefined ? {} : { entry })
  const logs: string[] = []
  const running = await startFunctionUrl({
    root: built.dir, handler: built.handler, port: 0, rawEvents: true, log: (line) => void logs.push(line), ...options,
    env: { ...mutationEnv(), ...options.env },
  })
  return Object.assign(running, {
    logs,
    processes: () => running.environments.map((e) => `${e.pid}/${e.starts}`).join(' '),
  })
}

/** A function URL event's raw form, sent through the local front end as the event itself. */
export function rawEvent(url: string, event: unknown): Promise<Response> {
  return fetch(url, { method: 'POST', headers: { 'x-local-lambda-event': 'raw' }, body: JSON.stringify(event) })
}
