import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { StorageUnavailableError } from '../../storage/contracts/database.js'
import type { Database } from '../../storage/contracts/database.js'
import { errorEnvelope } from '../envelope.js'
import { Messages, defaultMessageFor } from '../messages.js'
import { HttpError } from './http-error.js'

/**
 * Renders every error as the envelope (docs/contract.md "Everything else"): {@link HttpError}s as they
 * say; schema failures as 400 `Invalid input`; a body over the limit as 413 `Payload too large`;
 * other framework 4xx with their status; storage outages as 503 `Service unavailable`; anything
 * else as 500 `Internal server error`. Stacks and SQL go to the log only, with the request id.
 */
export function errorHandler(error: FastifyError | HttpError | Error, request: FastifyRequest, reply: FastifyReply) {
  if (error instanceof HttpError) {
    return reply.code(error.statusCode).headers(error.headers).send(errorEnvelope(error.statusCode, error.message))
  }
  if ('validation' in error && error.validation) {
    return reply.code(400).send(errorEnvelope(400, Messages.invalidInput))
  }
  if (error instanceof StorageUnavailableError) {
    request.log.warn({ err: error }, 'storage unavailable')
    if (error.retryAfterSeconds !== undefined) reply.header('retry-after', error.retryAfterSeconds)
    return reply.code(503).send(errorEnvelope(503, Messages.unavailable))
  }
  const status = 'statusCode' in error ? Number(error.statusCode) : 500
  if (status >= 400 && status < 500) {
    request.log.info({ err: error }, 'client error')
    return reply.code(status).send(errorEnvelope(status, defaultMessageFor[status] ?? defaultMessageFor[400]!))
  }
  request.log.error({ err: error }, 'request failed')
  return reply.code(500).send(errorEnvelope(500, Messages.internalError))
}

/**
 * {@link errorHandler} after asking `database` whether the error means the storage cannot serve
 * (`Database.unavailableFor`: a damaged SQLite file answers 503, not 500).
 */
export function errorHandlerWith(database: Pick<Database, 'unavailableFor'>) {
  return (error: FastifyError | HttpError | Error, request: FastifyRequest, reply: FastifyReply) =>
    errorHandler(database.unavailableFor?.(error) ?? error, request, reply)
}

/** Answers unknown paths with 404 `Route not found`. */
export function notFoundHandler(_request: FastifyRequest, reply: FastifyReply) {
  return reply.code(404).send(errorEnvelope(404, Messages.routeNotFound))
}

/** Answers a request target the router cannot read (e.g. `*` or a bad absolute URL) with 400 `Bad request`, before routing and auth. A path whose percent-encoding does not decode never comes here: see `routableUrl`. */
export function badUrlHandler(_error: Error, _request: FastifyRequest, reply: FastifyReply) {
  return reply.code(400).send(errorEnvelope(400, defaultMessageFor[400]!))
}
