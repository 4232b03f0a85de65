import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import rateLimit from '@fastify/rate-limit'
import Type from 'typebox'
import { envelopeOf } from '../http/envelope.js'
import { HttpError } from '../http/http-error.js'
import { Messages } from '../http/messages.js'
import {
  errorResponse,
  internalError,
  invalidInput,
  payloadTooLarge,
  successResponse,
  tooManyRequests
} from '../http/response-schemas.js'

/** Body of POST /login. */
export const LoginInput = Type.Object(
  {
    username: Type.String({ description: 'The configured `AUTH_USERNAME` (default `admin`).' }),
    password: Type.String({ description: 'The configured `AUTH_PASSWORD` (generated on first start when unset).' })
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
  username: string
  password: string
  /** Token lifetime in seconds. */
  ttlSeconds: number
  /** Attempts allowed per client IP per minute. */
  attemptsPerMinute: number
  /** Issues a token whose `sub` is the username. */
  sign: (subject: string) => string
}

const digest = (value: string) => createHash('sha256').update(value).digest()

/** Compares two strings in time independent of where they differ (or of their lengths). */
function constantTimeEqual(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b))
}

/**
 * Token issuing (spec: "Token issuing", decisions: "Token issuing"): POST /login with
 * `{username, password}` answers 200 `Login successful` with a bearer token, 401
 * `Invalid credentials` (never saying which field was wrong), 400 `Invalid input`, or 429
 * `Too many requests` past `attemptsPerMinute` attempts from one client.
 */
export async function loginRoute(app: FastifyInstance, options: LoginOptions): Promise<void> {
  await app.register(rateLimit, {
    global: false,
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
          'Exchanges the configured username and password for a signed token (HS256, `sub` = username). ' +
          'Send it on the book operations as `Authorization: Bearer <token>` (the raw token is accepted too).',
        security: [],
        body: LoginInput,
        response: {
          200: successResponse(LoginResult, Messages.loggedIn, 'the token, its type and its lifetime in seconds.'),
          400: invalidInput('the body is not a JSON object with a string `username` and a string `password`.'),
          401: errorResponse(
            401,
            `\`${Messages.invalidCredentials}\`: the username or the password is wrong (it never says which).`,
            [Messages.invalidCredentials]
          ),
          413: payloadTooLarge,
          429: tooManyRequests,
          500: internalError
        }
      }
    },
    async (request) => {
      const { username, password } = request.body
      // Both comparisons always run, so timing does not tell which one failed.
      const userOk = constantTimeEqual(username, options.username)
      const passwordOk = constantTimeEqual(password, options.password)
      if (!(userOk && passwordOk)) throw new HttpError(401, Messages.invalidCredentials)
      return envelopeOf(200, Messages.loggedIn, {
        token: options.sign(username),
        token_type: 'Bearer' as const,
        expires_in: options.ttlSeconds
      })
    }
  )
}
