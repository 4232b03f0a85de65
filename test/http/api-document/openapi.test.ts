import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { validate } from '@readme/openapi-parser'
import type { FastifyInstance } from 'fastify'
import { Messages } from '../../../src/http/messages.js'
import { TEST_PASSWORD, authHeaders, buildTestApp, signToken } from '../../support/app.js'

interface Operation {
  operationId?: string
  security?: Array<Record<string, string[]>>
  requestBody?: unknown
  parameters?: Array<{ name: string; in: string; required?: boolean; schema: object }>
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>
}
interface Schema {
  properties?: Record<string, { enum?: string[]; type?: string; examples?: unknown[] }>
}
type Document = {
  openapi: string
  paths: Record<string, Record<string, Operation>>
  components: { securitySchemes: Record<string, { type: string; scheme: string; description: string }> }
}

async function fetchDocument(app: FastifyInstance): Promise<Document> {
  const response = await app.inject({ method: 'GET', url: '/openapi.json' })
  assert.equal(response.statusCode, 200, response.body)
  assert.match(String(response.headers['content-type']), /^application\/json/)
  return response.json() as Document
}

/** The exact messages the document gives for `status` of an operation. */
function documentedMessages(document: Document, path: string, method: string, status: number): string[] {
  const operation = document.paths[path]?.[method]
  assert.ok(operation, `${method.toUpperCase()} ${path} is in the document`)
  const response = operation.responses[String(status)]
  assert.ok(response, `${method.toUpperCase()} ${path} documents status ${status}`)
  const messages = response.content?.['application/json']?.schema.properties?.message?.enum
  assert.ok(messages && messages.length > 0, `${method.toUpperCase()} ${path} ${status} lists its messages`)
  return messages
}

