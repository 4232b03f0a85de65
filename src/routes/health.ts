import type { FastifyInstance } from 'fastify'
import Type from 'typebox'
import { envelopeOf } from '../http/envelope.js'
import { HttpError } from '../http/errors/http-error.js'
import { Messages } from '../http/messages.js'
import { WITHOUT_STORAGE } from '../http/api-document/pipeline-responses.js'
import { successResponse, unavailableResponse } from '../http/api-document/response-schemas.js'
import type { Database } from '../storage/contracts/database.js'

/**
 * Liveness and readiness for load balancers and orchestrators (docs/contract.md "Operations"),
 * not behind auth: GET /healthz answers 200 `OK` while the process runs; GET /readyz answers
 * 200 `OK` when the storage answers, else 503 `Service unavailable`.
 */
export async function healthRoutes(app: FastifyInstance, options: { database: Pick<Database, 'ping'> }): Promise<void> {
  const ok = envelopeOf(200, Messages.ok, null)
  const tags = ['Health']

  app.get(
    '/healthz',
    {
      config: WITHOUT_STORAGE,
      schema: {
        tags,
        operationId: 'liveness',
        summary: 'Liveness: the process runs',
        description: 'Answers 200 while the process can answer at all; it does not touch the storage (use it as a liveness probe).',
        response: { 200: successResponse(Type.Null(), Messages.ok, 'the process runs.') }
      }
    },
    async () => ok
  )

  const readiness = {
    tags,
    operationId: 'readiness',
    summary: 'Readiness: the storage answers',
    description: 'Answers 200 when the storage answers and takes writes, else 503 (use it as a readiness probe).',
    response: {
      200: successResponse(Type.Null(), Messages.ok, 'the process runs and the storage answers.'),
      503: unavailableResponse
    }
  }
  app.get('/readyz', { schema: readiness }, async (request) => {
    try {
      await options.database.ping()
    } catch (error) {
      request.log.warn({ err: error }, 'readiness check failed: storage unreachable')
      throw new HttpError(503, Messages.unavailable)
    }
    return ok
  })
}
