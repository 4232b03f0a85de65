import type { FastifySchema } from 'fastify'
import { defaultMessageFor } from './messages.js'
import { errorResponse } from './response-schemas.js'

/**
 * The answers any operation can get from the HTTP layer, before or around its handler (issue 13:
 * the API document lists every status the service can send): the envelope with these messages.
 */
const badRequest = defaultMessageFor[400]!
const timeout = defaultMessageFor[408]!
const headersTooLarge = defaultMessageFor[431]!
const unsupportedType = defaultMessageFor[415]!
const tooLarge = defaultMessageFor[413]!

/** Every operation: what the HTTP layer answers whatever the route. */
const everyOperation: Record<number, { message: string; why: string }> = {
  400: {
    message: badRequest,
    why: 'the request itself is malformed: an unreadable request line or header, an HTTP/1.1 request without `Host`, more than one `Host` or `Authorization` header, or a body shorter or longer than its `Content-Length`. The connection is closed.'
  },
  408: { message: timeout, why: 'the request line and headers took over `HEADERS_TIMEOUT`, or the whole request over `REQUEST_TIMEOUT`. The connection is closed.' },
  431: { message: headersTooLarge, why: 'the request line and headers are over `MAX_HEADER_SIZE` bytes (checked before the token).' }
}

/** Operations whose method has a body Fastify reads (POST, PUT, DELETE): the body's own limits. */
const bodyOperation: Record<number, { message: string; why: string }> = {
  413: { message: tooLarge, why: 'the body is over 1 MiB.' },
  415: { message: unsupportedType, why: 'a body came with a `Content-Type` header that is not a media type at all (e.g. `;;`); any well-formed type is read as JSON.' }
}

const BODY_METHODS = new Set(['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])

type ResponseSchema = { description?: string; properties?: { message?: { enum?: string[] } } }

/** `existing` with `message` added to its texts and `why` to its description, or a new error response. */
function withMessage(status: number, existing: ResponseSchema | undefined, message: string, why: string): ResponseSchema {
  if (!existing) return errorResponse(status, `\`${message}\`: ${why}`, [message]) as ResponseSchema
  const texts = existing.properties?.message?.enum ?? []
  if (texts.includes(message)) return existing
  const properties = existing.properties ?? {}
  return {
    ...existing,
    description: `${existing.description ?? ''} \`${message}\`: ${why}`.trim(),
    properties: { ...properties, message: { ...properties.message, enum: [...texts, message] } }
  }
}

/**
 * The `@fastify/swagger` `transform`: adds to each operation of the API document the statuses the
 * HTTP layer can answer it with (400 `Bad request`, 408, 431 on every operation; 413 and 415 where
 * the method carries a body), merged into the route's own responses. Only the document changes:
 * the route's schemas (and so validation and serialization) are left as they are.
 */
export function documentWireErrors({ schema, url, route }: { schema: FastifySchema & { hide?: boolean }; url: string; route: { method: string | string[] } }) {
  if (!schema || schema.hide) return { schema, url }
  const response = { ...((schema?.response ?? {}) as Record<string, ResponseSchema>) }
  const methods = [route.method].flat()
  const added = { ...everyOperation, ...(methods.some((method) => BODY_METHODS.has(method)) ? bodyOperation : {}) }
  for (const [status, { message, why }] of Object.entries(added)) {
    response[status] = withMessage(Number(status), response[status], message, why)
  }
  return { schema: { ...schema, response }, url }
}
