import type { FastifyReply, FastifyRequest } from 'fastify'
import { HttpError } from '../errors/http-error.js'
import { defaultMessageFor } from '../messages.js'

/** Headers a request may carry at most once (docs/contract.md "Everything else"). */
const SINGLE_HEADERS = new Set(['host', 'authorization'])

/**
 * How many times each of {@link SINGLE_HEADERS} occurs in `rawHeaders` (Node's flat
 * `[name, value, name, value, …]` list, names as sent). Node keeps only the first `Host` and
 * the first `Authorization` in `request.headers`, so a duplicate is only visible here.
 */
function repeatsSingleHeader(rawHeaders: readonly string[]): boolean {
  const seen = new Set<string>()
  for (let at = 0; at < rawHeaders.length; at += 2) {
    const name = rawHeaders[at]!.toLowerCase()
    if (!SINGLE_HEADERS.has(name)) continue
    if (seen.has(name)) return true
    seen.add(name)
  }
  return false
}

/**
 * The check that refuses a request whose `Host` or `Authorization` header is missing or repeated
 * where HTTP forbids it, with 400 `Bad request` in the envelope, and closes the connection:
 * - an HTTP/1.1 request without `Host` (RFC 9112 section 3.2);
 * - more than one `Host` (RFC 9112 section 3.2) or more than one `Authorization` header
 *   (docs/contract.md "Everything else": a second credential is never silently ignored).
 * It runs in the first `onRequest` hook (src/http/pipeline/request-start.ts), before authentication, so
 * such a request gets 400 with or without a valid token.
 *
 * Node's own `Host` check (`requireHostHeader`) answers with a bare 400 and no body, outside the
 * envelope, so the server turns it off and this check is done instead.
 *
 * Synchronous (no promise per request): on a refused request it sets `Connection: close` on
 * `reply` and returns the error for the hook to pass on.
 *
 * @returns an {@link HttpError} 400 `Bad request` in the cases above, else undefined.
 */
export function singleHostFailure(request: FastifyRequest, reply: FastifyReply): HttpError | undefined {
  const missingHost = request.raw.httpVersion === '1.1' && request.headers.host === undefined
  if (missingHost || repeatsSingleHeader(request.raw.rawHeaders)) {
    reply.header('connection', 'close')
    return new HttpError(400, defaultMessageFor[400]!)
  }
  return undefined
}
