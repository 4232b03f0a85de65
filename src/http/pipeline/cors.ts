import cors from '@fastify/cors'
import type { FastifyInstance, FastifyRequest } from 'fastify'

/**
 * Splits `CORS_ORIGINS` (comma-separated, spaces allowed) into its origins.
 *
 * @returns the origins, or undefined when the value is unset or lists none (CORS off).
 */
export function corsOrigins(value: string | undefined): string[] | undefined {
  const origins = (value ?? '')
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '')
  return origins.length > 0 ? origins : undefined
}

/** True for a CORS preflight: OPTIONS with `Origin` and `Access-Control-Request-Method`. */
function isPreflight(request: FastifyRequest): boolean {
  return (
    request.method === 'OPTIONS' &&
    request.headers.origin !== undefined &&
    request.headers['access-control-request-method'] !== undefined
  )
}

/**
 * Lets browsers on `origins` call the API cross-origin (call it before the routes are added).
 * A preflight is answered 204 by a hook before routing to the 405 answers and before auth;
 * responses to allowed origins carry `Access-Control-Allow-Origin`. An OPTIONS request that is
 * not a preflight is left to the routes, so it still answers 405 `Method not allowed` with `Allow`
 * (or 404 on an unknown path).
 */
export async function registerCors(app: FastifyInstance, origins: string[]): Promise<void> {
  const options = {
    origin: origins,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
    // The request and response headers of the API document's operations, so a page on another
    // origin can use conditional writes, idempotent creates, paging and read-your-writes as the
    // typed client does.
    allowedHeaders: ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match', 'Idempotency-Key', 'Commit-Position', 'Last-Event-ID'],
    exposedHeaders: ['X-Request-Id', 'Retry-After', 'Allow', 'ETag', 'Link', 'X-Total-Count', 'Idempotent-Replayed', 'Commit-Position'],
    maxAge: 600
  }
  await app.register(cors, {
    delegator: (request, callback) => callback(null, request.method !== 'OPTIONS' || isPreflight(request) ? options : { origin: false })
  })
}
