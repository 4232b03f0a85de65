import assert from 'node:assert/strict'
import { test } from 'node:test'
import { dereference } from '@readme/openapi-parser'
import { Ajv } from 'ajv'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { TEST_PASSWORD, authHeaders } from '../../support/app.js'
import { describeEachEngine } from '../../support/suite.js'

/**
 * A schema-driven generator can produce valid requests for every operation. Request
 * bodies and query parameters are generated with fast-check from the schemas of the served
 * `/openapi.json` alone (a small JSON Schema → arbitrary translation that refuses any keyword it
 * does not know, such as `not`), sent in-process on each engine, and must be accepted (2xx). The
 * book operations are chained through the document's `links` (the created book's id feeds get,
 * update and delete) and the list through its `Link` header, as a stateful API tester does.
 */

interface JsonSchema {
  type?: string
  properties?: Record<string, JsonSchema>
  required?: string[]
  additionalProperties?: boolean
  minLength?: number
  maxLength?: number
  pattern?: string
  minimum?: number
  maximum?: number
  enum?: unknown[]
  [keyword: string]: unknown
}
interface Operation {
  operationId: string
  parameters?: Array<{ name: string; in: string; schema: JsonSchema }>
  requestBody?: { content: { 'application/json': { schema: JsonSchema } } }
  responses: Record<string, { links?: Record<string, { operationId: string; parameters: Record<string, string> }> }>
}
type Document = { paths: Record<string, Record<string, Operation>> }

/** Keywords that only describe (they never restrict what is valid). */
const ANNOTATIONS = new Set(['description', 'examples', 'title', 'default', 'additionalProperties'])
const RESTRICTIONS = new Set(['type', 'properties', 'required', 'minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'enum'])

/** A length in code points, as JSON Schema counts it. */
const codePoints = (text: string) => [...text].length

/**
 * An arbitrary of the values `schema` accepts, for the shapes the document uses: objects (required
 * and optional properties), strings (length, pattern with the `u` flag as JSON Schema matches it),
 * integers (bounds), booleans, enums. Any other keyword throws: the generator could not honour it.
 */
function arbitraryOf(schema: JsonSchema): fc.Arbitrary<unknown> {
  for (const keyword of Object.keys(schema)) {
    if (!ANNOTATIONS.has(keyword) && !RESTRICTIONS.has(keyword)) throw new Error(`the generator cannot satisfy "${keyword}"`)
  }
  if (schema.enum) return fc.constantFrom(...schema.enum)
  switch (schema.type) {
    case 'object': {
      const properties = Object.fromEntries(Object.entries(schema.properties ?? {}).map(([name, property]) => [name, arbitraryOf(property)]))
      return fc.record(properties, { requiredKeys: schema.required ?? [] })
    }
    case 'string': {
      const min = schema.minLength ?? 0
      const max = schema.maxLength ?? 1000
      const text = schema.pattern ? fc.stringMatching(new RegExp(schema.pattern, 'u')) : fc.string({ unit: 'grapheme', minLength: min, maxLength: Math.min(max, 60) })
      return text.filter((value) => codePoints(value) >= min && codePoints(value) <= max)
    }
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -(2 ** 31), max: Math.min(schema.maximum ?? 2 ** 31, Number.MAX_SAFE_INTEGER) })
    case 'boolean':
      return fc.boolean()
    default:
      throw new Error(`the generator cannot make a ${String(schema.type)}`)
  }
}

const ajv = new Ajv({ strict: false })
const auth = authHeaders()
const runsFor = (engine: string) => Number(process.env.GENERATED_RUNS ?? (engine === 'sqlite' ? 60 : 15))
/** Login runs are a third of that (at least 5): each is two scrypt hashes (~0.2 s each, src/auth/password.ts). */
const loginRunsFor = (engine: string) => Math.max(5, Math.ceil(runsFor(engine) / 3))

/** The JSON body schema of an operation. */
const bodySchema = (operation: Operation) => operation.requestBody!.content['application/json'].schema

/** Fills `{id}`-style path parameters from a link's `$response.body#/…` expressions. */
function follow(link: { parameters: Record<string, string> }, path: string, response: unknown): string {
  let url = path
  for (const [name, expression] of Object.entries(link.parameters)) {
    const pointer = expression.replace('$response.body#', '').split('/').slice(1)
    const value = pointer.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], response)
    url = url.replace(`{${name}}`, encodeURIComponent(String(value)))
  }
  return url
}

