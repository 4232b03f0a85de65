import { LogController, type FastifyReply, type FastifyRequest } from 'fastify'

/**
 * Fastify's per-request logging, replaced by one line per request when it completes:
 * `{ reqId, method, path, status, duration_ms, msg: "request" }`. Headers (so the
 * `Authorization` header) and bodies are never logged.
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = { method: request.method, path: request.url, status: reply.statusCode, duration_ms: reply.elapsedTime }
    if (error) request.log.error({ ...line, err: error }, 'request')
    else request.log.info(line, 'request')
  }
}
