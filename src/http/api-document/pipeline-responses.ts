import type { FastifySchema, RouteOptions } from 'fastify'
import { defaultMessageFor } from '../messages.js'
import {
  errorResponse,
  internalErrorResponse,
  payloadTooLargeResponse,
  tooManyRequestsResponse,
  unavailableResponse
} from './response-schemas.js'

/**
 * The API document's statuses, complete by construction: each operation lists its own outcomes in
 * its route schema (success, and what its handler decides: 404, 409, 412, the body's 400), and
 * everything else is derived here from what the request passes through on its way to the
 * handler, the same pieces that answer at run time:
 * - the HTTP layer, every operation: 400 `Bad request`, 408, 417, 431 (Node's parser and the first
 *   `onRequest` hook), 500 (the error handler's answer to anything unexpected);
 * - the body, on methods that carry one: 413, 415;
 * - the storage, on every operation whose route does not say {@link WITHOUT_STORAGE}: 503;
 * - the rate limit, on routes with `config.rateLimit`: 429;
 * - the route's own hooks (`onRequest`, `preHandler`, …): what each declared with
 *   {@link documentHook} (the bearer hook: 401, 403, 503, and the bearer security).
 * A status a piece of the pipeline can send is therefore in the document of every operation that
 * piece serves, without being listed by hand per route.
 */

type ResponseSchema = { description?: string; properties?: { message?: { enum?: string[] } } }

/** What a hook answers and, for an authenticating hook, the security scheme it stands for. */
export interface HookDocumentation {
  responses: Record<number, object>
  security?: Array<Record<string, string[]>>
}

const documentedHooks = new WeakMap<object, HookDocumentation>()

/**
 * Registers what `hook` can answer, so every operation whose route passes through it documents
 * those statuses (and its security).
 *
 * @returns `hook` itself.
 */
export function documentHook<T extends object>(hook: T, documentation: HookDocumentation): T {
  documentedHooks.set(hook, documentation)
  return hook
}

/** Route `config` of an operation that never reads or writes the storage: no 503 in its document. */
export const WITHOUT_STORAGE = { storage: false } as const

/** An error response of the HTTP layer: `message` and why it is sent. */
const layer = (status: number, why: string) => {
  const message = defaultMessageFor[status]!
  return errorResponse(status, `\`${message}\`: ${why}`, [message])
}

/** Every operation: what the HTTP layer and the error handler answer whatever the route. */
const everyOperation: Record<number, object> = {
  400: layer(400, 'the request itself is malformed: an unreadable request line or header, an HTTP/1.1 request without `Host`, more than one `Host` or `Authorization` header, or a body shorter or longer than its `Content-Length`. The connection is closed.'),
  408: layer(408, 'the request line and headers took over `HEADERS_TIMEOUT`, or the whole request over `REQUEST_TIMEOUT`. The connection is closed.'),
  417: layer(417, 'an HTTP/1.1 request carries an `Expect` header other than `100-continue` (checked before the token). The connection is closed.'),
  431: layer(431, 'the request line and headers are over `MAX_HEADER_SIZE` bytes (checked before the token).'),
  500: internalErrorResponse
}

/** Operations whose method has a body Fastify reads (POST, PUT, DELETE): the body's own limits. */
const bodyOperation: Record<number, object> = {
  413: payloadTooLargeResponse,
  415: layer(415, 'a body came with a `Content-Type` header that is not a media type at all (e.g. `;;`); any well-formed type is read as JSON.')
}

const BODY_METHODS = new Set(['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'])
const HOOK_NAMES = ['onRequest', 'preParsing', 'preValidation', 'preHandler'] as const

/** `existing` with the messages and description of `added` merged in, or `added` when there is none. */
function merged(existing: ResponseSchema | undefined, added: ResponseSchema): ResponseSchema {
  if (!existing) return added
  const texts = existing.properties?.message?.enum ?? []
  const newTexts = (added.properties?.message?.enum ?? []).filter((text) => !texts.includes(text))
  if (newTexts.length === 0) return existing
  const properties = existing.properties ?? {}
  return {
    ...existing,
    description: `${existing.description ?? ''} ${added.description ?? ''}`.trim(),
    properties: { ...properties, message: { ...properties.message, enum: [...texts, ...newTexts] } }
  }
}


/**
 * The `@fastify/swagger` `transform`: each operation's responses are its route's own, merged with
 * what the pieces it passes through answer (see the module's description), and its `security`
 * is that of its hooks (none when no hook authenticates). Only the document changes: the route's
 * schemas (and so validation and serialization) are left as they are.
 */
export function documentPipelineResponses({ schema, url, route }: { schema: FastifySchema & { hide?: boolean }; url: string; route: RouteOptions }) {
  if (!schema || schema.hide) return { schema, url }
  const response = { ...((schema.response ?? {}) as Record<string, ResponseSchema>) }
  const add = (answers: Record<number, object>) => {
    for (const [status, added] of Object.entries(answers)) response[status] = merged(response[status], added as ResponseSchema)
  }
  add(everyOperation)
  if ([route.method].flat().some((method) => BODY_METHODS.has(method))) add(bodyOperation)
  const config = (route.config ?? {}) as { storage?: boolean; rateLimit?: unknown }
  if (config.storage !== false) add({ 503: unavailableResponse })
  if (config.rateLimit !== undefined) add({ 429: tooManyRequestsResponse })
  const security: Array<Record<string, string[]>> = []
  for (const hook of HOOK_NAMES.flatMap((name) => [route[name] ?? []].flat() as object[])) {
    const documentation = documentedHooks.get(hook)
    if (documentation === undefined) continue
    add(documentation.responses)
    security.push(...(documentation.security ?? []))
  }
  return { schema: { ...schema, response, security }, url }
}
