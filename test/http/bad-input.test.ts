import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import type { Engine } from '../../src/storage/contracts/engine.js'
import { authHeaders, buildTestApp } from '../support/app.js'
import { engines, openTestDatabase } from '../support/engines.js'
import { accountish, authorization, body, contentType, id, request, type Generated } from '../support/hostile-requests.js'
import { responseChecker, type Answer } from '../support/openapi-responses.js'

/**
 * Bad input, property-based (the book and /users routes): generated bodies, ids, headers and content types sent
 * in-process. Properties: never a 5xx, never a crash, always the envelope with `status` equal to
 * the HTTP status, every answer of an operation as the API document says (a status it documents,
 * a body its schema accepts), no stored record changed by a 4xx, `Object.prototype` never polluted.
 * They run on each engine: `BAD_INPUT_RUNS` runs per property (5 properties) on SQLite (default
 * 1000) and on PostgreSQL (default 300 in the short form: every request is a round trip there);
 * `npm run test:fuzz` runs 25,000 on each.
 */
const runsFor = (engine: Engine) => Number(process.env.BAD_INPUT_RUNS ?? (engine === 'sqlite' ? 1000 : 300))
const prototypeNames = Object.getOwnPropertyNames(Object.prototype).sort()

let app: FastifyInstance
let generated = 0
let documented: (answer: Answer) => string | undefined
const auth = authHeaders()

/** Every stored book and account, as text. */
async function snapshot(): Promise<string> {
  return (await app.inject({ url: '/books', headers: auth })).body + (await app.inject({ url: '/users', headers: auth })).body
}


/** Sends `request` and checks every property; returns the response status. */
async function check(request: Generated): Promise<number> {
  generated++
  const before = await snapshot()
  const response = await app.inject({ method: request.method as 'GET', url: request.url, headers: request.headers, payload: request.payload })
  const where = `${request.method} ${request.url.slice(0, 200)} -> ${response.statusCode} ${response.body.slice(0, 300)}`
  assert.ok(response.statusCode < 500, where)
  // A path whose dot segments resolve to `/` (`/book/..`: inject resolves them, as browsers do) is
  // the web page (docs/web-page.md "Web page"), the one answer here that is not the envelope.
  if (response.headers['content-type'] === 'text/html; charset=utf-8' && new URL(request.url, 'http://localhost').pathname === '/') {
    assert.equal(response.statusCode, 200, where)
    return response.statusCode
  }
  const contentType = String(response.headers['content-type'])
  assert.equal(documented({ method: request.method, url: request.url, status: response.statusCode, contentType, body: response.body }), undefined)
  assert.match(String(response.headers['content-type']), /^application\/json; charset=utf-8$/, where)
  if (request.method === 'HEAD') {
    // HEAD: the headers of the GET answer, no body.
    assert.equal(response.body, '', where)
    assert.equal(await snapshot(), before, where)
    return response.statusCode
  }
  const body = JSON.parse(response.body) as Record<string, unknown>
  assert.deepEqual(Object.keys(body).sort(), ['data', 'message', 'status'], where)
  assert.equal(body.status, response.statusCode, where)
  assert.equal(typeof body.message, 'string', where)
  if (response.statusCode >= 400) {
    assert.equal(body.data, null, where)
    assert.equal(await snapshot(), before, `a ${response.statusCode} changed stored books: ${where}`)
  } else if (response.statusCode === 201) {
    // A generated body that is a valid book or account: remove it again so the snapshots stay small.
    const data = body.data as { id: number; username: string }
    const url = request.url === '/users' ? `/users/${encodeURIComponent(data.username)}` : `/book/${data.id}`
    const removed = await app.inject({ method: 'DELETE', url, headers: auth })
    assert.equal(removed.statusCode, 200)
  }
  assert.deepEqual(Object.getOwnPropertyNames(Object.prototype).sort(), prototypeNames, `Object.prototype polluted: ${where}`)
  assert.equal(({} as Record<string, unknown>).polluted, undefined, where)
  return response.statusCode
}

