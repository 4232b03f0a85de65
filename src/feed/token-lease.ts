import type { TokenRevocation } from '../auth/revocation.js'
import { tokenFromHeader, type Claims } from '../auth/tokens.js'

/** How long the token a stream was opened with stays good (docs/change-feed.md "Change feed"). */
export interface TokenLease {
  /** When the token expires (its `exp` claim), in milliseconds since the epoch; undefined: never. */
  readonly expiresAt?: number
  /**
   * Whether the token is still current (not revoked: {@link TokenRevocation}); undefined for a
   * token that cannot be revoked.
   */
  readonly isCurrent?: () => boolean | Promise<boolean>
  /**
   * Whom the token's streams count against (FEED_MAX_STREAMS_PER_SUBJECT): its `sub` claim, or
   * for a token without one the token itself; undefined without a token (AUTH_ENABLED=false).
   */
  readonly subject?: string
}

/**
 * Makes the function that reads the lease of an `Authorization` header the bearer hook
 * (http/pipeline/auth-hook.ts) has already accepted: its `exp`, for a login or API token the
 * revocation check of {@link TokenRevocation}, and the subject its streams count against. A
 * header it cannot read gives an empty lease (the hook decides who gets in, not this).
 */
export function tokenLeases(
  verify: (token: string) => Claims,
  revocation: Pick<TokenRevocation, 'isCurrent' | 'revocable'>
): (authorization: string | undefined) => TokenLease {
  return (authorization) => {
    const token = tokenFromHeader(authorization)
    if (token === undefined) return {}
    let claims: Claims
    try {
      claims = verify(token)
    } catch {
      return {}
    }
    const { exp, sub } = claims
    const expiresAt = typeof exp === 'number' ? exp * 1000 : undefined
    // Distinct prefixes: a token string can never count against an account named like it.
    const subject = typeof sub === 'string' ? `sub:${sub}` : `token:${token}`
    if (!revocation.revocable(claims)) return { expiresAt, subject }
    return { expiresAt, subject, isCurrent: () => revocation.isCurrent(claims) }
  }
}
