import assert from 'node:assert/strict'
import { test } from 'node:test'
import { authHeaders } from '../../support/app.js'
import { describeEachEngine } from '../../support/suite.js'

/**
 * Regressions (found by the bad-input properties): a NUL character in a title or author
 * answered 500 on PostgreSQL (its text type cannot hold U+0000) while SQLite stored it; a lone
 * surrogate (`"\ud800"`) was stored altered (SQLite answered three U+FFFD, PostgreSQL one).
 * Both are 400 `Invalid input` on both engines, and nothing changes; paired surrogates (emoji)
 * are fine.
 */
const auth = authHeaders()

describeEachEngine('NUL characters and lone surrogates in book text', ({ app }) => {
  test('POST and PUT with U+0000 or a lone surrogate in title or author: 400 Invalid input, nothing stored or changed', async () => {
    const created = await app().inject({ method: 'POST', url: '/book', headers: auth, payload: { title: 'T', author: 'A', year: 1 } })
    assert.equal(created.statusCode, 201)
    const book = created.json().data
    const before = (await app().inject({ url: '/books', headers: auth })).body
    for (const [method, url, payload] of [
      ['POST', '/book', '{"title":"a\\u0000b","author":"A","year":1}'],
      ['POST', '/book', '{"title":"T","author":"\\u0000","year":1}'],
      ['PUT', `/book/${book.id}`, '{"author":"\\u0000"}'],
      ['PUT', `/book/${book.id}`, '{"title":"x\\u0000"}'],
      ['POST', '/book', '{"title":"a\\ud800b","author":"A","year":1}'],
      ['POST', '/book', '{"title":"T","author":"\\udfff","year":1}'],
      ['PUT', `/book/${book.id}`, '{"title":"\\ude00\\ud83d"}'],
      ['PUT', `/book/${book.id}`, '{"author":"x\\ud83d"}']
    ] as const) {
      const response = await app().inject({ method, url, headers: { ...auth, 'content-type': 'application/json' }, payload })
      assert.equal(response.statusCode, 400, `${method} ${payload}: ${response.body}`)
      assert.deepEqual(response.json(), { status: 400, message: 'Invalid input', data: null })
    }
    assert.equal((await app().inject({ url: '/books', headers: auth })).body, before)
  })

  test('paired surrogates (emoji, escaped or not) are stored exactly as sent', async () => {
    const response = await app().inject({
      method: 'POST', url: '/book', headers: { ...auth, 'content-type': 'application/json' },
      payload: '{"title":"\\ud83d\\ude00 😀","author":"A","year":1}'
    })
    assert.equal(response.statusCode, 201)
    assert.equal(response.json().data.title, '😀 😀')
    assert.equal((await app().inject({ url: `/book/${response.json().data.id}`, headers: auth })).json().data.title, '😀 😀')
  })
})
