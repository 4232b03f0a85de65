/**
 * What one cache entry is counted as holding, in bytes: the token string (base64url is ASCII, one
 * byte a character), its claims (decoded from at most 3/4 of its characters, strings of at most
 * two bytes a character: 1.5 bytes per token character) and a fixed 256 bytes for the map entry
 * and the objects around them. An upper estimate, so the byte bound holds whatever the payload.
 */
export function entryBytes(token: string): number {
  return 256 + token.length + Math.ceil(token.length * 1.5)
}

/**
 * A cache of verified tokens, keyed by the token string itself: a repeat request with the same
 * token skips decoding, hashing and the HMAC. Each entry lives until the token's `exp` (plus the
 * clock leeway), so an expired token is never accepted from the cache; only successes are
 * cached, so a token refused once is checked again next time.
 *
 * Bounded twice, the oldest entry dropped first: at most `max` entries and at most `maxBytes`
 * bytes as counted by {@link entryBytes}, so large tokens (a header may be up to
 * `MAX_HEADER_SIZE`) cannot pin more memory than the bound, however many are sent.
 *
 * @param verify the full verification; returns the claims or throws.
 * @param options `max` entries kept, `maxBytes` their size bound in bytes, `leewayMs` added to
 *   `exp`, `now()` the clock in milliseconds (tests may pass their own).
 * @returns a `verify(token)` with the same contract: the claims, or the error of `verify`.
 */
export function cacheVerified<Claims extends { exp?: unknown }>(
  verify: (token: string) => Claims,
  options: { max: number; maxBytes: number; leewayMs: number; now?: () => number }
): (token: string) => Claims {
  const { max, maxBytes, leewayMs, now = Date.now } = options
  const entries = new Map<string, { claims: Claims; until: number; bytes: number }>()
  let bytes = 0
  const drop = (token: string) => {
    bytes -= entries.get(token)!.bytes
    entries.delete(token)
  }
  return (token) => {
    const cached = entries.get(token)
    if (cached !== undefined) {
      if (now() < cached.until) return cached.claims
      drop(token)
    }
    const claims = verify(token)
    const until = typeof claims.exp === 'number' ? claims.exp * 1000 + leewayMs : Number.POSITIVE_INFINITY
    const size = entryBytes(token)
    if (size > maxBytes) return claims
    while (entries.size >= max || bytes + size > maxBytes) drop(entries.keys().next().value!)
    entries.set(token, { claims, until, bytes: size })
    bytes += size
    return claims
  }
}
