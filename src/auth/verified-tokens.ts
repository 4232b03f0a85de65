/**
 * A cache of verified tokens, keyed by the token string itself: a repeat request with the same
 * token skips decoding, hashing and the HMAC. Each entry lives until the token's `exp` (plus the
 * clock leeway), so an expired token is never accepted from the cache; only successes are
 * cached, so a token refused once is checked again next time.
 *
 * @param verify the full verification; returns the claims or throws.
 * @param options `max` entries kept (the oldest is dropped first), `leewayMs` added to `exp`,
 *   `now()` the clock in milliseconds (tests may pass their own).
 * @returns a `verify(token)` with the same contract: the claims, or the error of `verify`.
 */
export function cacheVerified<Claims extends { exp?: unknown }>(
  verify: (token: string) => Claims,
  options: { max: number; leewayMs: number; now?: () => number }
): (token: string) => Claims {
  const { max, leewayMs, now = Date.now } = options
  const entries = new Map<string, { claims: Claims; until: number }>()
  return (token) => {
    const cached = entries.get(token)
    if (cached !== undefined) {
      if (now() < cached.until) return cached.claims
      entries.delete(token)
    }
    const claims = verify(token)
    const until = typeof claims.exp === 'number' ? claims.exp * 1000 + leewayMs : Number.POSITIVE_INFINITY
    if (entries.size >= max) entries.delete(entries.keys().next().value!)
    entries.set(token, { claims, until })
    return claims
  }
}
