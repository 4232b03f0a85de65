import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createBook } from '../../support/books.js'
import { auth } from '../../support/list-pages.js'
import { describeEachEngine } from '../../support/suite.js'

/** Books enough that a search walking every rank by id takes hundreds of statements (windows of 4 ids). */
const BOOKS = 200

describeEachEngine(
  'GET /books?q= does not hold other requests back (docs/search.md "How a page is read")',
  ({ app }) => {
    test('a point read answers while broad searches are in flight: it finishes before they do', async () => {
      for (let i = 1; i <= BOOKS; i++) await createBook(app(), { title: `The collected works, volume ${i}`, author: `Author number ${i % 7}`, year: 1900 })
      const order: string[] = []
      // A one-character term no book holds: no index serves it, so each search walks every rank by id to the end.
      const searches = Array.from({ length: 4 }, (_, index) =>
        app()
          .inject({ url: '/books?q=x&limit=20', headers: auth })
          .then((response) => {
            assert.equal(response.statusCode, 200, response.body)
            assert.deepEqual(response.json().data, [])
            order.push(`search ${index}`)
          })
      )
      const point = app()
        .inject({ url: '/book/1', headers: auth })
        .then((response) => {
          assert.equal(response.statusCode, 200, response.body)
          order.push('point read')
        })
      await Promise.all([...searches, point])
      assert.equal(order[0], 'point read', order.join(', '))
    })
  },
  {},
  { search: { windowSize: 4 } }
)
