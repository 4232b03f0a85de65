/** The claims of a token the page reads: who, which role, until when. */
export interface Claims {
  /** The username (`sub`), when the token has one. */
  sub?: string
  /** The `role` claim as written; absent on tokens minted elsewhere without one. */
  role?: unknown
  /** Expiry, in seconds since the epoch (`exp`), when the token has one. */
  exp?: number
}

/**
 * Reads the payload of a JWT without verifying it (the service verifies every request; the page
 * only needs to know what to show and when the token runs out).
 *
 * @returns the claims, or undefined when `token` is not a JWT with a JSON object payload.
 */
export function readClaims(token: string): Claims | undefined {
  const payload = token.split('.')[1]
  if (payload === undefined) return undefined
  try {
    const base64 = payload.replace(/-/g, '+').replace(/_/g, '/')
    const bytes = Uint8Array.from(atob(base64 + '='.repeat((4 - (base64.length % 4)) % 4)), (character) => character.charCodeAt(0))
    const claims: unknown = JSON.parse(new TextDecoder().decode(bytes))
    if (typeof claims !== 'object' || claims === null || Array.isArray(claims)) return undefined
    const { sub, role, exp } = claims as Record<string, unknown>
    return {
      sub: typeof sub === 'string' ? sub : undefined,
      // Only when the token has one: a token without `role` keeps every right (src/account/roles.ts).
      ...(Object.hasOwn(claims, 'role') ? { role } : {}),
      exp: typeof exp === 'number' ? exp : undefined
    }
  } catch {
    return undefined
  }
}
