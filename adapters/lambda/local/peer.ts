/**
 * Whether a connection to a local Runtime API comes from the runtime process it serves. aws-lambda-ric takes
 * the API as host:port alone (4.x refuses anything more in AWS_LAMBDA_RUNTIME_API, its `parseHostPort`; 3.x
 * parsed the port with parseInt, so its own requests, streamed responses among them, lost a path) and sends no header of ours, so no secret of ours can reach the
 * API: the process's identity stands in for one. On Linux, the only system its native part builds on
 * (runtime.ts): the client's end of the loopback connection is found in /proc/net/tcp by its address and
 * port, and its socket among the process's open files. Anything not found is refused.
 */
import { readdir, readFile, readlink } from 'node:fs/promises'
import type { Socket } from 'node:net'
import { endianness } from 'node:os'

/** True if process `pid` holds the other end of `socket`, a connection accepted on an IPv4 loopback address. */
export async function heldBy(socket: Socket, pid: number | undefined): Promise<boolean> {
  const { remoteAddress, remotePort, localAddress, localPort } = socket
  if (pid === undefined || remoteAddress === undefined || remotePort === undefined || localAddress === undefined || localPort === undefined) return false
  const inode = await socketInode(procAddress(remoteAddress, remotePort), procAddress(localAddress, localPort))
  if (inode === undefined) return false
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => [])
  const links = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')))
  return links.includes(`socket:[${inode}]`)
}

/** An IPv4 address and port as /proc/net/tcp prints them: the address's 32 bits in host order, in hex. */
function procAddress(address: string, port: number): string {
  const bytes = address.split('.').map(Number)
  if (endianness() === 'LE') bytes.reverse()
  return `${bytes.map((b) => b.toString(16).padStart(2, '0')).join('')}:${port.toString(16).padStart(4, '0')}`.toUpperCase()
}

/** The inode of the open IPv4 socket from `local` to `remote` (TIME_WAIT rows have none), if there is one. */
async function socketInode(local: string, remote: string): Promise<string | undefined> {
  const table = await readFile('/proc/net/tcp', 'utf8').catch(() => '')
  for (const line of table.split('\n')) {
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...
    const fields = line.trim().split(/\s+/)
    if (fields[1] === local && fields[2] === remote && fields[9] !== undefined && fields[9] !== '0') return fields[9]
  }
  return undefined
}
