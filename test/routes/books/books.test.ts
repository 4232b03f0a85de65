import assert from 'node:assert/strict'
import { test } from 'node:test'
import { authHeaders } from '../../support/app.js'
import { assertEnvelope, createBook as create, dune } from '../../support/books.js'
import { describeEachEngine } from '../../support/suite.js'

const auth = authHeaders()

describeEachEngine('POST /book', ({ app }) => {
  test('201 with the stored book and its new id', async () => {
    const response = await app().inject({ method: 'POST', url: '/book', headers: auth, payload: dune })
    const body = response.json()
    assert.equal(typeof body.data.id, 'number')
    assertEnvelope(response, 201, 'Book created successfully', { id: body.data.id, ...dune })
  })

  test('ignores unknown fields and an id in the body', async () => {
    const response = await app().inject({
      method: 'POST', url: '/book', headers: auth,
      payload: { ...dune, id: 999_999, isbn: 'x', __proto__: { admin: true } }
    })
    const { data } = response.json()
    assert.notEqual(data.id, 999_999)
    assertEnvelope(response, 201, 'Book created successfully', { id: data.id, ...dune })
  })

  test('reads the body as JSON whatever its Content-Type', async () => {
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/vnd.api+json']) {
      const response = await app().inject({
        method: 'POST', url: '/book', headers: { ...auth, 'content-type': contentType }, payload: JSON.stringify(dune)
      })
      assert.equal(response.statusCode, 201, contentType)
    }
  })

  test('accepts the edges: 500 code points, years -9999 and 9999, unicode', async () => {
    for (const book of [
      { title: 'x'.repeat(500), author: 'a', year: -9999 },
      { title: '😀'.repeat(500), author: 'Борхес', year: 9999 },
      { title: ' padded ', author: 'b', year: 0 }
    ]) {
      const created = await create(app(), book)
      assert.deepEqual({ ...created, id: 0 }, { id: 0, ...book })
    }
  })

  const invalid: Array<[string, string]> = [
    ['malformed JSON', '{"title": "Dune",'],
    ['empty body', ''],
    ['an array', JSON.stringify([dune])],
    ['null', 'null'],
    ['a string', '"Dune"'],
    ['missing title', JSON.stringify({ author: 'a', year: 1 })],
    ['missing author', JSON.stringify({ title: 't', year: 1 })],
    ['missing year', JSON.stringify({ title: 't', author: 'a' })],
    ['empty title', JSON.stringify({ ...dune, title: '' })],
    ['white-space title', JSON.stringify({ ...dune, title: ' \t\n\u00a0\u2003' })],
    ['white-space author', JSON.stringify({ ...dune, author: '   ' })],
    ['title of 501 code points', JSON.stringify({ ...dune, title: '😀'.repeat(501) })],
    ['author of 501 characters', JSON.stringify({ ...dune, author: 'a'.repeat(501) })],
    ['year as a string', JSON.stringify({ ...dune, year: '2020' })],
    ['fractional year', JSON.stringify({ ...dune, year: 2020.5 })],
    ['year 10000', JSON.stringify({ ...dune, year: 10000 })],
    ['year -10000', JSON.stringify({ ...dune, year: -10000 })],
    ['null title', JSON.stringify({ ...dune, title: null })],
    ['numeric title', JSON.stringify({ ...dune, title: 42 })],
    ['boolean year', JSON.stringify({ ...dune, year: true })]
  ]
  for (const [name, payload] of invalid) {
    test(`400 Invalid input for ${name}, and nothing is stored`, async () => {
      const before = (await app().inject({ url: '/books', headers: auth })).json().data.length
      const response = await app().inject({
        method: 'POST', url: '/book', headers: { ...auth, 'content-type': 'application/json' }, payload
      })
      assertEnvelope(response, 400, 'Invalid input')
      const afterCount = (await app().inject({ url: '/books', headers: auth })).json().data.length
      assert.equal(afterCount, before)
    })
  }
})

describeEachEngine('GET /books', ({ withFreshApp }) => {
  test('200 with an empty array when there are no books', async () => {
    await withFreshApp(async (app) => {
      assertEnvelope(await app.inject({ url: '/books', headers: auth }), 200, 'Books retrieved successfully', [])
    })
  })

  test('every book, ordered by id ascending, more than one page', async () => {
    await withFreshApp(async (app) => {
      const created = []
      for (let i = 0; i < 1005; i++) created.push(await create(app, { title: `T${i}`, author: 'A', year: i }))
      await app.inject({ method: 'DELETE', url: `/book/${created[3]!.id}`, headers: auth })
      const expected = created.filter((_, i) => i !== 3)
      assertEnvelope(await app.inject({ url: '/books', headers: auth }), 200, 'Books retrieved successfully', expected)
    })
  })
})