describeEachEngine(
  'requests generated from /openapi.json are accepted',
  ({ engine, app }) => {
    let document: Document
    const operation = (path: string, method: string) => document.paths[path]![method]!
    // The shared schemas are `$ref`s to `components`: resolved first, as a generator does.
    const fetchDocument = async (fastify: FastifyInstance) =>
      (document = (await dereference((await fastify.inject({ url: '/openapi.json' })).json() as never)) as unknown as Document)

    test('create, then get, update and delete the created book through the links: every generated body is 2xx and stored as sent', async () => {
      await fetchDocument(app())
      const create = operation('/book', 'post')
      const links = create.responses['201']!.links!
      assert.deepEqual(Object.keys(links).sort(), ['deleteBook', 'getBook', 'updateBook'])
      const byId = Object.fromEntries(Object.entries(document.paths['/book/{id}']!).map(([method, found]) => [found.operationId, method]))
      const validCreate = ajv.compile(bodySchema(create))
      const validUpdate = ajv.compile(bodySchema(operation('/book/{id}', 'put')))
      await fc.assert(
        fc.asyncProperty(arbitraryOf(bodySchema(create)), arbitraryOf(bodySchema(operation('/book/{id}', 'put'))), async (body, patch) => {
          assert.ok(validCreate(body) && validUpdate(patch), 'the generator makes schema-valid bodies')
          const created = await app().inject({ method: 'POST', url: '/book', headers: auth, payload: body as object })
          assert.equal(created.statusCode, 201, `${JSON.stringify(body)} -> ${created.body}`)
          const { title, author, year } = body as Record<string, unknown>
          assert.deepEqual({ ...created.json().data, id: 0 }, { id: 0, title, author, year })
          const url = (operationId: string) => follow(links[operationId]!, '/book/{id}', created.json())
          const read = await app().inject({ method: byId.getBook!.toUpperCase() as 'GET', url: url('getBook'), headers: auth })
          assert.equal(read.statusCode, 200)
          assert.deepEqual(read.json().data, created.json().data)
          const updated = await app().inject({ method: byId.updateBook!.toUpperCase() as 'PUT', url: url('updateBook'), headers: auth, payload: patch as object })
          assert.equal(updated.statusCode, 200, `${JSON.stringify(patch)} -> ${updated.body}`)
          assert.deepEqual(updated.json().data, { ...created.json().data, ...(patch as object), id: created.json().data.id })
          const removed = await app().inject({ method: byId.deleteBook!.toUpperCase() as 'DELETE', url: url('deleteBook'), headers: auth })
          assert.equal(removed.statusCode, 200)
        }),
        { numRuns: runsFor(engine) }
      )
    })

    test('GET /books with generated query parameters: 200, and its Link header leads to 200 pages', async () => {
      await fetchDocument(app())
      for (const book of [{ title: 'Dune', author: 'Frank Herbert', year: 1965 }, { title: 'Beloved', author: 'Toni Morrison', year: 1987 }]) {
        await app().inject({ method: 'POST', url: '/book', headers: auth, payload: book })
      }
      // `after` is a position the service hands out (an id, or the cursor of a Link header): it is
      // taken from the Link header below, never generated.
      const parameters = operation('/books', 'get').parameters!.filter((parameter) => parameter.in === 'query' && parameter.name !== 'after')
      const query = fc.record(Object.fromEntries(parameters.map((parameter) => [parameter.name, arbitraryOf(parameter.schema)])), { requiredKeys: [] })
      await fc.assert(
        fc.asyncProperty(query, async (values) => {
          // Integers and booleans are written as text, as every HTTP client writes a query.
          const text = Object.fromEntries(Object.entries(values as Record<string, unknown>).map(([name, value]) => [name, String(value)]))
          let url: string | undefined = `/books?${new URLSearchParams(text)}`
          for (let pages = 0; url && pages < 3; pages++) {
            const response: { statusCode: number; body: string; headers: Record<string, unknown> } = await app().inject({ url, headers: auth })
            assert.equal(response.statusCode, 200, `${url} -> ${response.body}`)
            url = /^<([^>]+)>; rel="next"$/.exec(String(response.headers.link ?? ''))?.[1]
          }
        }),
        { numRuns: runsFor(engine) * 2 }
      )
    })

    test('POST /login with generated bodies: never 400 (200 with the configured credentials, else 401); health checks 200', async () => {
      await fetchDocument(app())
      await fc.assert(
        fc.asyncProperty(arbitraryOf(bodySchema(operation('/login', 'post'))), async (body) => {
          const response = await app().inject({ method: 'POST', url: '/login', payload: body as object })
          assert.equal(response.statusCode, 401, `${JSON.stringify(body)} -> ${response.body}`)
          const real = await app().inject({ method: 'POST', url: '/login', payload: { ...(body as object), username: 'admin', password: TEST_PASSWORD } })
          assert.equal(real.statusCode, 200, real.body)
        }),
        { numRuns: loginRunsFor(engine) }
      )
      for (const path of ['/healthz', '/readyz']) assert.equal((await app().inject({ url: path })).statusCode, 200)
    })
  },
  { LOGIN_RATE_LIMIT: 1_000_000 }
)
