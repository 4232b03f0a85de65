import { lookup as dnsLookup, type LookupAddress } from 'node:dns'
import { promises as dns } from 'node:dns'
import type { LookupFunction } from 'node:net'
import { addressLiteral, specialPurposeRange, urlShapeRefusal } from './address-ranges.js'

/**
 * Server-side request forgery protection (docs/webhooks.md "Private addresses"; docs/contract.md
 * "Webhooks"): a webhook URL is refused at creation, and a delivery on the address actually
 * connected to, when the address is in a special-purpose range (`address-ranges.ts`, IANA's
 * registries) unless `WEBHOOK_ALLOW_PRIVATE=true`.
 */

/** A delivery or an endpoint refused because its host is, or resolves to, a special-purpose address. */
export class ForbiddenAddressError extends Error {
  override name = 'ForbiddenAddressError'
}

/** `<name> resolves to <address>, a special-purpose address (<range>)`: the words of a refused name. */
function resolvesToSpecial(hostname: string, address: string, range: string): string {
  return `${hostname} resolves to ${address}, a special-purpose address (${range})`
}

/**
 * Why `text` may not be a webhook URL, or undefined when it may: it must be an absolute `http:` or
 * `https:` URL whose host, when private addresses are not allowed, is not and does not resolve
 * to a special-purpose address; a name that does not resolve is refused too (it cannot be
 * checked). The reason is for the log (the client gets 400 `Invalid input`, docs/webhooks.md
 * "Private addresses"): `not an absolute URL`, `not an http or https URL`, `<address> is a
 * special-purpose address (<range>)`, `<name> resolves to <address>, a special-purpose address
 * (<range>)`, `<name> does not resolve`.
 */
export async function urlRefusal(text: string, allowPrivate: boolean): Promise<string | undefined> {
  const shape = urlShapeRefusal(text, allowPrivate)
  if (shape !== undefined || allowPrivate) return shape
  const url = new URL(text)
  if (addressLiteral(url) !== undefined) return undefined
  let addresses: LookupAddress[]
  try {
    addresses = await dns.lookup(url.hostname, { all: true, verbatim: true })
  } catch {
    return `${url.hostname} does not resolve`
  }
  for (const entry of addresses) {
    const range = specialPurposeRange(entry.address)
    if (range !== undefined) return resolvesToSpecial(url.hostname, entry.address, range)
  }
  return addresses.length === 0 ? `${url.hostname} does not resolve` : undefined
}

/**
 * A `lookup` for `http.request` that refuses a name resolving to any special-purpose address, so
 * the address actually connected to is checked at every delivery (a name that changes what it
 * resolves to between the check at creation and a delivery gains nothing). The refusal is a
 * {@link ForbiddenAddressError}.
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0)
    for (const entry of addresses) {
      const range = specialPurposeRange(entry.address)
      if (range !== undefined) return callback(new ForbiddenAddressError(resolvesToSpecial(hostname, entry.address, range)) as NodeJS.ErrnoException, '', 0)
    }
    if (addresses.length === 0) return callback(new ForbiddenAddressError(`${hostname} resolves to no address`) as NodeJS.ErrnoException, '', 0)
    if (options.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses)
    callback(null, addresses[0]!.address, addresses[0]!.family)
  })
}
