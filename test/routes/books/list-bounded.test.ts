import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createBook } from '../../support/books.js'
import { auth, finishingOrder } from '../../support/list-pages.js'
import { describeEachEngine } from '../../support/suite.js'

describeEachEngine(
  'GET /books with a title or author filter or count=true does not hold other requests back (docs/operations.md "Bounded reads")',
  ({ app }) => {
    test('a point read answers while substring filters and counts read every book: it finishes before they do', async () => {
      for (let i = 1; i <= 300; i++) await createBook(app(), { title: `The collected works, volume ${i}`, author: `Author number ${i % 7}`, year: 1900 })
      // `zz` is in no title nor author: each filtered page reads every book and finds none.
      const urls = ['/books?title=zz&limit=20', '/books?author=zz&limit=20', '/books?limit=20&count=true', '/books?title=zz&year=1900&limit=5&count=true']
      const order = await finishingOrder(app(), urls)
      assert.equal(order[0], 'point read', order.join(', '))
      // The answers themselves are those of the main connection's reads.
      const counted = await app().inject({ url: '/books?author=number%203&limit=2&count=true', headers: auth })
      assert.equal(counted.statusCode, 200, counted.body)
      assert.equal(counted.headers['x-total-count'], '43')
      assert.deepEqual(counted.json().data.map((book: { id: number }) => book.id), [3, 10])
      const none = await app().inject({ url: '/books?title=zz&limit=20&count=true', headers: auth })
      assert.deepEqual([none.statusCode, none.headers['x-total-count'], none.json().data], [200, '0', []])
    })
  },
  // Every filtered read at once (none waits for a turn), on SQLite in a file (its reader thread).
  { HEAVY_READS: 8 },
  { sqliteFile: true }
)
