import type { FastifyInstance } from 'fastify'
import { EmptyEnvelope, HttpError, Messages } from './envelope.js'
import type { BookStore } from './storage/book-store.js'

/**
 * Liveness and readiness for load balancers and orchestrators (decisions: "Everything else"),
 * not behind auth: GET /healthz answers 200 `OK` while the process runs; GET /readyz answers
 * 200 `OK` when the storage answers, else 503 `Service unavailable`.
 */
export async function healthRoutes(app: FastifyInstance, options: { store: BookStore }): Promise<void> {
  const schema = { response: { 200: EmptyEnvelope, 503: EmptyEnvelope } }
  const ok = { status: 200, message: Messages.ok, data: null }

  app.get('/healthz', { schema }, async () => ok)

  app.get('/readyz', { schema }, async (request) => {
    try {
      await options.store.ping()
    } catch (error) {
      request.log.warn({ err: error }, 'readiness check failed: storage unreachable')
      throw new HttpError(503, Messages.unavailable)
    }
    return ok
  })
}
