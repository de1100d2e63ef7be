/**
 * The function's execution environments: each one runtime process polling a Runtime API of its own, serving
 * one invocation at a time. More start while all are busy, up to a limit, as Lambda scales out; a process
 * that exits is replaced (its next request is a cold start).
 */
import type { ChildProcess } from 'node:child_process'
import { startRuntimeApi, type RuntimeApi } from './runtime-api.js'
import { runtimeClient, SetupError, spawnRuntime, whyNotStarted } from './runtime.js'

export interface Environment {
  /** The runtime process now serving this environment. */
  readonly pid: number | undefined
  /** How many times a runtime process was started for it (1 = never replaced). */
  readonly starts: number
}

export interface Slot extends Environment {
  readonly api: RuntimeApi
  /** Stops its runtime process at once, as Lambda does past the timeout; another takes its place. */
  kill(): void
}

export interface EnvironmentOptions {
  /** Absolute directory of the bundle (LAMBDA_TASK_ROOT). */
  readonly root: string
  /** As Lambda names it: `file.export`. */
  readonly handler: string
  readonly env: Readonly<Record<string, string | undefined>>
  readonly instances: number
  readonly maxInstances: number
  /** How long the first processes may take to load the handler. */
  readonly startMs: number
  readonly log: (line: string) => void
}

export interface Environments {
  readonly slots: readonly Environment[]
  /** An idle environment, marked busy: a new one while all are busy, else the next to be released. */
  acquire(): Promise<Slot>
  release(slot: Slot): void
  close(): Promise<void>
}

interface State extends Slot {
  starts: number
  backoffMs: number
  child: ChildProcess | undefined
  busy: boolean
  /** The latest output of its processes, to say why one could not start. */
  output: string
}

/** Starts the runtime client process of one environment, and again whenever it exits (backing off when it dies at start). */
function launchRuntime(slot: State, ric: ReturnType<typeof runtimeClient>, options: EnvironmentOptions, closing: () => boolean): ChildProcess {
  const child = spawnRuntime(ric, options.root, options.handler, slot.api.address, options.env)
  slot.child = child
  slot.starts++
  const print = (d: Buffer) => {
    const text = d.toString()
    slot.output = (slot.output + text).slice(-16_384)
    options.log(text)
  }
  child.stdout?.on('data', print)
  child.stderr?.on('data', print)
  const started = Date.now()
  child.once('exit', () => {
    if (slot.child !== child) return
    slot.child = undefined
    slot.api.fail('{"errorType":"Runtime.ExitError","errorMessage":"the runtime process exited"}')
    // A function that dies at start would otherwise be restarted in a tight loop.
    slot.backoffMs = Date.now() - started < 1000 ? Math.min(5000, Math.max(100, slot.backoffMs * 2)) : 0
    if (!closing()) setTimeout(() => !closing() && launchRuntime(slot, ric, options, closing), slot.backoffMs)
  })
  return child
}

/** Starts `instances` environments; rejects with what went wrong when one cannot load the handler. */
export async function startEnvironments(options: EnvironmentOptions): Promise<Environments> {
  const ric = runtimeClient(options.root)
  let closing = false
  const slots: State[] = []
  const queue: ((slot: Slot) => void)[] = []

  const launch = (slot: State) => launchRuntime(slot, ric, options, () => closing)

  /** A new environment, busy until handed to its first request (or released unused). */
  const add = async (): Promise<{ slot: State; child: ChildProcess }> => {
    // Its Runtime API answers only the process this slot runs (read when a connection first asks).
    const api = await startRuntimeApi(() => slot.child?.pid)
    const slot: State = {
      api, child: undefined, busy: true, starts: 0, backoffMs: 0, output: '',
      get pid() {
        return this.child?.pid
      },
      kill() {
        this.child?.kill('SIGKILL')
      },
    }
    slots.push(slot)
    return { slot, child: launch(slot) }
  }

  const close = async () => {
    closing = true
    for (const slot of slots) slot.kill()
    await Promise.all(slots.map((s) => s.api.close()))
  }

  const first = await Promise.all(Array.from({ length: options.instances }, add))
  const failures = (await Promise.all(first.map(({ slot, child }) => loaded(slot, child, options)))).filter((f) => f !== undefined)
  if (failures.length > 0) {
    await close()
    throw new SetupError(failures[0])
  }
  for (const { slot } of first) slot.busy = false

  let adding = 0
  const release = (slot: Slot) => {
    const next = queue.shift()
    if (next) next(slot)
    else (slot as State).busy = false
  }
  const acquire = () =>
    new Promise<Slot>((resolve) => {
      const free = slots.find((s) => !s.busy)
      if (free) {
        free.busy = true
        return resolve(free)
      }
      queue.push(resolve)
      if (slots.length + adding >= options.maxInstances) return
      adding++
      add().then(
        ({ slot }) => {
          adding--
          release(slot)
        },
        (e) => {
          adding--
          options.log(`function-url: could not start an environment: ${(e as Error).message}\n`)
        },
      )
    })

  return { slots, acquire, release, close }
}

/** Undefined once the process asked for an invocation (the handler loaded); else why it could not. */
function loaded(slot: State, child: ChildProcess, options: EnvironmentOptions): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined
  return new Promise<string | undefined>((resolve) => {
    timer = setTimeout(() => resolve(`${options.handler} did not finish loading within ${options.startMs / 1000} s`), options.startMs)
    slot.api.ready.then(() => resolve(undefined))
    child.once('exit', (code) => resolve(whyNotStarted(options.handler, slot.api.initError, slot.output, code)))
  }).finally(() => clearTimeout(timer))
}