describe('GET /openapi.json', () => {
  let app: FastifyInstance
  let document: Document
  before(async () => {
    app = await buildTestApp()
    document = await fetchDocument(app)
  })
  after(() => app.close())

  test('is a valid OpenAPI 3.1 document (independent validator)', async () => {
    assert.equal(document.openapi, '3.1.0')
    const result = await validate(structuredClone(document) as never)
    assert.equal(result.valid, true, JSON.stringify(result))
  })

  test('describes every operation and nothing else (no 405 answers, docs, metrics)', () => {
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => `${method.toUpperCase()} ${path} ${operation.operationId}`)
    )
    assert.deepEqual(operations.sort(), [
      'DELETE /book/{id} deleteBook',
      'DELETE /tokens/{id} revokeApiToken',
      'DELETE /users/{username} deleteUser',
      'DELETE /webhooks/{id} deleteWebhook',
      'GET /book/{id} getBook',
      'GET /book/{id}/history getBookHistory',
      'GET /books listBooks',
      'GET /books/changes watchBookChanges',
      'GET /healthz liveness',
      'GET /readyz readiness',
      'GET /tokens listApiTokens',
      'GET /users listUsers',
      'GET /webhooks listWebhooks',
      'GET /webhooks/{id} getWebhook',
      'GET /webhooks/{id}/deliveries listWebhookDeliveries',
      'POST /book createBook',
      'POST /book/{id}/restore restoreBook',
      'POST /login login',
      'POST /tokens createApiToken',
      'POST /users createUser',
      'POST /webhooks createWebhook',
      'POST /webhooks/{id}/replay replayWebhook',
      'POST /webhooks/{id}/rotate rotateWebhookSecret',
      'PUT /book/{id} updateBook',
      'PUT /users/{username} updateUser',
      'PUT /users/{username}/password changeOwnPassword',
      'PUT /webhooks/{id} updateWebhook'
    ])
  })

  test('the bearer scheme protects the book operations, and accepts the raw token too', () => {
    const scheme = document.components.securitySchemes.bearerAuth
    assert.equal(scheme?.type, 'http')
    assert.equal(scheme?.scheme, 'bearer')
    assert.match(scheme?.description ?? '', /raw token/)
    const protectedOperations = [
      ['/book', 'post'], ['/books', 'get'], ['/books/changes', 'get'], ['/book/{id}', 'get'], ['/book/{id}', 'put'], ['/book/{id}', 'delete'],
      ['/users', 'get'], ['/users', 'post'], ['/users/{username}', 'put'], ['/users/{username}', 'delete'],
      ['/webhooks', 'get'], ['/webhooks', 'post'], ['/webhooks/{id}', 'get'], ['/webhooks/{id}', 'put'], ['/webhooks/{id}', 'delete'],
      ['/webhooks/{id}/deliveries', 'get'], ['/webhooks/{id}/replay', 'post'], ['/webhooks/{id}/rotate', 'post']
    ] as const
    for (const [path, method] of protectedOperations) {
      assert.deepEqual(document.paths[path]?.[method]?.security, [{ bearerAuth: [] }], `${method} ${path}`)
      assert.deepEqual(documentedMessages(document, path, method, 401).sort(), [Messages.tokenRequired, Messages.invalidToken].sort())
      assert.deepEqual(documentedMessages(document, path, method, 403), [Messages.forbidden], `${method} ${path}`)
    }
    assert.deepEqual(document.paths['/login']?.post?.security, [])
    assert.ok(document.paths['/login']?.post?.requestBody)
  })

  test('each status of each operation names its exact messages', () => {
    // Every status the service can send: the HTTP layer's and the error handler's on all, the
    // body's where one is read, the storage's wherever it is used, the token check's behind it.
    const wire = { 400: ['Bad request'], 408: ['Request timeout'], 417: ['Expectation failed'], 431: ['Request header fields too large'], 500: [Messages.internalError] }
    const body = { 413: [Messages.payloadTooLarge], 415: ['Unsupported media type'] }
    const storage = { 503: [Messages.unavailable] }
    const token = { 401: [Messages.tokenRequired, Messages.invalidToken], 403: [Messages.forbidden] }
    const expected: Array<[string, string, Record<number, string[]>]> = [
      ['/book', 'post', { ...wire, ...body, ...storage, ...token, 201: [Messages.created], 400: [Messages.invalidInput, 'Bad request'], 409: [Messages.requestInProgress], 422: [Messages.idempotencyKeyReused] }],
      ['/books', 'get', { ...wire, ...storage, ...token, 200: [Messages.listed], 400: [Messages.invalidInput, 'Bad request'] }],
      ['/book/{id}', 'get', { ...wire, ...storage, ...token, 200: [Messages.retrieved], 404: [Messages.bookNotFound] }],
      // The change feed's 200 is a stream of events, not an envelope (no message).
      ['/books/changes', 'get', { ...wire, ...storage, ...token, 200: [], 400: [Messages.invalidInput, 'Bad request'] }],
      ['/book/{id}', 'put', { ...wire, ...body, ...storage, ...token, 200: [Messages.updated], 400: [Messages.invalidInput, 'Bad request'], 404: [Messages.bookNotFound], 412: [Messages.preconditionFailed] }],
      ['/book/{id}', 'delete', { ...wire, ...body, ...storage, ...token, 200: [Messages.deleted], 404: [Messages.bookNotFound], 412: [Messages.preconditionFailed] }],
      ['/login', 'post', { ...wire, ...body, ...storage, 200: [Messages.loggedIn], 400: [Messages.invalidInput, 'Bad request'], 401: [Messages.invalidCredentials], 429: [Messages.tooManyRequests] }],
      ['/users', 'get', { ...wire, ...storage, ...token, 200: [Messages.usersListed] }],
      ['/users', 'post', { ...wire, ...body, ...storage, ...token, 201: [Messages.userCreated], 400: [Messages.invalidInput, 'Bad request'], 409: [Messages.userExists] }],
      ['/users/{username}', 'put', { ...wire, ...body, ...storage, ...token, 200: [Messages.userUpdated], 400: [Messages.invalidInput, 'Bad request'], 404: [Messages.userNotFound], 409: [Messages.lastAdmin] }],
      ['/users/{username}', 'delete', { ...wire, ...body, ...storage, ...token, 200: [Messages.userDeleted], 404: [Messages.userNotFound], 409: [Messages.lastAdmin] }],
      ['/healthz', 'get', { ...wire, 200: [Messages.ok] }],
      ['/readyz', 'get', { ...wire, ...storage, 200: [Messages.ok] }]
    ]
    for (const [path, method, statuses] of expected) {
      const documented = Object.keys(document.paths[path]?.[method]?.responses ?? {}).filter((status) => status !== '304')
      assert.deepEqual(documented.sort(), Object.keys(statuses).sort(), `${method} ${path}: the statuses documented`)
      for (const [status, messages] of Object.entries(statuses)) {
        if (messages.length === 0) {
          assert.ok(document.paths[path]?.[method]?.responses[status]?.content?.['text/event-stream'], `${method} ${path} ${status} is an event stream`)
          continue
        }
        assert.deepEqual(documentedMessages(document, path, method, Number(status)).sort(), [...messages].sort(), `${method} ${path} ${status}`)
        for (const message of messages) assert.ok(document.paths[path]?.[method]?.responses[status]?.description.includes(message))
      }
    }
  })

  test('POST /book documents its optional Idempotency-Key header', () => {
    const parameters = document.paths['/book']?.post?.parameters ?? []
    const header = parameters.find((parameter) => parameter.in === 'header' && parameter.name.toLowerCase() === 'idempotency-key')
    assert.ok(header, JSON.stringify(parameters))
    assert.notEqual(header.required, true)
    assert.deepEqual(header.schema, { type: 'string', minLength: 1, maxLength: 255 })
  })

  test('every response shows its own status as the example of `status`', () => {
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          if (status === '304') continue // no body (GET /book/{id} with If-None-Match)
          if (response.content?.['text/event-stream']) continue // events, not an envelope (GET /books/changes)
          const examples = response.content?.['application/json']?.schema.properties?.status?.examples
          assert.deepEqual(examples, [Number(status)], `${method} ${path} ${status}`)
        }
      }
    }
  })

  test('what the service really answers is what the document says', async () => {
    const auth = authHeaders()
    const reader = authHeaders(signToken({ role: 'reader' }))
    const calls: Array<[string, string, { url: string; headers?: Record<string, string>; payload?: unknown }]> = [
      ['/login', 'post', { url: '/login', payload: { username: 'admin', password: TEST_PASSWORD } }],
      ['/login', 'post', { url: '/login', payload: { username: 'admin', password: 'wrong' } }],
      ['/login', 'post', { url: '/login', payload: [] }],
      ['/book', 'post', { url: '/book', headers: auth, payload: { title: 'Dune', author: 'Frank Herbert', year: 1965 } }],
      ['/book', 'post', { url: '/book', headers: auth, payload: { title: '' } }],
      ['/book', 'post', { url: '/book', payload: { title: 'Dune', author: 'Frank Herbert', year: 1965 } }],
      ['/book', 'post', { url: '/book', headers: { authorization: 'Bearer not-a-token' }, payload: {} }],
      ['/book', 'post', { url: '/book', headers: { ...auth, 'content-type': 'application/json' }, payload: `"${'x'.repeat(1024 * 1024 + 1)}"` }],
      ['/books', 'get', { url: '/books', headers: auth }],
      ['/book/{id}', 'get', { url: '/book/1', headers: auth }],
      ['/books/changes', 'get', { url: '/books/changes?after=x', headers: auth }],
      ['/books/changes', 'get', { url: '/books/changes' }],
      ['/book/{id}', 'get', { url: '/book/abc', headers: auth }],
      ['/book/{id}', 'put', { url: '/book/1', headers: auth, payload: { year: 1966 } }],
      ['/book/{id}', 'put', { url: '/book/1', headers: auth, payload: { year: 'x' } }],
      ['/book/{id}', 'put', { url: '/book/999', headers: auth, payload: {} }],
      ['/book/{id}', 'delete', { url: '/book/1', headers: auth }],
      ['/book/{id}', 'delete', { url: '/book/1', headers: auth }],
      ['/healthz', 'get', { url: '/healthz' }],
      ['/readyz', 'get', { url: '/readyz' }],
      ['/users', 'get', { url: '/users', headers: auth }],
      ['/users', 'get', { url: '/users' }],
      ['/users', 'get', { url: '/users', headers: reader }],
      ['/book/{id}', 'delete', { url: '/book/1', headers: reader }],
      ['/users', 'post', { url: '/users', headers: auth, payload: { username: 'doc', password: 'a long enough passphrase', role: 'reader' } }],
      ['/users', 'post', { url: '/users', headers: auth, payload: { username: 'DOC', password: 'a long enough passphrase', role: 'reader' } }],
      ['/users', 'post', { url: '/users', headers: auth, payload: { username: 'doc' } }],
      ['/users', 'post', { url: '/users', headers: { ...auth, 'content-type': 'application/json' }, payload: `"${'x'.repeat(1024 * 1024 + 1)}"` }],
      ['/users/{username}', 'put', { url: '/users/doc', headers: auth, payload: { role: 'editor' } }],
      ['/users/{username}', 'put', { url: '/users/doc', headers: auth, payload: { role: 'boss' } }],
      ['/users/{username}', 'put', { url: '/users/nobody', headers: auth, payload: {} }],
      ['/users/{username}', 'put', { url: '/users/admin', headers: auth, payload: { role: 'reader' } }],
      ['/users/{username}', 'delete', { url: '/users/doc', headers: auth }],
      ['/users/{username}', 'delete', { url: '/users/doc', headers: auth }],
      ['/users/{username}', 'delete', { url: '/users/admin', headers: auth }]
    ]
    const seen = new Set<string>()
    for (const [path, method, request] of calls) {
      const response = await app.inject({ method: method.toUpperCase() as 'GET', ...request } as never)
      const body = response.json() as { status: number; message: string }
      assert.equal(body.status, response.statusCode)
      assert.ok(
        documentedMessages(document, path, method, response.statusCode).includes(body.message),
        `${method} ${request.url} answered ${response.statusCode} ${body.message}`
      )
      seen.add(`${method} ${path} ${response.statusCode}`)
    }
    // The calls above reach every documented status except the failure ones (429, 500, 503) and
    // the 401/403/413 of the operations whose 401/403/413 another operation's call shows.
    assert.equal(seen.size, 34)
  })

  test('shared schemas are defined once under components and referred to by $ref; every error answer is the Envelope', () => {
    const raw = document as unknown as { components: { schemas: Record<string, object> }; paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }> }>> }
    const names = ['Book', 'BookInput', 'Envelope', 'User', 'ApiToken', 'Webhook', 'Delivery', 'HistoryEntry', 'ChangeEvent']
    assert.deepEqual(Object.keys(raw.components.schemas).sort(), [...names].sort())
    const text = JSON.stringify(raw.paths)
    for (const name of names) assert.ok(text.includes(`"#/components/schemas/${name}"`), `${name} is referred to`)
    // No inline copy of a shared schema is left: the Book's own description appears in its component only.
    assert.equal(text.includes('Assigned by the service on creation; never reused.'), false)
    const getBook = raw.paths['/book/{id}']!.get!.responses
    assert.deepEqual(getBook['200']!.content!['application/json']!.schema.properties, {
      ...(getBook['200']!.content!['application/json']!.schema.properties as object),
      data: { $ref: '#/components/schemas/Book' }
    })
    for (const [status, response] of Object.entries(getBook)) {
      if (Number(status) >= 400) assert.equal(response.content!['application/json']!.schema.$ref, '#/components/schemas/Envelope', status)
    }
    // Patterns every mainstream validator reads: no Unicode property escape is published.
    assert.equal(JSON.stringify(raw).includes('\\\\p{'), false)
  })

  test('integer and boolean parameters are typed as such, and a bad value is still 400 Invalid input', async () => {
    const parameter = (path: string, method: string, name: string) =>
      document.paths[path]?.[method]?.parameters?.find((found) => found.name === name)?.schema
    assert.deepEqual(parameter('/books', 'get', 'limit'), { type: 'integer', minimum: 1, maximum: 1000 })
    assert.equal((parameter('/books', 'get', 'year') as { type: string }).type, 'integer')
    assert.equal((parameter('/books', 'get', 'count') as { type: string }).type, 'boolean')
    assert.equal((parameter('/book/{id}', 'get', 'id') as { type: string }).type, 'integer')
    assert.equal((parameter('/book/{id}/history', 'get', 'limit') as { type: string }).type, 'integer')
    assert.equal((parameter('/webhooks/{id}/deliveries', 'get', 'limit') as { type: string }).type, 'integer')
    // The delivery log's cursor is `<seq>.<id>` (newest first by seq, then id): text, not a number.
    assert.equal((parameter('/webhooks/{id}/deliveries', 'get', 'cursor') as { type: string }).type, 'string')
    assert.equal((parameter('/tokens', 'get', 'all') as { type: string }).type, 'boolean')
    assert.equal((parameter('/books/changes', 'get', 'after') as { type: string }).type, 'integer')
    const auth = authHeaders()
    for (const query of ['limit=1.5', 'limit=0', 'limit=01', 'year=1e3', 'year=+1', 'count=yes', 'count=1', 'year_min=x']) {
      const response = await app.inject({ url: `/books?${query}`, headers: auth })
      assert.equal(response.statusCode, 400, query)
      assert.equal(response.json().message, Messages.invalidInput, query)
    }
    assert.equal((await app.inject({ url: '/book/1.0', headers: auth })).statusCode, 404)
  })

  test('the conditional, paging and rate headers are declared; servers, contact, license; times are date-time', () => {
    const headerNames = (path: string, method: string) =>
      (document.paths[path]?.[method]?.parameters ?? []).filter((found) => found.in === 'header').map((found) => found.name)
    assert.deepEqual(headerNames('/book/{id}', 'get'), ['if-none-match', 'commit-position'])
    for (const path of ['/books', '/book/{id}/history']) assert.deepEqual(headerNames(path, 'get'), ['commit-position'], path)
    for (const [path, method] of [['/book/{id}', 'put'], ['/book/{id}', 'delete'], ['/book/{id}/restore', 'post']] as const) {
      assert.deepEqual(headerNames(path, method), ['if-match'], `${method} ${path}`)
    }
    assert.deepEqual(headerNames('/book', 'post'), ['idempotency-key'])
    type Responses = Record<string, { headers?: Record<string, unknown> }>
    const answers = (path: string, method: string) => document.paths[path]![method]!.responses as unknown as Responses
    assert.ok(answers('/book/{id}', 'get')['304']!.headers!.etag)
    assert.ok(answers('/book/{id}', 'get')['200']!.headers!.etag)
    assert.ok(answers('/books', 'get')['200']!.headers!.link)
    assert.ok(answers('/books', 'get')['200']!.headers!['x-total-count'])
    assert.ok(answers('/book/{id}/history', 'get')['200']!.headers!.link)
    assert.ok(answers('/webhooks/{id}/deliveries', 'get')['200']!.headers!.link)
    assert.ok(answers('/book', 'post')['201']!.headers!['idempotent-replayed'])
    // Read your writes on a service with read replicas: each book write's answer carries its position.
    for (const [path, method, status] of [['/book', 'post', '201'], ['/book/{id}', 'put', '200'], ['/book/{id}', 'delete', '200'], ['/book/{id}/restore', 'post', '200']] as const) {
      assert.ok(answers(path, method)[status]!.headers!['commit-position'], `${method} ${path}`)
    }
    assert.ok(answers('/login', 'post')['429']!.headers!['retry-after'])
    assert.ok(answers('/users/{username}/password', 'put')['429']!.headers!['retry-after'])
    const top = document as unknown as { servers: unknown[]; info: { contact?: object; license?: { name: string } }; components: { schemas: Record<string, { properties: Record<string, { format?: string }> }> } }
    assert.ok(top.servers.length > 0)
    assert.ok(top.info.contact)
    assert.equal(top.info.license?.name, 'MIT')
    assert.equal(top.components.schemas.User!.properties.created_at!.format, 'date-time')
    assert.equal(top.components.schemas.ApiToken!.properties.created_at!.format, 'date-time')
    assert.equal(top.components.schemas.HistoryEntry!.properties.at!.format, 'date-time')
  })

  test('is served without a token and is not an operation of its own', async () => {
    const response = await app.inject({ method: 'POST', url: '/openapi.json' })
    assert.equal(response.statusCode, 405)
    assert.equal(response.headers.allow, 'GET, HEAD')
  })
})

describe('GET /openapi.json with AUTH_ENABLED=false', () => {
  test('the book operations have no security and no 401', async () => {
    const app = await buildTestApp({ AUTH_ENABLED: false })
    try {
      const document = await fetchDocument(app)
      const get = document.paths['/book/{id}']?.get
      assert.deepEqual(get?.security, [])
      assert.equal(get?.responses['401'], undefined)
      assert.equal((await validate(structuredClone(document) as never)).valid, true)
    } finally {
      await app.close()
    }
  })
})
