import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import type { FastifyInstance } from 'fastify'
import { ErrorEnvelope } from '../envelope.js'
import { documentPipelineResponses } from './pipeline-responses.js'
import { publishParameters, shareSchemas } from './shared-schemas.js'
import { packageVersion } from '../../config.js'

/** Where the interactive docs page is served. */
export const DOCS_PATH = '/docs'
/** Where the OpenAPI document is served. */
export const OPENAPI_PATH = '/openapi.json'

const description = `HTTP + JSON service that stores book records.

Every response body, success or error, is the envelope \`{"status": <HTTP status>, "message": <text>, "data": <payload or null>}\`.
The exact \`message\` texts are listed under each response.

**Trying it here:** open *POST /login*, *Try it out* with the configured username and password, copy \`data.token\`
from the response, press **Authorize** and paste it; the book operations then send it as \`Authorization: Bearer <token>\`.

Besides the operations below: an unknown path answers 404 \`Route not found\`; a known path with another method answers
405 \`Method not allowed\` with an \`Allow\` header (any other method, TRACE, PROPFIND, QUERY and CONNECT included, with or
without a token); \`GET /metrics\` serves Prometheus metrics when enabled. Each operation below lists every status it can
answer, those of the HTTP layer included (400 \`Bad request\`, 408, 417, 431 and 500 on all; 413 and 415 where a body is read;
503 wherever the storage is used; 401 and 403 behind the token check).`

/**
 * Registers the API document and the docs page on `app`; call it before any route is added so
 * every route is collected. The document is OpenAPI 3.1, generated from the route schemas (the
 * same ones that validate requests and serialize responses): `GET /openapi.json` serves it, and
 * `GET /docs` an interactive Swagger UI page whose assets are bundled (no CDN). Routes marked
 * `schema.hide` (the 405 answers, the docs page itself) are left out. Neither is behind auth.
 *
 * @param sharedSchemas the schemas published once under `components.schemas` and referred to by
 *   `$ref` wherever the document has them (`shared-schemas.ts`); `Envelope` is the error envelope.
 */
export async function apiDocument(app: FastifyInstance, sharedSchemas: Record<string, object>): Promise<void> {
  await app.register(swagger, {
    transform: (input) => documentPipelineResponses({ ...input, schema: publishParameters(input.schema) } as Parameters<typeof documentPipelineResponses>[0]),
    transformObject: (generated) =>
      shareSchemas(('openapiObject' in generated ? generated.openapiObject : {}) as Record<string, unknown>, { Envelope: ErrorEnvelope, ...sharedSchemas }),
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Book service',
        version: packageVersion,
        description,
        contact: { name: 'The operators of this service' },
        license: { name: 'MIT', identifier: 'MIT' }
      },
      // The service itself, wherever it answers: generated clients resolve paths against the
      // address they fetched the document from (OpenAPI 3.1 §4.8.5, a relative server URL).
      servers: [{ url: '/', description: 'This service, at the address the document was fetched from.' }],
      tags: [
        { name: 'Authentication', description: 'Get a token for the book operations.' },
        { name: 'Books', description: 'Create, list, read, update and delete book records.' },
        { name: 'Users', description: 'Accounts and their roles (admin only): list, create, change password or role, delete.' },
        { name: 'API tokens', description: 'Named, long-lived, revocable tokens for programs, with the least role they need.' },
        { name: 'Webhooks', description: 'Endpoints that receive every book change, signed (admin only): create, list, change, replay, rotate the secret, see the deliveries.' },
        { name: 'Health', description: 'Liveness and readiness probes.' }
      ],
      components: {
        securitySchemes: {
          bearerAuth: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description:
              'A token from `POST /login`, or any JWT signed with `SECRET_TOKEN` using HS256, HS384 or HS512. ' +
              'Sent as `Authorization: Bearer <token>`; the raw token, without `Bearer `, is accepted too. ' +
              'Its `role` claim limits it: `reader` may only GET books, `editor` may use the five book operations, ' +
              '`admin` also /users; a token without a `role` claim has every right, one whose `role` is anything else has none (403). ' +
              'Tokens from `POST /login` ' +
              'stop working (401 `Invalid token`) when their account is deleted or its password or role changes; ' +
              'API tokens from `POST /tokens` when revoked, when their account is deleted, or while their role is above the account\'s.'
          }
        }
      }
    }
  })
  await app.register(swaggerUi, {
    routePrefix: DOCS_PATH,
    uiConfig: { tryItOutEnabled: true, displayRequestDuration: true, persistAuthorization: false }
  })
  app.get(OPENAPI_PATH, { schema: { hide: true } }, async () => app.swagger())
}
