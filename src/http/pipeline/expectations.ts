import type { IncomingMessage } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { HttpError } from '../errors/http-error.js'
import { Messages } from '../messages.js'

/** Requests whose `Expect` header this service cannot meet (anything but `100-continue`). */
const unmet = new WeakSet<IncomingMessage>()

/**
 * Routes the requests whose `Expect` header Node's HTTP server will not meet (an HTTP/1.1 request
 * with an `Expect` other than `100-continue`) like any other request, instead of Node's bare 417
 * with no body: the request is marked, and {@link expectationFailure} answers it 417 `Expectation
 * failed` in the envelope (docs/contract.md "Hardening"), with the request id, the security headers
 * and a log line like every answer. Call it once, on the app's server.
 */
export function routeUnmetExpectations(app: FastifyInstance): void {
  app.server.on('checkExpectation', (request: IncomingMessage, response) => {
    unmet.add(request)
    app.server.emit('request', request, response)
  })
}

/**
 * The check of the first `onRequest` hook for a request marked by {@link routeUnmetExpectations}:
 * 417 `Expectation failed` on every path, known or not, before authentication; the connection is
 * closed after the answer (the client may be holding back a body until its expectation is met).
 *
 * @returns an {@link HttpError} 417, or undefined when the request expects nothing unmet.
 */
export function expectationFailure(request: FastifyRequest, reply: FastifyReply): HttpError | undefined {
  if (!unmet.has(request.raw)) return undefined
  reply.header('connection', 'close')
  return new HttpError(417, Messages.expectationFailed)
}
