import Type, { type TSchema } from 'typebox'
import { envelope } from '../envelope.js'
import { Messages } from '../messages.js'

/**
 * The error responses of the routes, one schema per status, each naming the exact `message`
 * texts it can carry (docs/contract.md). They serialize errors like `ErrorEnvelope`
 * (`{status, message, data: null}`) and describe each status in the API document (`/openapi.json`).
 *
 * `message` lists its texts as an `enum` (documentation only: the serializer does not check it),
 * never as `const`, which the serializer would write whatever the actual message is.
 */

/** The envelope's `status`, with the status it has in this response as its example. */
const statusField = (status: number) =>
  Type.Integer({ description: 'Equals the HTTP status code of the response.', examples: [status] })

/**
 * The error envelope of one status.
 *
 * @param status the HTTP status (the example shown in the docs page).
 * @param description the response's description in the API document (Markdown).
 * @param messages the exact `message` texts this status can carry.
 */
export function errorResponse(status: number, description: string, messages: readonly string[]) {
  return Type.Object(
    {
      status: statusField(status),
      message: Type.String({ enum: [...messages], description: 'Human-readable outcome text (exact).' }),
      data: Type.Null()
    },
    { additionalProperties: false, description }
  )
}

const quoted = (messages: readonly string[]) => messages.map((message) => `\`${message}\``).join(' or ')

/** The `ETag` response header of a book, as the API document shows it. */
export const etagHeader = { type: 'string', description: 'Strong entity tag of the book; changes whenever the book changes.' } as const

/** The `Retry-After` response header of a 429: whole seconds. */
export const retryAfterHeader = { type: 'integer', minimum: 1, description: 'Seconds to wait before trying again.' } as const

/** 401 on a protected route: no token, or a token that does not verify. */
export const unauthorizedResponse = errorResponse(
  401,
  `${quoted([Messages.tokenRequired])}: the \`Authorization\` header is missing, empty or a bare \`Bearer\`. ` +
    `${quoted([Messages.invalidToken])}: the token is malformed, not HS256/HS384/HS512, badly signed, expired or not yet valid.`,
  [Messages.tokenRequired, Messages.invalidToken]
)

/** 404 on the /book/{id} routes. */
export const bookNotFoundResponse = errorResponse(
  404,
  `${quoted([Messages.bookNotFound])}: no book has this id (including an id that is not decimal digits from 1 to 2^53-1).`,
  [Messages.bookNotFound]
)

/** 400 on a body that cannot be read as what the route expects. */
export const invalidInputResponse = (what: string) =>
  errorResponse(400, `${quoted([Messages.invalidInput])}: ${what}`, [Messages.invalidInput])

/** 413 on a body over 1 MiB. */
export const payloadTooLargeResponse = errorResponse(413, `${quoted([Messages.payloadTooLarge])}: the body is over 1 MiB.`, [
  Messages.payloadTooLarge
])

/** 429 on POST /login past the attempts allowed per minute. */
export const tooManyRequestsResponse = withHeaders(
  errorResponse(
    429,
    `${quoted([Messages.tooManyRequests])}: too many login attempts from this client; retry after the \`Retry-After\` seconds.`,
    [Messages.tooManyRequests]
  ),
  { 'retry-after': retryAfterHeader }
)

/** 500, an unexpected failure (details only in the server log, under the request id). */
export const internalErrorResponse = errorResponse(
  500,
  `${quoted([Messages.internalError])}: an unexpected failure; the server log has the details under the \`x-request-id\` of the response.`,
  [Messages.internalError]
)

/** 503, the storage cannot be reached. */
export const unavailableResponse = errorResponse(503, `${quoted([Messages.unavailable])}: the storage cannot be reached right now.`, [
  Messages.unavailable
])

/**
 * The envelope of a success: `data` as given, `message` documented as its one exact text.
 *
 * @param data the JSON Schema of `data`.
 * @param message the exact `message` text of this response.
 * @param what what `data` holds, for the API document.
 * @param status the HTTP status (the example shown in the docs page).
 */
export function successResponse<T extends TSchema>(
  data: T,
  message: string,
  what: string,
  status = 200
): ReturnType<typeof envelope<T>> {
  const schema = envelope(data)
  const properties = {
    ...schema.properties,
    status: statusField(status),
    message: Type.String({ enum: [message], description: 'Human-readable outcome text (exact).' })
  }
  return { ...schema, properties, description: `\`${message}\`: ${what}` } as typeof schema
}

/** 412 on PUT/DELETE /book/{id} with an `If-Match` that does not name the book's current tag (docs/api.md "Large collections and concurrent edits"). */
export const preconditionFailedResponse = errorResponse(
  412,
  `${quoted([Messages.preconditionFailed])}: \`If-Match\` does not name the book's current \`ETag\`; nothing was changed.`,
  [Messages.preconditionFailed]
)

/** 304 on GET /book/{id} when `If-None-Match` names the current tag: no body (docs/api.md "Large collections and concurrent edits"). */
export const notModifiedResponse = {
  description: 'Not modified: `If-None-Match` names the current `ETag`. No body; the `ETag` header is repeated.',
  type: 'null',
  headers: { etag: etagHeader }
} as const

/**
 * A response schema with the headers it carries, for the API document (`@fastify/swagger` turns
 * `headers` into the OpenAPI response headers; serialization ignores it).
 */
export function withHeaders<T extends object>(
  schema: T,
  headers: Record<string, { type: 'string' | 'integer'; description: string; minimum?: number }>
): T {
  return { ...schema, headers: Object.fromEntries(Object.entries(headers).map(([name, header]) => [name, { ...header }])) }
}

/** 403 when the token's role lacks the right the route needs (docs/accounts.md "Accounts and roles"). */
export const forbiddenResponse = errorResponse(
  403,
  `${quoted([Messages.forbidden])}: the token's \`role\` may not do this (\`reader\`: GET only; \`editor\`: books only; \`admin\`: everything; any other \`role\`: nothing).`,
  [Messages.forbidden]
)
