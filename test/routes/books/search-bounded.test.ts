import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { createBook } from '../../support/books.js'
import { auth, finishingOrder } from '../../support/list-pages.js'
import { describeEachEngine } from '../../support/suite.js'

/** Books enough that a search walking every rank by id takes hundreds of statements (windows of 4 ids). */
const BOOKS = 200

/** {@link finishingOrder} of searches that each answer 200 with no book (no book of `q=x` holds an `x`). */
function searchesFinishingOrder(app: FastifyInstance, urls: string[]): Promise<string[]> {
  return finishingOrder(app, urls, (url, response) => assert.deepEqual(response.json().data, [], url))
}

describeEachEngine(
  'GET /books?q= does not hold other requests back (docs/search.md "How a page is read")',
  ({ app }) => {
    test('a point read answers while broad searches are in flight: it finishes before they do', async () => {
      for (let i = 1; i <= BOOKS; i++) await createBook(app(), { title: `The collected works, volume ${i}`, author: `Author number ${i % 7}`, year: 1900 })
      // A one-character term no book holds: no index serves it, so each search walks every rank by id to the end.
      const order = await searchesFinishingOrder(app(), Array.from({ length: 4 }, () => '/books?q=x&limit=20'))
      assert.equal(order[0], 'point read', order.join(', '))
    })
  },
  {},
  { search: { windowSize: 4 } }
)

describeEachEngine('GET /books?q= with count=true or sort does not hold other requests back', ({ app }) => {
  test('a point read answers while counts and sorted searches scan every book: it finishes before they do', async () => {
    // More books than a scan's page (1,000), so each scan reads several pages.
    for (let i = 1; i <= 2500; i++) await createBook(app(), { title: `Another volume ${i}`, author: 'Anon', year: 1900 })
    const order = await searchesFinishingOrder(app(), ['/books?q=x&count=true&limit=1', '/books?q=x&sort=title&limit=1', '/books?q=x&count=true&limit=1', '/books?q=x&sort=title&limit=1'])
    assert.equal(order[0], 'point read', order.join(', '))
  })
})

describeEachEngine(
  'GET /books?q= stops a search of many statements at the query bound (docs/contract.md "Search")',
  ({ app }) => {
    test('a walk by id, a sorted search and a count that reach the bound answer 503 with Retry-After', async () => {
      for (let i = 1; i <= 20; i++) await createBook(app(), { title: `The collected works, volume ${i}`, author: 'Anon', year: 1900 })
      // A one-character term: no index serves it, so each of these reads many statements.
      for (const url of ['/books?q=x&limit=5', '/books?q=x&sort=title&limit=5', '/books?q=x&count=true&limit=5']) {
        const response = await app().inject({ url, headers: auth })
        assert.equal(response.statusCode, 503, `${url}: ${response.body}`)
        assert.deepEqual(response.json(), { status: 503, message: 'Service unavailable', data: null })
        assert.equal(response.headers['retry-after'], '1', url)
      }
      // A search its index answers in one statement is not cut.
      const few = await app().inject({ url: '/books?q=volume%2012&limit=5', headers: auth })
      assert.equal(few.statusCode, 200, few.body)
    })
  },
  {},
  // A bound of 0 ms: a walk by id or a scan is stopped before its first statement.
  { search: { windowSize: 4, boundMs: 0 } }
)
