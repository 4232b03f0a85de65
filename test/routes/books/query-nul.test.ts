import assert from 'node:assert/strict'
import { test } from 'node:test'
import { authHeaders, capturedLog, signToken } from '../../support/app.js'
import { createBook } from '../../support/books.js'
import { describeEachEngine } from '../../support/suite.js'

const auth = authHeaders(signToken({ role: 'admin' }))
const invalid = { status: 400, message: 'Invalid input', data: null }

describeEachEngine('a NUL character in a query value (docs/contract.md "Search")', ({ withFreshApp }) => {
  test('q, title, author, the sort cursor and after: 400 Invalid input, nothing logged as an error', async () => {
    const { lines, logger } = capturedLog()
    await withFreshApp(async (app) => {
      const book = await createBook(app)
      // A cursor of the title sort whose key holds a NUL (the form encodeCursor writes).
      const titleCursor = Buffer.from(JSON.stringify(['title', 'd\u0000une', book.id])).toString('base64url')
      const urls = [
        '/books?q=ab%00c', '/books?q=%00', '/books?title=du%00ne', '/books?author=fr%00ank',
        '/books?title=du%00ne&limit=5', '/books?author=%00&count=true', '/books?after=1%00', '/books?sort=title&after=%00abc',
        `/books?sort=title&limit=1&after=${titleCursor}`, '/books?q=dune&limit=1&after=x%00y', `/book/${book.id}/history?after=%00`,
        `/book/${book.id}/history?limit=1&after=a%00b`
      ]
      for (const url of urls) {
        const response = await app.inject({ url, headers: auth })
        assert.deepEqual([response.statusCode, response.json()], [400, invalid], url)
      }
      const ordinary = await app.inject({ url: '/books?q=dune', headers: auth })
      assert.equal(ordinary.statusCode, 200)
    }, {}, logger)
    const errors = lines.filter((line) => Number(line.level) >= 50)
    assert.deepEqual(errors, [], 'no line at error level')
  })
})
