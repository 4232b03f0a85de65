import ipaddr from 'ipaddr.js'

/**
 * The special-purpose addresses a webhook may not reach unless `WEBHOOK_ALLOW_PRIVATE=true`
 * (docs/webhooks.md "Private addresses"; docs/contract.md "Webhooks"), and why a URL is refused before
 * any name is resolved. No Node.js module: the web page can bundle it and say the same reasons.
 *
 * The rule is IANA's "IPv4 Special-Purpose Address Registry" and "IPv6 Special-Purpose Address
 * Registry" (iana.org/assignments/iana-ipv4-special-registry, iana-ipv6-special-registry): an
 * address in a range whose "Globally Reachable" is False, or N/A (Teredo, the deprecated 6to4
 * relay anycast), is refused; multicast, the deprecated site-local and IPv4-compatible IPv6
 * ranges are refused too. The ranges come from `ipaddr.js`'s `range()`, which names each one;
 * {@link REFUSED_RANGES} says which names are refused, and the tables below the exceptions and
 * the ranges it does not name. Addresses of 6to4 (`2002::/16`), NAT64 (`64:ff9b::/96`) and SIIT
 * (`::ffff:0:0:0/96`) carry an IPv4 address a gateway connects to: that address is checked by
 * the same rule. The local-use NAT64 prefix `64:ff9b:1::/48` is not globally reachable and is
 * refused whole.
 */

/** `ipaddr.js` range names refused, with the words a refusal uses. Other names are allowed. */
const REFUSED_RANGES: Readonly<Record<string, string>> = {
  unspecified: 'unspecified or "this network"',
  broadcast: 'limited broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'shared address space (100.64.0.0/10)',
  private: 'private-use (RFC 1918)',
  // 192.0.0.0/24, 192.0.2.0/24, 192.88.99.0/24, 198.18.0.0/15, 198.51.100.0/24, 203.0.113.0/24,
  // 240.0.0.0/4; 2001::/23, 2001:db8::/32, 3fff::/20: protocol assignments, documentation,
  // benchmarking and reserved.
  reserved: 'reserved or documentation',
  benchmarking: 'benchmarking (2001:2::/48)',
  uniqueLocal: 'unique-local (fc00::/7)',
  ipv4Mapped: 'IPv4-mapped (::ffff:0:0/96)',
  deprecatedSiteLocal: 'site-local (fec0::/10)',
  discard: 'discard-only (100::/64)',
  teredo: 'Teredo (2001::/32)',
  deprecatedOrchid: 'ORCHID (2001:10::/28)',
  segmentRouting: 'segment routing SIDs (5f00::/16)'
}

/**
 * What `ipaddr.js` does not tell apart, from the same IANA registries: the globally reachable
 * addresses inside a refused range (checked first), and the refused ranges it does not name
 * (checked last).
 */
const REACHABLE_EXCEPTIONS = [
  // Port Control Protocol and TURN anycast (RFC 7723, RFC 8155): globally reachable in 192.0.0.0/24.
  '192.0.0.9/32', '192.0.0.10/32',
  // PCP, TURN and DNS-SD service registration anycast (RFC 7723, RFC 8155, RFC 9665) in 2001::/23.
  '2001:1::1/128', '2001:1::2/128', '2001:1::3/128'
].map((cidr) => ipaddr.parseCIDR(cidr))
const UNNAMED_RANGES = [
  // The dummy IPv6 prefix (RFC 9780), not globally reachable.
  { range: '100:0:0:1::/64', words: 'dummy prefix (100:0:0:1::/64)' },
  // IPv4-compatible addresses (RFC 4291 section 2.5.5.1), deprecated.
  { range: '::/96', words: 'IPv4-compatible (::/96)' },
  // The local-use NAT64 prefix (RFC 8215), not globally reachable.
  { range: '64:ff9b:1::/48', words: 'local-use NAT64 (64:ff9b:1::/48)' }
].map((entry) => ({ ...entry, cidr: ipaddr.parseCIDR(entry.range) }))

function within(address: ipaddr.IPv4 | ipaddr.IPv6, cidr: [ipaddr.IPv4 | ipaddr.IPv6, number]): boolean {
  return address.kind() === cidr[0].kind() && address.match(cidr)
}

/** The IPv4 address an IPv6 address carries for a gateway (6to4, NAT64, SIIT), if it has one. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const bytes = address.toByteArray()
  switch (address.range()) {
    case '6to4':
      return new ipaddr.IPv4(bytes.slice(2, 6))
    case 'rfc6052': // 64:ff9b::/96 (the local-use /48 is refused before this is asked)
    case 'rfc6145': // ::ffff:0:0:0/96
      return new ipaddr.IPv4(bytes.slice(12, 16))
    default:
      return undefined
  }
}

function rangeOf(address: ipaddr.IPv4 | ipaddr.IPv6): string | undefined {
  if (REACHABLE_EXCEPTIONS.some((cidr) => within(address, cidr))) return undefined
  return REFUSED_RANGES[address.range()] ?? UNNAMED_RANGES.find((entry) => within(address, entry.cidr))?.words
}

/**
 * The special-purpose range `address` is in, in words (`loopback`, `reserved or documentation`…),
 * or undefined when a webhook may reach it. `address` is an IPv4 or IPv6 literal without
 * brackets; anything else is `not an IP address`. An IPv6 address embedding an IPv4 one (6to4,
 * NAT64, SIIT) is refused when that IPv4 address is, named so (`embeds 127.0.0.1: loopback`).
 */
export function specialPurposeRange(address: string): string | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6
  try {
    parsed = ipaddr.parse(address)
  } catch {
    return 'not an IP address'
  }
  const own = rangeOf(parsed)
  if (own !== undefined || parsed.kind() === 'ipv4') return own
  const embedded = embeddedIPv4(parsed as ipaddr.IPv6)
  if (embedded === undefined) return undefined
  const carried = rangeOf(embedded)
  return carried === undefined ? undefined : `embeds ${embedded.toString()}: ${carried}`
}

/** The URL's host as an address literal (IPv6 brackets removed), or undefined for a name. */
export function addressLiteral(url: URL): string | undefined {
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  return ipaddr.IPv6.isValid(host) || ipaddr.IPv4.isValidFourPartDecimal(host) ? host : undefined
}

/**
 * Why `text` may not be a webhook URL, as far as can be told without resolving a name, or
 * undefined: `not an absolute URL`, `not an http or https URL`, or (when private addresses are
 * not allowed) `<address> is a special-purpose address (<range>)`. The server also resolves a
 * name and refuses one that does not resolve or resolves to such an address
 * (`webhooks/address-policy.ts`).
 */
export function urlShapeRefusal(text: string, allowPrivate: boolean): string | undefined {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return 'not an absolute URL'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'not an http or https URL'
  if (allowPrivate) return undefined
  const literal = addressLiteral(url)
  if (literal === undefined) return undefined
  const range = specialPurposeRange(literal)
  return range === undefined ? undefined : `${literal} is a special-purpose address (${range})`
}