for (const { engine, skip } of engines) {
  describe(`bad input [${engine}]`, { skip }, () => {
    const RUNS = runsFor(engine)
    const options = { numRuns: RUNS, endOnFailure: true }
    let cleanup = async () => {}
    before(async () => {
      generated = 0
      const opened = await openTestDatabase(engine)
      cleanup = opened.cleanup
      app = await buildTestApp({ LOGIN_RATE_LIMIT: 1_000_000 }, opened.database)
      documented = await responseChecker((await app.inject({ url: '/openapi.json' })).json())
      const seeded = await app.inject({ method: 'POST', url: '/users', headers: auth, payload: { username: 'seeded', password: 'a long enough passphrase', role: 'editor' } })
      assert.equal(seeded.statusCode, 201)
      for (const title of ['Dune', 'Emma', 'Ulysses']) {
        const created = await app.inject({ method: 'POST', url: '/book', headers: auth, payload: { title, author: 'A', year: 1 } })
        assert.equal(created.statusCode, 201)
      }
    })
    after(async () => {
      await app.close()
      await cleanup()
    })

    test(`any request: never 5xx, always the envelope, no change after a 4xx, prototype intact (${RUNS} runs)`, async () => {
      await fc.assert(fc.asyncProperty(request, async (generatedRequest) => void (await check(generatedRequest))), options)
    })

    test(`book bodies on POST and PUT with a valid token (${RUNS} runs)`, async () => {
      const write = fc.record({ method: fc.constantFrom('POST', 'PUT'), id: fc.constantFrom('1', '2', '3'), contentType, payload: body })
      await fc.assert(
        fc.asyncProperty(write, async ({ method, id: bookId, contentType: type, payload }) => {
          const headers: Record<string, string> = { ...auth }
          if (type !== undefined) headers['content-type'] = type
          await check({ method, url: method === 'POST' ? '/book' : `/book/${bookId}`, headers, payload })
        }),
        options
      )
    })

    test(`account bodies on POST and PUT /users with an admin token (${RUNS} runs)`, async () => {
      const write = fc.record({ method: fc.constantFrom('POST', 'PUT'), username: fc.constantFrom('seeded', 'admin', 'missing', 'SEEDED'), contentType, payload: fc.oneof({ weight: 3, arbitrary: accountish }, { weight: 2, arbitrary: body }) })
      await fc.assert(
        fc.asyncProperty(write, async ({ method, username, contentType: type, payload }) => {
          const headers: Record<string, string> = { ...auth }
          if (type !== undefined) headers['content-type'] = type
          await check({ method, url: method === 'POST' ? '/users' : `/users/${username}`, headers, payload })
        }),
        options
      )
    })

    test(`ids in the path with a valid token (${RUNS} runs)`, async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom('GET', 'PUT', 'DELETE'), id, async (verb, bookId) => {
          const payload = verb === 'PUT' ? '{"title":"x"}' : undefined
          // DELETE of an existing id would succeed (2xx): only ids that cannot name a seeded book are deleted.
          if (verb === 'DELETE' && /^0*[1-3]$/.test(bookId)) return
          const status = await check({ method: verb, url: `/book/${bookId}`, headers: { ...auth, 'content-type': 'application/json' }, payload })
          if (verb === 'PUT' && status === 200) {
            // restore the title so later snapshots compare like with like
            await app.inject({ method: 'PUT', url: `/book/${bookId}`, headers: auth, payload: { title: ['Dune', 'Emma', 'Ulysses'][Number(bookId) - 1]! } })
          }
        }),
        options
      )
    })

    test(`Authorization headers of any shape (${RUNS} runs)`, async (t) => {
      await fc.assert(
        fc.asyncProperty(authorization, fc.constantFrom('/books', '/book/1', '/book', '/users', '/users/seeded'), async (value, url) => {
          const write = url === '/book' || url === '/users/seeded'
          const status = await check({ method: url === '/book' ? 'POST' : url === '/users/seeded' ? 'PUT' : 'GET', url, headers: { authorization: value }, payload: write ? '[]' : undefined })
          assert.ok([200, 400, 401, 404].includes(status), `${status} for ${url}`)
        }),
        options
      )
      t.diagnostic(`bad input [${engine}]: ${generated} generated requests, no 5xx, envelope always, no record changed by a 4xx, prototype intact`)
    })
  })
}
