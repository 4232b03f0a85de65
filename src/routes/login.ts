import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import rateLimit from '@fastify/rate-limit'
import Type from 'typebox'
import { usernameKey } from '../account/schema.js'
import type { LoginLimits } from '../auth/login-limits.js'
import { GENERATION_CLAIM } from '../auth/tokens.js'
import { verifyPassword } from '../auth/password.js'
import { envelopeOf } from '../http/envelope.js'
import { HttpError } from '../http/errors/http-error.js'
import { Messages } from '../http/messages.js'
import type { AccountStore, StoredAccount } from '../storage/contracts/account-store.js'
import { errorResponse, invalidInputResponse, successResponse } from '../http/api-document/response-schemas.js'

/** Body of POST /login. */
export const LoginInput = Type.Object(
  {
    username: Type.String({ description: 'An account\'s username (any case); the first admin is `AUTH_USERNAME` (default `admin`).' }),
    password: Type.String({ description: 'Its password; the first admin\'s is `AUTH_PASSWORD` (generated on first start when unset).' })
  },
  { additionalProperties: true, examples: [{ username: 'admin', password: 'your password' }] }
)

/** `data` of a successful login. */
export const LoginResult = Type.Object(
  {
    token: Type.String({ description: 'HS256 JSON Web Token; send it as `Authorization: Bearer <token>`.' }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'Lifetime of the token in seconds.' })
  },
  { additionalProperties: false }
)

/** Options of the {@link loginRoute} plugin. */
export interface LoginOptions {
  /** The accounts whose usernames and passwords are accepted. */
  accounts: Pick<AccountStore, 'find'>
  /** Token lifetime in seconds. */
  ttlSeconds: number
  /** Attempts allowed per client IP per minute. */
  attemptsPerMinute: number
  /** The limits per address and per account, counted for the whole service. */
  limits: LoginLimits
  /** Issues a token whose `sub` is the username, with the `extra` claims. */
  sign: (subject: string, extra: Record<string, string>) => string
}

/**
 * Token issuing (docs/contract.md "Authentication"): POST /login with `{username, password}` of any
 * account (docs/accounts.md "Accounts and roles") answers 200 `Login successful` with a bearer token carrying
 * `sub`, `role` and `book_service_generation` (the account's token generation), 401 `Invalid
 * credentials` (never saying which field was wrong; an unknown username costs the same scrypt work
 * as a wrong password, and the keys are compared in constant time), 400 `Invalid input`, or 429
 * `Too many requests` past `attemptsPerMinute` attempts from one client, or from an address that
 * failed on an account its failures guard ({@link LoginLimits}): both counted in the database,
 * for every worker and instance together.
 */
export async function loginRoute(app: FastifyInstance, options: LoginOptions): Promise<void> {
  await app.register(rateLimit, {
    global: false,
    store: options.limits.rateLimitStore(),
    errorResponseBuilder: () => new HttpError(429, Messages.tooManyRequests)
  })
  const api = app.withTypeProvider<TypeBoxTypeProvider>()
  api.post(
    '/login',
    {
      config: { rateLimit: { max: options.attemptsPerMinute, timeWindow: 60_000 } },
      schema: {
        tags: ['Authentication'],
        operationId: 'login',
        summary: 'Log in: get a token',
        description:
          'Exchanges an account\'s username and password for a signed token (HS256; claims `sub` = username, ' +
          '`role` = the account\'s role, `book_service_generation` = its token generation, `iat`, `exp`). ' +
          'Send it on the book operations as `Authorization: Bearer <token>` (the raw token is accepted too).',
        body: LoginInput,
        response: {
          200: successResponse(LoginResult, Messages.loggedIn, 'the token, its type and its lifetime in seconds.'),
          400: invalidInputResponse('the body is not a JSON object with a string `username` and a string `password`.'),
          401: errorResponse(
            401,
            `\`${Messages.invalidCredentials}\`: the username or the password is wrong (it never says which).`,
            [Messages.invalidCredentials]
          )
        }
      }
    },
    async function login(request, reply) {
      const { username, password } = request.body
      const key = usernameKey(username)
      const check = await options.limits.reserveCheck(key, request.ip)
      if ('retryAfterSeconds' in check) {
        reply.header('retry-after', check.retryAfterSeconds)
        throw new HttpError(429, Messages.tooManyRequests)
      }
      let account: StoredAccount | undefined
      let wrong = false
      try {
        account = await options.accounts.find(username)
        // Hashes even when the account does not exist, so timing does not tell which one failed.
        wrong = !(await verifyPassword(password, account?.passwordHash)) || account === undefined
      } finally {
        await check.settle(wrong)
      }
      if (wrong || account === undefined) throw new HttpError(401, Messages.invalidCredentials)
      const token = options.sign(account.username, { role: account.role, [GENERATION_CLAIM]: account.generation })
      return envelopeOf(200, Messages.loggedIn, { token, token_type: 'Bearer' as const, expires_in: options.ttlSeconds })
    }
  )
}
