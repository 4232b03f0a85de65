import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify'

/**
 * The path of a request URL without its query string: the query may carry a client's
 * credentials (RFC 6750 `?access_token=`), which must never reach the log, and the list's
 * parameters (`GET /books?title=…`) are the client's business, not the log's.
 */
export function pathOnly(url: string): string {
  const query = url.indexOf('?')
  return query === -1 ? url : url.slice(0, query)
}

/**
 * Per app logger (`request.server.log`), a child of it without redaction, for the success line.
 * The line's fields are fixed here (request id, method, path, status, duration: strings and
 * numbers, never an object that could hold a `password` or `token`), so the logger's redaction
 * paths, whose wildcards (`*.password`) run on every field of every line, cannot change it.
 */
const unredacted = new WeakMap<FastifyBaseLogger, FastifyBaseLogger>()

function successLogger(server: FastifyBaseLogger): FastifyBaseLogger {
  let logger = unredacted.get(server)
  if (logger === undefined) {
    logger = server.child({}, { redact: [] })
    unredacted.set(server, logger)
  }
  return logger
}

/**
 * Fastify's per-request logging, replaced by one line per request when it completes:
 * `{ reqId, method, path, status, duration_ms, msg: "request" }`, `duration_ms` rounded to the
 * microsecond (0.001 ms, so `2.907`, not `2.90735600000005`). Headers (so the
 * `Authorization` header), query strings and bodies are never logged.
 *
 * An error line goes through the request's logger (redacted, the error serialized); a success
 * line through {@link successLogger} (unless a route's `logLevel` gave the request's logger
 * another level) with `reqId` first: the same bytes as the request's logger would write (its `reqId` binding is
 * written right after the app's), without running the redaction on each field.
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const method = request.method
    const path = pathOnly(request.url)
    const status = reply.statusCode
    const duration_ms = Math.round(reply.elapsedTime * 1000) / 1000
    if (error) return request.log.error({ method, path, status, duration_ms, err: error }, 'request')
    const logger = successLogger(request.server.log)
    // A route's own `logLevel` gives its requests a logger of another level: that one decides.
    if (logger.level !== request.log.level) return request.log.info({ method, path, status, duration_ms }, 'request')
    logger.info({ [this.requestIdLogLabel]: request.id, method, path, status, duration_ms }, 'request')
  }
}
