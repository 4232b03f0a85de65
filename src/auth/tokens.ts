import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { createSigner, createVerifier } from 'fast-jwt'
import { HttpError } from '../http/http-error.js'
import { Messages } from '../http/messages.js'
import { cacheVerified } from './verified-tokens.js'

/** The HMAC algorithms a token may use (decisions: "Authentication"); anything else is invalid. */
export const ALGORITHMS = ['HS256', 'HS384', 'HS512'] as const

/** Clock skew tolerated on `exp` and `nbf`, in milliseconds. */
const CLOCK_TOLERANCE_MS = 30_000

/** The claims of a verified token. None is required; `exp` and `nbf` are honoured when present. */
export type Claims = Record<string, unknown>

/**
 * Makes the function that verifies a token string (spec: "Authentication", decisions:
 * "Authentication"): HS256/HS384/HS512 signed with `secret`, `exp`/`nbf` honoured with a 30 s
 * leeway, no claim required, header fields such as `kid` or `jku` never followed. Verified tokens
 * are cached (keyed by the token string itself, until their `exp` plus the leeway) so repeat
 * requests skip decoding and the HMAC.
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
  return cacheVerified(verify, { max: 10_000, leewayMs: CLOCK_TOLERANCE_MS })
}

/**
 * Makes the function that issues tokens for POST /login: HS256, `sub` = username, `iat`, and
 * `exp` = now + `ttlSeconds`.
 */
export function createTokenSigner(secret: string, ttlSeconds: number): (subject: string) => string {
  const sign = createSigner({ key: secret, algorithm: 'HS256', expiresIn: ttlSeconds * 1000 })
  return (subject) => sign({ sub: subject })
}

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

/** The `onRequest` hook {@link createAuthHook} makes (callback style: no promise per request). */
export type AuthHook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void

/**
 * Makes the `onRequest` hook that protects a route: it runs before the body is read and before
 * the handler, so an unauthenticated request never reaches either.
 *
 * Fails the request with {@link HttpError} 401 `Authorization token required` when no token is
 * sent, 401 `Invalid token` when it does not verify.
 */
export function createAuthHook(verify: (token: string) => Claims): AuthHook {
  return function authenticate(request, _reply, done) {
    const token = tokenFromHeader(request.headers.authorization)
    if (token === undefined) return done(new HttpError(401, Messages.tokenRequired))
    try {
      verify(token)
    } catch {
      return done(new HttpError(401, Messages.invalidToken))
    }
    done()
  }
}
