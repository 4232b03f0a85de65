import type { FastifyInstance } from 'fastify'
import { singleHostFailure } from './host-header.js'
import { securityHeaders } from './security-headers.js'

/**
 * Adds the first `onRequest` hook of every request (call it before any other `onRequest` hook),
 * one synchronous function doing, in this order:
 * 1. `X-Request-Id`: the request's id (`genReqId`) on the reply;
 * 2. the single-`Host`/`Authorization` check (src/http/host-header.ts): on failure the reply
 *    gets `Connection: close` and the request fails with 400 `Bad request`, without step 3;
 * 3. the security headers (src/http/security-headers.ts), the same for every response.
 *
 * These were three hooks, one of them `async`; one callback-style hook saves a hook step and a
 * promise per request with the same effects in the same order.
 */
export function registerRequestStart(app: FastifyInstance): void {
  const headers = securityHeaders()
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    const failure = singleHostFailure(request, reply)
    if (failure !== undefined) return done(failure)
    reply.headers(headers)
    done()
  })
}
