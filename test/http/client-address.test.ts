/** How an address becomes a client's share of the limits (src/http/client-address.ts). */
import { describe, expect, it } from 'vitest'
import { addressBucket, clientAddress } from '../../src/http/client-address.js'

describe('addressBucket', () => {
  it('keeps an IPv4 address, and takes one out of its IPv4-mapped IPv6 form', () => {
    expect(addressBucket('192.0.2.1')).toBe('192.0.2.1')
    expect(addressBucket('::ffff:192.0.2.1')).toBe('192.0.2.1')
    expect(addressBucket('::FFFF:192.0.2.1')).toBe('192.0.2.1')
    expect(addressBucket('::ffff:198.51.100.27')).toBe('198.51.100.27')
    // Only the whole address: an IPv4 tail inside another IPv6 address is part of that address.
    expect(addressBucket('2001:db8::ffff:1.2.3.4')).toBe('2001:db8:0:0::/64')
  })

  it('reduces an IPv6 address to its /64, whatever its spelling', () => {
    for (const a of ['2001:db8:0:1::', '2001:db8::1:0:0:0:7', '2001:0DB8:0000:0001:1:2:3:4', '[2001:db8:0:1::9]', '2001:db8:0:1::9%eth0', '2001:db8:0:1:0:0:1.2.3.4']) {
      expect([a, addressBucket(a)]).toEqual([a, '2001:db8:0:1::/64'])
    }
    expect(addressBucket('::1')).toBe('0:0:0:0::/64')
    expect(addressBucket('fe80::1')).toBe('fe80:0:0:0::/64')
    expect(addressBucket('ffff:db8::1')).toBe('ffff:db8:0:0::/64')
  })

  it('leaves what is not an address as it is: it is only a key', () => {
    for (const a of ['1:2:3', '1::2::3', 'zz::1', 'unknown', '1:2:3:4:5:6:7:8:9', '10000:db8::1']) expect(addressBucket(a)).toBe(a)
  })
})

describe('clientAddress', () => {
  const headers = new Headers({ 'x-forwarded-for': '203.0.113.9, 198.51.100.7' })
  it('takes the last entry of the header the deployer names (what its proxy appended), else the peer', () => {
    expect(clientAddress(headers, 'x-forwarded-for', '10.0.0.1')).toBe('198.51.100.7')
    expect(clientAddress(headers, undefined, '10.0.0.1')).toBe('10.0.0.1')
    expect(clientAddress(new Headers(), 'x-forwarded-for', '10.0.0.1')).toBe('10.0.0.1')
    expect(clientAddress(new Headers(), undefined, undefined)).toBeUndefined()
  })
})
