import type { FastifyReply, FastifyRequest } from 'fastify'
import { HttpError } from './http-error.js'
import { defaultMessageFor } from './messages.js'

/**
 * The `onRequest` hook that refuses an HTTP/1.1 request without a `Host` header (RFC 9112
 * section 3.2) with 400 `Bad request` in the envelope, and closes the connection.
 *
 * Node's own check (`requireHostHeader`) answers such a request with a bare 400 and no body,
 * outside the envelope, so the server turns it off and this hook does the check instead.
 *
 * @throws {HttpError} 400 when the request is HTTP/1.1 and has no `Host` header.
 */
export async function requireHost(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  if (request.raw.httpVersion === '1.1' && request.headers.host === undefined) {
    reply.header('connection', 'close')
    throw new HttpError(400, defaultMessageFor[400]!)
  }
}
