import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { createSigner, createVerifier } from 'fast-jwt'
import { HttpError } from '../http/http-error.js'
import { Messages } from '../http/messages.js'
import { isRole } from '../storage/account-store.js'
import { allows, type Right } from './roles.js'
import type { TokenGenerations } from './token-generations.js'
import { cacheVerified } from './verified-tokens.js'

/** The HMAC algorithms a token may use (decisions: "Authentication"); anything else is invalid. */
export const ALGORITHMS = ['HS256', 'HS384', 'HS512'] as const

/** Clock skew tolerated on `exp` and `nbf`, in milliseconds. */
const CLOCK_TOLERANCE_MS = 30_000

/**
 * The claim of a POST /login token naming its account's token generation (issue 15:
 * "Revocation"); namespaced so that a token minted by another tool does not carry it by chance.
 */
export const GENERATION_CLAIM = 'book_service_generation'

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
 * the handler, so an unauthenticated or unauthorised request never reaches either.
 *
 * In order (issue 15: "Roles", "Revocation"): 401 `Authorization token required` when no token
 * is sent; 401 `Invalid token` when it does not verify, or carries a {@link GENERATION_CLAIM}
 * (tokens of POST /login) that is not its account's current generation (the account was
 * deleted, or its password or role changed); then 403 `Forbidden` when its `role` (`reader`,
 * `editor` or `admin`) lacks `right`. A token without one of those roles has every right (the
 * contract accepts any payload; whoever holds the secret can mint any role anyway).
 *
 * @param right what the route needs, or a function of the request method giving it.
 * @param generations the revocation check; its failure (storage unreachable) fails the request.
 */
export function createAuthHook(
  verify: (token: string) => Claims,
  right: Right | ((method: string) => Right),
  generations: Pick<TokenGenerations, 'isCurrent'>
): AuthHook {
  const needed = typeof right === 'function' ? right : () => right
  return function authenticate(request, _reply, done) {
    const token = tokenFromHeader(request.headers.authorization)
    if (token === undefined) return done(new HttpError(401, Messages.tokenRequired))
    let claims: Claims
    try {
      claims = verify(token)
    } catch {
      return done(new HttpError(401, Messages.invalidToken))
    }
    const { sub, [GENERATION_CLAIM]: gen } = claims
    // Only this service's three roles mean anything; any other `role` is another tool's claim.
    const role = isRole(claims.role) ? claims.role : undefined
    const decide = (current: boolean) => {
      if (!current) return done(new HttpError(401, Messages.invalidToken))
      if (!allows(role, needed(request.method))) return done(new HttpError(403, Messages.forbidden))
      done()
    }
    if (gen === undefined) return decide(true)
    if (typeof gen !== 'string' || typeof sub !== 'string') return decide(false)
    const current = generations.isCurrent(sub, gen)
    if (typeof current === 'boolean') return decide(current)
    current.then(decide, (error: unknown) => done(error as Error))
  }
}
