import type { FastifyInstance } from 'fastify'
import Type from 'typebox'
import { envelopeOf } from '../http/envelope.js'
import { HttpError } from '../http/http-error.js'
import { Messages } from '../http/messages.js'
import { successResponse, unavailable } from '../http/response-schemas.js'
import type { BookStore } from '../storage/book-store.js'

/**
 * Liveness and readiness for load balancers and orchestrators (decisions: "Everything else"),
 * not behind auth: GET /healthz answers 200 `OK` while the process runs; GET /readyz answers
 * 200 `OK` when the storage answers, else 503 `Service unavailable`.
 */
export async function healthRoutes(app: FastifyInstance, options: { store: BookStore }): Promise<void> {
  const response = {
    200: successResponse(Type.Null(), Messages.ok, 'the process runs (and, for readiness, the storage answers).'),
    503: unavailable
  }
  const ok = envelopeOf(200, Messages.ok, null)
  const tags = ['Health']

  app.get(
    '/healthz',
    { schema: { tags, operationId: 'liveness', summary: 'Liveness: the process runs', security: [], response } },
    async () => ok
  )

  const readiness = {
    tags,
    operationId: 'readiness',
    summary: 'Readiness: the storage answers',
    security: [],
    response
  }
  app.get('/readyz', { schema: readiness }, async (request) => {
    try {
      await options.store.ping()
    } catch (error) {
      request.log.warn({ err: error }, 'readiness check failed: storage unreachable')
      throw new HttpError(503, Messages.unavailable)
    }
    return ok
  })
}
