import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'

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
 * Fastify's per-request logging, replaced by one line per request when it completes:
 * `{ reqId, method, path, status, duration_ms, msg: "request" }`, `duration_ms` rounded to the
 * microsecond (0.001 ms, so `2.907`, not `2.90735600000005`). Headers (so the
 * `Authorization` header), query strings and bodies are never logged.
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = { method: request.method, path: pathOnly(request.url), status: reply.statusCode, duration_ms: Math.round(reply.elapsedTime * 1000) / 1000 }
    if (error) request.log.error({ ...line, err: error }, 'request')
    else request.log.info(line, 'request')
  }
}
