/**
 * Interleavings chosen by the test rather than by the clock: a gate opened by hand, a task store whose
 * chosen calls wait at a gate (or fail), and instances of one server sharing a store, so that two runners
 * of one task meet. Wait on these, never on a sleep.
 */
import type { FetchHandler, McpServer, TaskOptions, TaskRecord, TaskStore } from '../../src/index.js'
import { deferred } from './async.js'
import type { handlerPool } from './tasks.js'
import { tasks } from '../../src/index.js'

/** Closed until opened by hand; open for good after. */
export interface Gate {
  /** Settles once the gate is open (at once if it is). */
  readonly passed: Promise<void>
  readonly isOpen: boolean
  open(): void
}

export function gate(): Gate {
  const opened = deferred()
  return {
    passed: opened.promise,
    get isOpen() {
      return opened.settled
    },
    open: () => opened.resolve(),
  }
}

type Op = 'create' | 'get' | 'put'
/** What a call of `op` is given: an id to get, the record to create or put. */
export type Argument<O extends Op> = O extends 'get' ? string : TaskRecord

/** The calls of one operation that a HeldStore keeps from its store until they are released or dropped. */
export interface Hold<A> {
  /** The calls held so far, in the order they came. */
  readonly held: readonly A[]
  /** Settles with the first call held: it has reached the gate. */
  readonly reached: Promise<A>
  /** Ends the hold: the held calls go on to the store, in the order they came, and later ones straight through. */
  release(): void
  /** Ends the hold: the held calls reject without reaching the store (a connection lost under them), later ones go through. */
  drop(): void
}

export interface HeldStore extends TaskStore {
  /**
   * From now on, holds the calls of `op` that `match` picks (all by default) until `release` or `drop`, or
   * until `until` settles if given: a slow store, whose chosen writes land late.
   */
  hold<O extends Op>(op: O, match?: (arg: Argument<O>) => boolean, until?: Promise<unknown>): Hold<Argument<O>>
  /** Every record the store took (created, or put over its version), in the order it took them. */
  readonly writes: readonly TaskRecord[]
}

interface Rule {
  readonly op: Op
  readonly match: (arg: never) => boolean
  readonly take: (arg: unknown) => Promise<void>
}

/** `inner`, a real store, with calls that can be held at a gate; what it does with them is its own. */
export function heldStore(inner: TaskStore): HeldStore {
  const rules: Rule[] = []
  const writes: TaskRecord[] = []
  const pass = async <O extends Op>(op: O, arg: Argument<O>) => {
    const rule = rules.find((r) => r.op === op && (r.match as (a: Argument<O>) => boolean)(arg))
    if (rule) await rule.take(arg)
  }
  return {
    ...(inner.kind === undefined ? {} : { kind: inner.kind }),
    async create(task) {
      await pass('create', task)
      await inner.create(task)
      writes.push(task)
    },
    async get(id) {
      await pass('get', id)
      return inner.get(id)
    },
    async put(task) {
      await pass('put', task)
      const taken = await inner.put(task)
      if (taken) writes.push(task)
      return taken
    },
    ...(inner.start ? { start: inner.start.bind(inner) } : {}),
    ...(inner.list ? { list: inner.list.bind(inner) } : {}),
    ...(inner.close ? { close: inner.close.bind(inner) } : {}),
    writes,
    hold<O extends Op>(op: O, match: (arg: Argument<O>) => boolean = () => true, until?: Promise<unknown>): Hold<Argument<O>> {
      const held: Argument<O>[] = []
      const reached = deferred<Argument<O>>()
      const opened = deferred<boolean>()
      const rule: Rule = {
        op,
        match: match as (arg: never) => boolean,
        async take(arg) {
          held.push(arg as Argument<O>)
          if (!reached.settled) reached.resolve(arg as Argument<O>)
          if (!(await opened.promise)) throw new Error(`${op} dropped by the test`)
        },
      }
      const end = (through: boolean) => {
        if (opened.settled) return
        rules.splice(rules.indexOf(rule), 1)
        opened.resolve(through)
      }
      rules.push(rule)
      void until?.then(() => end(true), () => end(true))
      return { held, reached: reached.promise, release: () => end(true), drop: () => end(false) }
    },
  }
}

/**
 * Who held a task's lease after each write the store took, a holder's run of writes counted once and
 * writes that left it unleased (waiting for input, ended) not at all: [first runner, second runner, ...].
 */
export function holders(store: HeldStore, id: string): string[] {
  const out: string[] = []
  let last: string | undefined
  for (const task of store.writes) {
    if (task.id !== id) continue
    const holder = task.lease?.holder
    if (holder !== undefined && holder !== last) out.push(holder)
    last = holder
  }
  return out
}

/**
 * Instances of `server` sharing `store` and nothing else (each its own backplane), as processes behind a
 * load balancer: one per entry of `settings`, its task settings (a lease of its own, say). A task started
 * on one and answered on another is run by a runner on each, holding its lease in turn.
 */
export function sharing<const S extends readonly Omit<TaskOptions, 'store'>[]>(
  pool: ReturnType<typeof handlerPool>, server: McpServer, store: TaskStore, ...settings: S
): { [K in keyof S]: FetchHandler } {
  return settings.map((options) => pool({ extensions: [tasks({ ...options, store })] }, server)) as { [K in keyof S]: FetchHandler }
}
