import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { promises as dns } from 'node:dns'
import { BlockList, isIP, type LookupFunction } from 'node:net'

/**
 * Server-side request forgery protection (docs/webhooks.md "Private addresses"; docs/contract.md
 * "Webhooks"): the addresses a webhook may never reach unless `WEBHOOK_ALLOW_PRIVATE=true`.
 * Loopback, "this network" and unspecified, RFC 1918 private, shared (CGNAT), link-local (the
 * cloud metadata address 169.254.169.254 among them), multicast, reserved and broadcast IPv4;
 * unspecified, loopback, IPv4-mapped, IPv4-compatible, link-local, site-local, unique-local and
 * multicast IPv6.
 */
// Two lists: a BlockList checks an IPv4 address against its IPv6 rules too (as IPv4-mapped), so
// the IPv6 rules (::ffff:0:0/96 among them) would catch every IPv4 address.
const FORBIDDEN_IPV4 = new BlockList()
const FORBIDDEN_IPV6 = new BlockList()
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]
] as const) {
  FORBIDDEN_IPV4.addSubnet(network, prefix, 'ipv4')
}
for (const [network, prefix] of [
  ['::', 96], ['::1', 128], ['::ffff:0:0', 96], ['64:ff9b::', 96], ['fe80::', 10], ['fec0::', 10], ['fc00::', 7], ['ff00::', 8]
] as const) {
  FORBIDDEN_IPV6.addSubnet(network, prefix, 'ipv6')
}

/** True when `address` (an IPv4 or IPv6 literal, without brackets) is one a webhook may not reach. */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 0) return true
  return family === 4 ? FORBIDDEN_IPV4.check(address, 'ipv4') : FORBIDDEN_IPV6.check(address, 'ipv6')
}

/** A delivery or an endpoint refused because its host is, or resolves to, a forbidden address. */
export class ForbiddenAddressError extends Error {
  override name = 'ForbiddenAddressError'
}

/** The URL's host as an address literal (IPv6 brackets removed), or undefined for a name. */
export function addressLiteral(url: URL): string | undefined {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  return isIP(host) === 0 ? undefined : host
}

/**
 * Why `text` may not be a webhook URL, or undefined when it may: it must be an absolute `http:` or
 * `https:` URL whose host, when private addresses are not allowed, is not and does not resolve
 * to a forbidden address (a name that does not resolve is refused too: it cannot be checked).
 */
export async function urlRefusal(text: string, allowPrivate: boolean): Promise<string | undefined> {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return 'not an absolute URL'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'not an http or https URL'
  if (allowPrivate) return undefined
  const literal = addressLiteral(url)
  if (literal !== undefined) return isForbiddenAddress(literal) ? `${literal} is a private address` : undefined
  try {
    const addresses = await dns.lookup(url.hostname, { all: true, verbatim: true })
    const forbidden = addresses.find((entry) => isForbiddenAddress(entry.address))
    return forbidden === undefined ? undefined : `${url.hostname} resolves to the private address ${forbidden.address}`
  } catch {
    return `${url.hostname} does not resolve`
  }
}

/**
 * A `lookup` for `http.request` that refuses a name resolving to any forbidden address, so the
 * address actually connected to is checked at every delivery (a name that changes what it
 * resolves to between the check at creation and a delivery gains nothing).
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0)
    const forbidden = addresses.find((entry) => isForbiddenAddress(entry.address))
    if (forbidden !== undefined || addresses.length === 0) {
      const refusal = new ForbiddenAddressError(`${hostname} resolves to the private address ${forbidden?.address ?? '(none)'}`)
      return callback(refusal as NodeJS.ErrnoException, '', 0)
    }
    if (options.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses)
    callback(null, addresses[0]!.address, addresses[0]!.family)
  })
}
