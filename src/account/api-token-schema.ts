import Type, { type Static } from 'typebox'
import { publishedAs } from '../book/parameter-types.js'
import { RoleName } from './schema.js'

/*
 * The schemas of the /tokens routes (docs/contract.md "API tokens"; docs/api-tokens.md):
 * validation, serialization and the API document from one source, and the types the client gives
 * its callers.
 */

/** Shortest and longest name of a token, in characters (code points). */
export const TOKEN_NAME_LENGTH = { min: 1, max: 100 } as const

/** The days a token may be given to live: 1 to 3650 (ten years). */
export const TOKEN_DAYS = { min: 1, max: 3650 } as const

/** A token id: its `jti`, a random UUID (lower case), as the service makes them. */
const TOKEN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** True when `id` has the form of a token id; any other text names no token (404, without asking the database). */
export function isTokenId(id: unknown): id is string {
  return typeof id === 'string' && TOKEN_ID.test(id)
}

const Id = Type.String({ description: 'The token\'s id, also its `jti` claim.' })
const Name = Type.String({ description: 'What the token is for, as given when created.' })
const Time = (description: string) => Type.String({ format: 'date-time', description: `${description}: RFC 3339, UTC.` })
const NullableTime = (description: string) => Type.Union([Time(description), Type.Null()])

/** One API token as `GET /tokens` answers it: never the token itself. */
export const ApiToken = Type.Object(
  {
    id: Id,
    name: Name,
    role: RoleName,
    created_at: Time('When it was created'),
    expires_at: NullableTime('When it stops working (its `exp`); null: never'),
    last_used_at: NullableTime('When a request last used it, to within a minute; null: never used'),
    username: Type.Optional(Type.String({ description: 'Its account: only in `GET /tokens?all=true`.' }))
  },
  {
    additionalProperties: false,
    examples: [{
      id: '0b0f6a4e-3c1d-4f55-9a8e-2d7c1b9e4f10', name: 'catalogue sync', role: 'reader',
      created_at: '2026-01-02T03:04:05.000Z', expires_at: null, last_used_at: '2026-01-09T10:11:12.000Z'
    }]
  }
)
export type ApiToken = Static<typeof ApiToken>

/** The answer to `POST /tokens`: the token with the signed JWT, shown only in this answer. */
export const CreatedApiToken = Type.Object(
  {
    id: Id,
    name: Name,
    role: RoleName,
    token: Type.String({ description: 'The token (a JSON Web Token): send it as `Authorization: Bearer <token>`. Shown only in this answer.' }),
    created_at: Time('When it was created'),
    expires_at: NullableTime('When it stops working (its `exp`); null: never'),
    last_used_at: Type.Null({ description: 'Never used yet.' })
  },
  { additionalProperties: false }
)
export type CreatedApiToken = Static<typeof CreatedApiToken>

/** Body of `POST /tokens`. Unknown fields are ignored. */
export const ApiTokenInput = Type.Object(
  {
    name: Type.String({
      minLength: TOKEN_NAME_LENGTH.min,
      maxLength: TOKEN_NAME_LENGTH.max,
      // No control character (a name is one line wherever it is shown), no lone surrogate.
      not: { pattern: '[\\u0000-\\u001f\\u007f-\\u009f\\ud800-\\udfff]' },
      description: '1 to 100 characters, no control character: what the token is for.'
    }),
    role: Type.Optional(RoleName),
    expires_in_days: Type.Optional(Type.Integer({
      minimum: TOKEN_DAYS.min,
      maximum: TOKEN_DAYS.max,
      description: 'Days until it stops working, 1 to 3650; absent: it never expires.'
    }))
  },
  { additionalProperties: true, examples: [{ name: 'catalogue sync', role: 'reader', expires_in_days: 90 }] }
)
export type ApiTokenInput = Static<typeof ApiTokenInput>

/** Query of `GET /tokens`. */
export const ApiTokensQuery = Type.Object({
  all: publishedAs(Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')], {
    description: '`true` (admins): every account\'s tokens, each with its `username`.'
  })), { type: 'boolean' })
})

/** Path parameters of `DELETE /tokens/{id}`. */
export const ApiTokenParams = Type.Object({ id: Type.String({ description: 'The token\'s id.' }) })
