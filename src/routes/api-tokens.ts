import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Type from 'typebox'
import { ApiToken, ApiTokenInput, ApiTokenParams, ApiTokensQuery, CreatedApiToken } from '../account/api-token-schema.js'
import { allows, outranks } from '../account/roles.js'
import { isRole, type Role } from '../account/schema.js'
import { apiTokenView, issueApiToken } from '../auth/api-tokens.js'
import type { TokenRevocation } from '../auth/revocation.js'
import type { ApiTokenClaims, Claims } from '../auth/tokens.js'
import { envelopeOf } from '../http/envelope.js'
import { errorResponse, invalidInputResponse, successResponse } from '../http/api-document/response-schemas.js'
import { HttpError } from '../http/errors/http-error.js'
import { guardEveryRoute, tokenClaims, type AuthHook } from '../http/pipeline/auth-hook.js'
import { assertValidBody } from '../http/pipeline/json-body.js'
import { Messages } from '../http/messages.js'
import type { AccountStore } from '../storage/contracts/account-store.js'
import type { ApiTokenStore } from '../storage/contracts/api-token-store.js'

/** Options of the {@link apiTokensRoutes} plugin. */
export interface ApiTokensOptions {
  /** Where the caller's account and its current role are read. */
  accounts: Pick<AccountStore, 'generation'>
  apiTokens: ApiTokenStore
  /** The `onRequest` hook admitting any role's token (401, then 403 for a token with no rights); always on. */
  authenticate: AuthHook
  /** Told of every revocation, so this process refuses the token at once. */
  revocation: Pick<TokenRevocation, 'forgetApiToken'>
  /** Signs a new token (src/auth/tokens.ts `createApiTokenSigner`). */
  sign: (claims: ApiTokenClaims) => string
}

const tags = ['API tokens']
const forbidden = (why: string) => errorResponse(403, `\`${Messages.forbidden}\`: the token's \`role\` is not one of the three, or ${why}.`, [Messages.forbidden])

/** The caller's verified claims (the bearer hook always runs before these routes). */
function claimsOf(request: FastifyRequest): Claims {
  return tokenClaims(request) ?? {}
}

/**
 * API tokens (docs/contract.md "API tokens"; docs/api-tokens.md), for any signed-in role:
 * `POST /tokens`, `GET /tokens` (`?all=true` for admins), `DELETE /tokens/{id}`. Order of checks:
 * 401 and 403 of the token (onRequest, before the body is read); on POST the body (400), then 403
 * when `role` is above the caller's; on GET 400 for a bad `all`, then 403 for `all=true` without
 * admin rights; on DELETE 404 for another account's token (unless admin) or an unknown id.
 *
 * The caller is the token's `sub`; its role is the token's `role`, and never more than its
 * account's current role (a token without a `role` claim: its account's role). A caller whose `sub`
 * names no account may create no token (403) and owns none.
 */
export async function apiTokensRoutes(app: FastifyInstance, options: ApiTokensOptions): Promise<void> {
  const { accounts, apiTokens, revocation, sign } = options
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  guardEveryRoute(api, options.authenticate)

  /** The caller's account and the most a token it creates may be, or undefined when `sub` names no account. */
  const callerOf = async (claims: Claims): Promise<{ username: string; role: Role } | undefined> => {
    const { sub, role } = claims
    if (typeof sub !== 'string') return undefined
    const account = await accounts.generation(sub)
    if (account === undefined) return undefined
    return { username: sub, role: isRole(role) && outranks(account.role, role) ? role : account.role }
  }

  api.post(
    '/tokens',
    {
      attachValidation: true,
      schema: {
        tags, operationId: 'createApiToken', summary: 'Create an API token (any role)',
        description:
          'A named, long-lived token of the caller\'s account for a program, with a role no higher than the caller\'s ' +
          '(default: the caller\'s). The token is answered here only; the service keeps its id, never the token. ' +
          'It stops working (401 `Invalid token`) when it expires, is revoked, its account is deleted, or while its role is above the account\'s.',
        body: ApiTokenInput,
        response: {
          201: successResponse(CreatedApiToken, Messages.tokenCreated, 'the token, shown only in this answer.', 201),
          400: invalidInputResponse('the body is not a JSON object with a `name` of 1 to 100 characters, an optional `role` and an optional `expires_in_days` from 1 to 3650.'),
          403: forbidden('`role` is above the caller\'s, or the token\'s `sub` names no account')
        }
      }
    },
    async function createApiToken(request, reply) {
      assertValidBody(request)
      const { name, role, expires_in_days: expiresInDays } = request.body
      const caller = await callerOf(claimsOf(request))
      if (caller === undefined || (role !== undefined && outranks(role, caller.role))) throw new HttpError(403, Messages.forbidden)
      const created = await issueApiToken({ username: caller.username, name, role: role ?? caller.role, expiresInDays }, apiTokens, sign)
      if (created === 'missing') throw new HttpError(403, Messages.forbidden)
      return reply.code(201).send(envelopeOf(201, Messages.tokenCreated, created))
    }
  )

  api.get(
    '/tokens',
    {
      attachValidation: true,
      schema: {
        tags, operationId: 'listApiTokens', summary: 'List API tokens (any role; every account\'s for admins)',
        description:
          'The caller\'s tokens, newest first, never the token itself; with `all=true` (admins) every account\'s, each with its `username`. ' +
          '`last_used_at` is written at most once a minute.',
        querystring: ApiTokensQuery,
        response: {
          200: successResponse(Type.Array(ApiToken), Messages.tokensListed, 'the tokens, newest first.'),
          400: invalidInputResponse('`all` is not `true` or `false`.'),
          403: forbidden('`all=true` without admin rights')
        }
      }
    },
    async function listApiTokens(request) {
      assertValidBody(request)
      const claims = claimsOf(request)
      if (request.query.all === 'true') {
        if (!allows(claims, 'admin')) throw new HttpError(403, Messages.forbidden)
        return envelopeOf(200, Messages.tokensListed, (await apiTokens.list()).map((token) => apiTokenView(token, true)))
      }
      const owned = typeof claims.sub === 'string' ? await apiTokens.list(claims.sub) : []
      return envelopeOf(200, Messages.tokensListed, owned.map((token) => apiTokenView(token)))
    }
  )

  api.delete(
    '/tokens/:id',
    {
      schema: {
        tags, operationId: 'revokeApiToken', summary: 'Revoke an API token (its owner, or an admin)',
        description: 'The token answers 401 `Invalid token` from then on: at once on this instance, within 1 s on every other.',
        params: ApiTokenParams,
        response: {
          200: successResponse(Type.Null(), Messages.tokenRevoked, 'null.'),
          404: errorResponse(404, `\`${Messages.tokenNotFound}\`: no token has this id, or it is another account's (for a caller who is not an admin).`, [
            Messages.tokenNotFound
          ])
        }
      }
    },
    async function revokeApiToken(request) {
      const { id } = request.params
      const claims = claimsOf(request)
      const { sub } = claims
      // An admin revokes any token; anyone else only the tokens of its own account.
      const revoked = allows(claims, 'admin') ? await apiTokens.revoke(id) : typeof sub === 'string' && (await apiTokens.revoke(id, sub))
      if (!revoked) throw new HttpError(404, Messages.tokenNotFound)
      revocation.forgetApiToken(id)
      return envelopeOf(200, Messages.tokenRevoked, null)
    }
  )
}
