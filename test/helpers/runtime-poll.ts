/**
 * Another local program at a Runtime API's door: a process of its own polls it for the next invocation,
 * as one that found its port could, under the Host it chooses (a rebound name's, say).
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'

export interface ForeignPoll {
  /** Resolves once its request is out. */
  readonly sent: Promise<void>
  /** What the Runtime API answered. */
  readonly answer: Promise<{ status: number; body: string }>
  kill(): void
}

const NEXT = '/2018-06-01/runtime/invocation/next'

export function pollElsewhere(address: string, host = address): ForeignPoll {
  const [, port] = address.split(':')
  const script = `const req = require('node:http').get({ host: '127.0.0.1', port: ${Number(port)}, path: '${NEXT}', headers: { host: ${JSON.stringify(host)} } }, (res) => {
    let body = ''
    res.setEncoding('utf8').on('data', (c) => (body += c)).on('end', () => process.stdout.write(JSON.stringify({ status: res.statusCode, body })))
  })
  req.on('finish', () => process.stderr.write('sent'))`
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c))
  const sent = new Promise<void>((resolve) => child.stderr.once('data', () => resolve()))
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    child.once('exit', () => (out ? resolve(JSON.parse(out) as { status: number; body: string }) : reject(new Error('the poll ended unanswered'))))
  })
  return { sent, answer, kill: () => child.kill() }
}

/** The Runtime API address a runtime process was handed, read as a local program of the same user could. */
export function runtimeApiOf(pid: number): string {
  const entry = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').find((e) => e.startsWith('AWS_LAMBDA_RUNTIME_API='))
  return entry!.slice('AWS_LAMBDA_RUNTIME_API='.length)
}
