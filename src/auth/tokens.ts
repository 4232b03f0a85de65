import { createSigner, createVerifier } from 'fast-jwt'
import { cacheVerified } from './verified-tokens.js'

/** The HMAC algorithms a token may use (docs/contract.md "Authentication"); anything else is invalid. */
export const ALGORITHMS = ['HS256', 'HS384', 'HS512'] as const

/** Most verified tokens kept in the cache. */
export const VERIFIED_TOKENS = 10_000
/** Most bytes the verified-token cache holds (16 MiB; see `entryBytes`): ~440 tokens of 15 KB, or 10,000 of 600 bytes. */
export const VERIFIED_TOKEN_BYTES = 16 * 1024 * 1024

/** Clock skew tolerated on `exp` and `nbf`, in milliseconds. */
const CLOCK_TOLERANCE_MS = 30_000

/**
 * The claim of a POST /login token naming its account's token generation (docs/accounts.md "Accounts and
 * roles"); namespaced so that a token minted by another tool does not carry it by chance.
 */
export const GENERATION_CLAIM = 'book_service_generation'

/**
 * The claim that marks an API token (docs/api-tokens.md), looked up by its `jti`; namespaced like
 * {@link GENERATION_CLAIM}, so that a token minted by another tool with a `jti` of its own is not
 * taken for one.
 */
export const API_TOKEN_CLAIM = 'book_service_api_token'

/** The claims of a verified token. None is required; `exp` and `nbf` are honoured when present. */
export type Claims = Record<string, unknown>

const BEARER = /^bearer(?:\s+|$)/i

/**
 * Extracts the token from an `Authorization` header value: the raw token, or `Bearer <token>`
 * (scheme case-insensitive).
 *
 * @returns the token, or undefined when the header is missing, empty, white space or a bare `Bearer`.
 */
export function tokenFromHeader(header: string | undefined): string | undefined {
  const value = header?.trim()
  if (!value) return undefined
  const token = value.replace(BEARER, '').trim()
  return token === '' ? undefined : token
}

/**
 * Makes the function that verifies a token string (docs/contract.md "Authentication"):
 * HS256/HS384/HS512 signed with `secret`, `exp`/`nbf` honoured with a 30 s
 * leeway, no claim required, header fields such as `kid` or `jku` never followed. Verified tokens
 * are cached (keyed by the token string itself, until their `exp` plus the leeway; at most
 * {@link VERIFIED_TOKENS} entries and {@link VERIFIED_TOKEN_BYTES} bytes) so repeat requests skip
 * decoding and the HMAC.
 *
 * @returns `verify(token)`, which returns the claims or throws when the token is invalid.
 */
export function createTokenVerifier(secret: string): (token: string) => Claims {
  const verify = createVerifier({
    key: secret,
    algorithms: [...ALGORITHMS],
    clockTolerance: CLOCK_TOLERANCE_MS,
    cache: false
  }) as (token: string) => Claims
  return cacheVerified(verify, { max: VERIFIED_TOKENS, maxBytes: VERIFIED_TOKEN_BYTES, leewayMs: CLOCK_TOLERANCE_MS })
}

/**
 * Makes the function that issues tokens for POST /login: HS256, `sub` = username, `iat`,
 * `exp` = now + `ttlSeconds`, and the `extra` claims given (login adds `role` and the generation claim).
 */
export function createTokenSigner(
  secret: string,
  ttlSeconds: number
): (subject: string, extra?: Record<string, string>) => string {
  const sign = createSigner({ key: secret, algorithm: 'HS256', expiresIn: ttlSeconds * 1000 })
  return (subject, extra) => sign({ sub: subject, ...extra })
}

/** The claims of an API token (docs/api-tokens.md); `exp` only when it expires. */
export interface ApiTokenClaims {
  sub: string
  role: string
  jti: string
  /** Issued at, in seconds since the epoch. */
  iat: number
  /** Expires at, in seconds since the epoch. */
  exp?: number
}

/**
 * Makes the function that signs API tokens: HS256 with `secret`, the claims given, and
 * {@link API_TOKEN_CLAIM}, which tells the revocation check (src/auth/revocation.ts) to look the
 * token up by its `jti`.
 */
export function createApiTokenSigner(secret: string): (claims: ApiTokenClaims) => string {
  const sign = createSigner({ key: secret, algorithm: 'HS256' })
  return (claims) => sign({ ...claims, [API_TOKEN_CLAIM]: true })
}
