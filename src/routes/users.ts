import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Type from 'typebox'
import { guardEveryRoute, type AuthHook } from '../http/pipeline/auth-hook.js'
import { envelopeOf } from '../http/envelope.js'
import { assertValidBody } from '../http/pipeline/json-body.js'
import { HttpError } from '../http/errors/http-error.js'
import { Messages } from '../http/messages.js'
import { hashPassword } from '../auth/password.js'
import { Account, AccountChangeInput, AccountInput, AccountParams } from '../account/schema.js'
import { errorResponse, invalidInputResponse, successResponse } from '../http/api-document/response-schemas.js'
import { LAST_ADMIN, type AccountStore } from '../storage/contracts/account-store.js'
import type { TokenRevocation } from '../auth/revocation.js'

/** Options of the {@link usersRoutes} plugin. */
export interface UsersOptions {
  accounts: AccountStore
  /** The `onRequest` hook that admits admins only (401, then 403); always on, even with `AUTH_ENABLED=false`. */
  authenticate: AuthHook
  /** Told of every change, so this instance refuses revoked tokens (login and API tokens) at once. */
  revocation: Pick<TokenRevocation, 'forget'>
}

const tags = ['Users']
const accountNotFoundResponse = errorResponse(404, `\`${Messages.userNotFound}\`: no account has this username (ignoring case).`, [Messages.userNotFound])
const lastAdminResponse = errorResponse(409, `\`${Messages.lastAdmin}\`: it is the only admin; make another account admin first.`, [Messages.lastAdmin])

/**
 * Account management (docs/accounts.md "Accounts and roles"), admin only: GET /users, POST /users,
 * PUT /users/{username}, DELETE /users/{username}. Order of checks: 401, 403 (onRequest, before
 * the body is read), then 404 on the /users/{username} routes, then the body (400), then 409.
 * Password hashes never leave the store; responses carry {@link Account} only.
 */
export async function usersRoutes(app: FastifyInstance, options: UsersOptions): Promise<void> {
  const { accounts, revocation } = options
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  guardEveryRoute(api, options.authenticate)

  api.get(
    '/users',
    {
      schema: {
        tags, operationId: 'listUsers', summary: 'List accounts (admin)',
        description: 'Every account, ordered by username ignoring case. Never a password or its hash.',
        response: { 200: successResponse(Type.Array(Account), Messages.usersListed, 'every account.') }
      }
    },
    async function listUsers() {
      return envelopeOf(200, Messages.usersListed, await accounts.list())
    }
  )

  api.post(
    '/users',
    {
      attachValidation: true,
      schema: {
        tags, operationId: 'createUser', summary: 'Create an account (admin)',
        description: 'Stores a new account; its password is kept only as an scrypt hash.',
        body: AccountInput,
        response: {
          201: successResponse(Account, Messages.userCreated, 'the new account.', 201),
          400: invalidInputResponse('the body is not a JSON object with a valid `username`, `password` (12 to 1024 characters) and `role`.'),
          409: errorResponse(409, `\`${Messages.userExists}\`: the username is taken (ignoring case), or looks like a taken one (the same UTS #39 confusable skeleton: \`аdmin\` with a Cyrillic а, full-width \`ａｄｍｉｎ\`; docs/accounts.md "Look-alike usernames").`, [Messages.userExists])
        }
      }
    },
    async function createUser(request, reply) {
      assertValidBody(request)
      const { username, password, role } = request.body
      const created = await accounts.create({ username, role, passwordHash: await hashPassword(password) })
      if (created === 'exists') throw new HttpError(409, Messages.userExists)
      revocation.forget(username)
      return reply.code(201).send(envelopeOf(201, Messages.userCreated, created))
    }
  )

  api.put(
    '/users/:username',
    {
      attachValidation: true,
      schema: {
        tags, operationId: 'updateUser', summary: 'Change an account\'s password or role (admin)',
        description: 'Either change revokes the account\'s earlier tokens (401 `Invalid token` within 5 s on every instance). `{}` changes nothing.',
        params: AccountParams,
        body: AccountChangeInput,
        response: {
          200: successResponse(Account, Messages.userUpdated, 'the account after the change.'),
          400: invalidInputResponse('the body is not a JSON object, or `password` is not 12 to 1024 characters, or `role` is not a role.'),
          404: accountNotFoundResponse,
          409: lastAdminResponse
        }
      }
    },
    async function updateUser(request) {
      const { username } = request.params
      if ((await accounts.find(username)) === undefined) throw new HttpError(404, Messages.userNotFound)
      assertValidBody(request)
      const { password, role } = request.body
      const passwordHash = password === undefined ? undefined : await hashPassword(password)
      const updated = await accounts.update(username, { passwordHash, role })
      if (updated === 'missing') throw new HttpError(404, Messages.userNotFound)
      if (updated === LAST_ADMIN) throw new HttpError(409, Messages.lastAdmin)
      revocation.forget(username)
      return envelopeOf(200, Messages.userUpdated, updated)
    }
  )

  api.delete(
    '/users/:username',
    {
      schema: {
        tags, operationId: 'deleteUser', summary: 'Delete an account (admin)',
        description: 'Removes the account; its tokens answer 401 `Invalid token` within 5 s on every instance.',
        params: AccountParams,
        response: { 200: successResponse(Type.Null(), Messages.userDeleted, 'null.'), 404: accountNotFoundResponse, 409: lastAdminResponse }
      }
    },
    async function deleteUser(request) {
      const outcome = await accounts.delete(request.params.username)
      if (outcome === 'missing') throw new HttpError(404, Messages.userNotFound)
      if (outcome === LAST_ADMIN) throw new HttpError(409, Messages.lastAdmin)
      revocation.forget(request.params.username)
      return envelopeOf(200, Messages.userDeleted, null)
    }
  )
}
