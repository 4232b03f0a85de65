import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import { documentHook } from '../api-document/pipeline-responses.js'
import { forbiddenResponse, unauthorizedResponse, unavailableResponse } from '../api-document/response-schemas.js'
import { HttpError } from '../errors/http-error.js'
import { Messages } from '../messages.js'
import { allows, type Right } from '../../account/roles.js'
import type { TokenRevocation } from '../../auth/revocation.js'
import { tokenFromHeader, type Claims } from '../../auth/tokens.js'

/** The verified claims of each authenticated request (a WeakMap: gone with the request). */
const verifiedClaims = new WeakMap<FastifyRequest, Claims>()

/**
 * The `sub` claim of the token that authenticated `request` (any JSON value, as signed), or
 * undefined when the token has none or the route is not behind the bearer hook
 * (`AUTH_ENABLED=false`). `Idempotency-Key`s are scoped to it (docs/contract.md "Hardening").
 */
export function tokenSubject(request: FastifyRequest): unknown {
  return verifiedClaims.get(request)?.sub
}

/**
 * The verified claims of the token that authenticated `request`, or undefined when the route is
 * not behind the bearer hook (`AUTH_ENABLED=false`). The /tokens routes read the caller's `sub`
 * and `role` from them (docs/api-tokens.md).
 */
export function tokenClaims(request: FastifyRequest): Claims | undefined {
  return verifiedClaims.get(request)
}

/** The `onRequest` hook {@link createAuthHook} makes (callback style: no promise per request). */
export type AuthHook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void

/**
 * Makes the `onRequest` hook that protects a route: it runs before the body is read and before
 * the handler, so an unauthenticated or unauthorised request never reaches either.
 *
 * In order (docs/contract.md "Authentication", docs/accounts.md "Accounts and roles"): 401
 * `Authorization token required` when no token
 * is sent; 401 `Invalid token` when it does not verify, or is revoked ({@link TokenRevocation}: a
 * login token whose account was deleted or changed its password or role; an API token revoked,
 * its account deleted, or its role above the account's); then 403 `Forbidden` when its `role` lacks `right`
 * ({@link allows}: a token without a `role` claim has every right, one with a `role` that is not
 * `reader`, `editor` or `admin` has none).
 *
 * The hook is documented ({@link documentHook}): every operation behind it shows the bearer
 * scheme and its 401, 403 and 503 in the API document.
 *
 * @param right what the route needs, or a function of the request method giving it.
 * @param revocation the revocation check; its failure (storage unreachable) fails the request.
 */
export function createAuthHook(
  verify: (token: string) => Claims,
  right: Right | ((method: string) => Right),
  revocation: Pick<TokenRevocation, 'isCurrent'>
): AuthHook {
  const needed = typeof right === 'function' ? right : () => right
  return documentHook(authenticate, {
    // The revocation check reads the account's generation or the API token: 503 when the storage cannot answer.
    responses: { 401: unauthorizedResponse, 403: forbiddenResponse, 503: unavailableResponse },
    security: [{ bearerAuth: [] }]
  })

  function authenticate(request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction): void {
    const token = tokenFromHeader(request.headers.authorization)
    if (token === undefined) return done(new HttpError(401, Messages.tokenRequired))
    let claims: Claims
    try {
      claims = verify(token)
    } catch {
      return done(new HttpError(401, Messages.invalidToken))
    }
    const decide = (current: boolean) => {
      if (!current) return done(new HttpError(401, Messages.invalidToken))
      if (!allows(claims, needed(request.method))) return done(new HttpError(403, Messages.forbidden))
      verifiedClaims.set(request, claims)
      done()
    }
    const current = revocation.isCurrent(claims)
    if (typeof current === 'boolean') return decide(current)
    current.then(decide, (error: unknown) => done(error as Error))
  }
}

/**
 * Puts `hook` first among the `onRequest` hooks of every route `app` (a plugin) adds from now on.
 * The same as `app.addHook('onRequest', hook)` at run time, but on each route's own options, so
 * the API document (src/http/api-document/pipeline-responses.ts) sees the hook each operation
 * passes through and lists its statuses and security.
 */
export function guardEveryRoute(app: FastifyInstance, hook: AuthHook): void {
  app.addHook('onRoute', (route) => {
    const hooks = [route.onRequest ?? []].flat()
    // A HEAD route made from a GET route starts with the GET route's hooks, this one included.
    if (!hooks.includes(hook as never)) route.onRequest = [hook as never, ...hooks]
  })
}
