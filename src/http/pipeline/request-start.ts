import type { FastifyInstance } from 'fastify'
import { expectationFailure } from './expectations.js'
import { singleHostFailure } from './host-header.js'
import { securityHeaders } from './security-headers.js'

/**
 * Adds the first `onRequest` hook of every request (call it before any other `onRequest` hook),
 * one synchronous, callback-style function (a single hook step and no promise per request) doing,
 * in this order:
 * 1. `X-Request-Id`: the request's id (`genReqId`) on the reply;
 * 2. the single-`Host`/`Authorization` check (./host-header.ts): on failure the reply gets
 *    `Connection: close` and the request fails with 400 `Bad request`;
 * 3. the `Expect` check (./expectations.ts): an expectation other than `100-continue` gets
 *    `Connection: close` and fails with 417 `Expectation failed`;
 * 4. the security headers (./security-headers.ts), the same for every response, failed ones included.
 */
export function registerRequestStart(app: FastifyInstance): void {
  const headers = securityHeaders()
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    reply.headers(headers)
    done(singleHostFailure(request, reply) ?? expectationFailure(request, reply))
  })
}
