import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Type from 'typebox'
import { Account, AccountParams, Password, usernameKey } from '../account/schema.js'
import { guardEveryRoute, tokenSubject, type AuthHook } from '../http/pipeline/auth-hook.js'
import type { LoginLimits } from '../auth/login-limits.js'
import { hashPassword, verifyPassword } from '../auth/password.js'
import type { TokenGenerations } from '../auth/token-generations.js'
import { envelopeOf } from '../http/envelope.js'
import { errorResponse, invalidInputResponse, retryAfterHeader, successResponse, withHeaders } from '../http/api-document/response-schemas.js'
import { HttpError } from '../http/errors/http-error.js'
import { assertValidBody } from '../http/pipeline/json-body.js'
import { Messages } from '../http/messages.js'
import type { AccountStore } from '../storage/contracts/account-store.js'

/** Body of PUT /users/{username}/password. Unknown fields are ignored. */
export const OwnPasswordInput = Type.Object(
  {
    current_password: Type.String({ maxLength: 4096, description: 'The account\'s password now.' }),
    new_password: Password
  },
  { additionalProperties: true, examples: [{ current_password: 'my old passphrase', new_password: 'a new long passphrase' }] }
)

/** Options of the {@link ownPasswordRoute} plugin. */
export interface OwnPasswordOptions {
  accounts: Pick<AccountStore, 'find' | 'update'>
  /** The `onRequest` hook admitting any role's token (401, then 403 for a token with no rights). */
  authenticate: AuthHook
  /** Wrong current passwords count as failed logins of the account (docs/accounts.md "Login limits"). */
  limits: Pick<LoginLimits, 'reserveCheck'>
  /** Told of the change, so this instance refuses the account's earlier tokens at once. */
  generations: Pick<TokenGenerations, 'forget'>
}

/**
 * Changing one's own password (docs/accounts.md "Accounts and roles"): `PUT /users/{username}/password`
 * with `{"current_password", "new_password"}`, for any role, only on the account the token was
 * issued to (its `sub`, ignoring case). Order of checks: 401 and 403 of the token (onRequest),
 * 403 `Forbidden` when `{username}` is not the token's account, 404 `User not found`, 400 `Invalid
 * input` (the body; the new password 12 to 1024 characters), 429 while the account's failed logins
 * lock it, 401 `Current password is incorrect` (counted as a failed login), then 200 `Password
 * changed successfully` with the account. The change revokes the account's earlier tokens, the one
 * used included: the client logs in again with the new password.
 */
export async function ownPasswordRoute(app: FastifyInstance, options: OwnPasswordOptions): Promise<void> {
  const { accounts, limits, generations } = options
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  guardEveryRoute(api, options.authenticate)

  api.put(
    '/users/:username/password',
    {
      attachValidation: true,
      schema: {
        tags: ['Users'],
        operationId: 'changeOwnPassword',
        summary: 'Change your own password (any role)',
        description:
          'Only for the account the token was issued to (`sub`); admins change other accounts with `PUT /users/{username}`. ' +
          'Revokes the account\'s earlier tokens, this one included (401 `Invalid token` from then on): log in again with the new password. ' +
          'A wrong `current_password` counts as a failed login of the account.',
        params: AccountParams,
        body: OwnPasswordInput,
        response: {
          200: successResponse(Account, Messages.passwordChanged, 'the account after the change.'),
          400: invalidInputResponse('the body is not a JSON object with a string `current_password` and a `new_password` of 12 to 1024 characters.'),
          401: errorResponse(401, `\`${Messages.wrongCurrentPassword}\`: \`current_password\` is not the account's password; nothing changed.`, [
            Messages.wrongCurrentPassword
          ]),
          404: errorResponse(404, `\`${Messages.userNotFound}\`: the token's account no longer exists.`, [Messages.userNotFound]),
          429: withHeaders(
            errorResponse(429, `\`${Messages.tooManyRequests}\`: too many wrong passwords for this account; \`Retry-After\` says when to try again.`, [
              Messages.tooManyRequests
            ]),
            { 'retry-after': retryAfterHeader }
          )
        }
      }
    },
    async function changeOwnPassword(request, reply) {
      const { username } = request.params
      const subject = tokenSubject(request)
      if (typeof subject !== 'string' || usernameKey(subject) !== usernameKey(username)) throw new HttpError(403, Messages.forbidden)
      const account = await accounts.find(username)
      if (account === undefined) throw new HttpError(404, Messages.userNotFound)
      assertValidBody(request)
      const { current_password: current, new_password: next } = request.body
      const key = usernameKey(username)
      const check = await limits.reserveCheck(key, request.ip)
      if ('retryAfterSeconds' in check) {
        reply.header('retry-after', check.retryAfterSeconds)
        throw new HttpError(429, Messages.tooManyRequests)
      }
      let wrong = false
      try {
        wrong = !(await verifyPassword(current, account.passwordHash))
      } finally {
        await check.settle(wrong)
      }
      if (wrong) throw new HttpError(401, Messages.wrongCurrentPassword)
      const updated = await accounts.update(username, { passwordHash: await hashPassword(next) })
      if (typeof updated === 'string') throw new HttpError(404, Messages.userNotFound)
      generations.forget(username)
      return envelopeOf(200, Messages.passwordChanged, updated)
    }
  )
}
