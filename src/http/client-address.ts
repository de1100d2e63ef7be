/**
 * Who an anonymous client is, for its share of the limits (listen streams, stored work): its address as the
 * platform saw it, or, behind a reverse proxy the deployer names (`clientAddressHeader`), as the proxy did.
 * One holder of an IPv6 /64 can use all of it, so such an address counts by its /64, as one IPv4 address.
 */
export function clientAddress(headers: Headers, header: string | undefined, peer: string | undefined): string | undefined {
  // A list (X-Forwarded-For) grows at its end: the last entry is the one the trusted proxy appended.
  const forwarded = header === undefined ? undefined : headers.get(header)?.split(',').pop()?.trim()
  const address = forwarded || peer
  return address === undefined ? undefined : addressBucket(address)
}

/** An IPv4 address as it is (an IPv4-mapped IPv6 one too); an IPv6 one as its /64 (`2001:db8:0:1::/64`). */
export function addressBucket(address: string): string {
  if (!address.includes(':')) return address
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '')
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(bare)
  if (mapped) return mapped[1]!
  const halves = bare.split('::')
  if (halves.length > 2) return address
  const groups = (part: string | undefined) => (part ? part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])) : [])
  const head = groups(halves[0])
  const tail = groups(halves[1])
  const all = halves.length === 2 ? [...head, ...Array<string>(Math.max(0, 8 - head.length - tail.length)).fill('0'), ...tail] : head
  const prefix = all.slice(0, 4).map((g) => Number.parseInt(g, 16))
  if (all.length !== 8 || prefix.some((g) => !(g >= 0 && g <= 0xffff))) return address
  return `${prefix.map((g) => g.toString(16)).join(':')}::/64`
}