describeEachEngine('GET /book/{id}', ({ app }) => {
  test('200 with the book', async () => {
    const book = await create(app())
    assertEnvelope(await app().inject({ url: `/book/${book.id}`, headers: auth }), 200, 'Book retrieved successfully', book)
  })

  test('accepts leading zeros as the same decimal id', async () => {
    const book = await create(app())
    assert.equal((await app().inject({ url: `/book/000${book.id}`, headers: auth })).json().data.id, book.id)
  })

  for (const id of ['999999', 'abc', '-1', '0', '1.5', '1e3', '99999999999999999999', '9007199254740992', '%20', '1%00', '0x10']) {
    test(`404 Book not found for id ${JSON.stringify(id)}`, async () => {
      assertEnvelope(await app().inject({ url: `/book/${id}`, headers: auth }), 404, 'Book not found')
    })
  }
})

describeEachEngine('PUT /book/{id}', ({ app }) => {
  test('200 with the whole updated book', async () => {
    const book = await create(app())
    const update = { title: 'Dune Messiah', author: 'F. Herbert', year: 1969 }
    const response = await app().inject({ method: 'PUT', url: `/book/${book.id}`, headers: auth, payload: update })
    assertEnvelope(response, 200, 'Book updated successfully', { id: book.id, ...update })
    assert.deepEqual((await app().inject({ url: `/book/${book.id}`, headers: auth })).json().data, { id: book.id, ...update })
  })

  test('absent fields keep their stored value; {} changes nothing; id in the body is ignored', async () => {
    const book = await create(app())
    const partial = await app().inject({ method: 'PUT', url: `/book/${book.id}`, headers: auth, payload: { year: 1966, id: 12345 } })
    assertEnvelope(partial, 200, 'Book updated successfully', { ...book, year: 1966 })
    const empty = await app().inject({ method: 'PUT', url: `/book/${book.id}`, headers: auth, payload: {} })
    assertEnvelope(empty, 200, 'Book updated successfully', { ...book, year: 1966 })
    assert.equal((await app().inject({ url: '/book/12345', headers: auth })).statusCode, 404)
  })

  test('404 comes before 400: a missing book with a malformed body', async () => {
    const response = await app().inject({
      method: 'PUT', url: '/book/999999', headers: { ...auth, 'content-type': 'application/json' }, payload: '{not json'
    })
    assertEnvelope(response, 404, 'Book not found')
  })

  test('404 for an id that is not a valid id, whatever the body', async () => {
    for (const id of ['abc', '0', '-5']) {
      const response = await app().inject({ method: 'PUT', url: `/book/${id}`, headers: auth, payload: 'nope' })
      assertEnvelope(response, 404, 'Book not found')
    }
  })

  const invalid: Array<[string, string]> = [
    ['malformed JSON', '{"title":'],
    ['empty body', ''],
    ['an array', '[]'],
    ['null', 'null'],
    ['empty title', JSON.stringify({ title: '' })],
    ['white-space author', JSON.stringify({ author: ' ' })],
    ['null year', JSON.stringify({ year: null })],
    ['string year', JSON.stringify({ year: '1999' })],
    ['fractional year', JSON.stringify({ year: 1.5 })],
    ['long title', JSON.stringify({ title: 'x'.repeat(501) })]
  ]
  for (const [name, payload] of invalid) {
    test(`400 Invalid input for ${name} on an existing book, which stays unchanged`, async () => {
      const book = await create(app())
      const response = await app().inject({
        method: 'PUT', url: `/book/${book.id}`, headers: { ...auth, 'content-type': 'application/json' }, payload
      })
      assertEnvelope(response, 400, 'Invalid input')
      assert.deepEqual((await app().inject({ url: `/book/${book.id}`, headers: auth })).json().data, book)
    })
  }
})

describeEachEngine('DELETE /book/{id}', ({ app }) => {
  test('200 with data null, then GET gives 404 and a second DELETE gives 404', async () => {
    const book = await create(app())
    assertEnvelope(await app().inject({ method: 'DELETE', url: `/book/${book.id}`, headers: auth }), 200, 'Book deleted successfully')
    assertEnvelope(await app().inject({ url: `/book/${book.id}`, headers: auth }), 404, 'Book not found')
    assertEnvelope(await app().inject({ method: 'DELETE', url: `/book/${book.id}`, headers: auth }), 404, 'Book not found')
    assertEnvelope(await app().inject({ method: 'PUT', url: `/book/${book.id}`, headers: auth, payload: {} }), 404, 'Book not found')
  })

  test('404 for an id that never existed or is not an id', async () => {
    for (const id of ['987654321', 'abc', '0']) {
      assertEnvelope(await app().inject({ method: 'DELETE', url: `/book/${id}`, headers: auth }), 404, 'Book not found')
    }
  })

  test('ids are never reused after a delete', async () => {
    const first = await create(app())
    await app().inject({ method: 'DELETE', url: `/book/${first.id}`, headers: auth })
    const second = await create(app())
    assert.ok(second.id > first.id)
  })
})
