import type { FastifyInstance, FastifyRequest } from 'fastify'
import secureJson from 'secure-json-parse'
import { HttpError } from '../errors/http-error.js'
import { Messages } from '../messages.js'
import { exceedsJsonBounds, MAX_JSON_DEPTH, MAX_JSON_VALUES } from './json-depth.js'

/** Stands for a body that is not valid JSON; it fails every body schema, so it answers 400. */
const INVALID_JSON = Symbol('invalid JSON')

/** Decodes request bodies; throws on bytes that are not UTF-8. A byte-order mark is kept for the JSON parser. */
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/**
 * Reads every request body as JSON whatever its Content-Type (docs/contract.md "Book bodies"), with
 * `__proto__` and `constructor.prototype` keys removed. A body nested deeper than
 * {@link MAX_JSON_DEPTH} arrays and objects or holding more than {@link MAX_JSON_VALUES} arrays,
 * objects and elements (docs/contract.md "Hardening": decided by a scan of the bytes, before
 * anything is built), not valid UTF-8 (never repaired with U+FFFD, RFC 8259 §8.1) or
 * that does not parse becomes a marker that fails every body schema, so the route reports it where
 * its order of checks says (after 401, and after 404 on PUT), through {@link assertValidBody}, as
 * 400 `Invalid input`.
 */
export function readBodiesAsJson(app: FastifyInstance): void {
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => {
    if (exceedsJsonBounds(body as Buffer, MAX_JSON_DEPTH, MAX_JSON_VALUES)) return done(null, INVALID_JSON)
    try {
      const text = strictUtf8.decode(body as Buffer)
      done(null, secureJson.parse(text, undefined, { protoAction: 'remove', constructorAction: 'remove' }))
    } catch {
      done(null, INVALID_JSON)
    }
  })
}

/**
 * Reports the body check of a route registered with `attachValidation`: a body that is not JSON,
 * or fails the route's body schema.
 *
 * @throws HttpError 400 `Invalid input` when Fastify attached a body validation error.
 */
export function assertValidBody(request: FastifyRequest): void {
  if (request.validationError) throw new HttpError(400, Messages.invalidInput)
}
