/** Starting the fan-out benchmark's processes, each allowed the file descriptors its sockets need. */
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'

/** Descriptors a process needs besides its sockets: stdio, IPC, the event loop's own, Node's internals. */
const SPARE_FDS = 200

/** The open-files limits of this process (soft, hard), or undefined where /proc does not tell (not Linux). */
function fileLimits(): { soft: number; hard: number } | undefined {
  if (!existsSync('/proc/self/limits')) return undefined
  const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'))
  const [soft, hard] = (line?.match(/(\d+|unlimited)\s+(\d+|unlimited)/)?.slice(1) ?? []).map((v) => (v === 'unlimited' ? Infinity : Number(v)))
  return soft === undefined || hard === undefined ? undefined : { soft, hard }
}

/**
 * Why a process holding `sockets` sockets cannot run here, or undefined when it can: a soft limit below
 * the need is raised for the child (`ulimit -S -n`), but only root with CAP_SYS_RESOURCE raises the hard one.
 */
export function fdShortfall(sockets: number): string | undefined {
  const limits = fileLimits()
  const need = sockets + SPARE_FDS
  if (!limits || limits.hard >= need) return undefined
  return `a process holding ${sockets} sockets needs ${need} open files, but the hard limit here is ${limits.hard} (ulimit -Hn): ` +
    `raise it (e.g. "ulimit -Hn ${need}" as root, LimitNOFILE= in systemd, docker run --ulimit nofile=${need}:${need}) or open fewer streams`
}

/**
 * Starts a module as an IPC child whose soft open-files limit covers `sockets` sockets. The server is
 * plain JavaScript on the built package, as users run it: under tsx (esbuild's keepNames) every named
 * closure would carry a `name` property of its own, some 4 KiB a stream more than the shipped code takes.
 */
export function startChild(module: string, sockets: number, env: NodeJS.ProcessEnv = process.env): ChildProcess {
  const path = new URL(module, import.meta.url).pathname
  const args = [...(path.endsWith('.ts') ? ['--import', 'tsx'] : []), '--expose-gc', path]
  const limits = fileLimits()
  const need = sockets + SPARE_FDS
  const stdio: ['inherit', 'inherit', 'inherit', 'ipc'] = ['inherit', 'inherit', 'inherit', 'ipc']
  if (!limits || limits.soft >= need) return spawn(process.execPath, args, { stdio, env })
  // The IPC channel is an inherited descriptor, so it survives the shell's exec.
  return spawn('/bin/sh', ['-c', `ulimit -S -n ${need} && exec "$0" "$@"`, process.execPath, ...args], { stdio, env })
}
