import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { authHeaders } from '../../support/app.js'
import { assertEnvelope, createBook as create, type Book } from '../../support/books.js'
import { describeEachEngine } from '../../support/suite.js'

const auth = authHeaders()

async function read(app: FastifyInstance, id: number) {
  const response = await app.inject({ url: `/book/${id}`, headers: auth })
  return { status: response.statusCode, book: response.json().data as Book | null, etag: response.headers.etag as string }
}

const put = (app: FastifyInstance, id: number, payload: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method: 'PUT', url: `/book/${id}`, headers: { ...auth, ...headers }, payload: payload as object })
const del = (app: FastifyInstance, id: number, headers: Record<string, string> = {}) =>
  app.inject({ method: 'DELETE', url: `/book/${id}`, headers: { ...auth, ...headers } })

describeEachEngine('ETag and If-None-Match', ({ app }) => {
  test('GET carries a strong ETag, the same until the book changes', async () => {
    const book = await create(app())
    const first = await read(app(), book.id)
    assert.match(first.etag, /^"[^"]+"$/)
    assert.equal((await read(app(), book.id)).etag, first.etag)
    const other = await read(app(), (await create(app())).id)
    assert.notEqual(other.etag, first.etag, 'two books with the same content have different tags')
  })

  test('PUT answers the new ETag, which GET then shows; every update changes it', async () => {
    const book = await create(app())
    const before = await read(app(), book.id)
    const tags = new Set([before.etag])
    for (const payload of [{ year: 1966 }, { title: 'Dune II' }, {}, { year: 1965, title: 'Dune' }]) {
      const response = await put(app(), book.id, payload)
      assert.equal(response.statusCode, 200)
      const etag = response.headers.etag as string
      assert.match(etag, /^"[^"]+"$/)
      assert.equal((await read(app(), book.id)).etag, etag)
      assert.ok(!tags.has(etag), 'a new tag after each update')
      tags.add(etag)
    }
  })

  test('If-None-Match with the current tag: 304, no body, the ETag repeated', async () => {
    const book = await create(app())
    const { etag } = await read(app(), book.id)
    for (const header of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
      const response = await app().inject({ url: `/book/${book.id}`, headers: { ...auth, 'if-none-match': header } })
      assert.equal(response.statusCode, 304, header)
      assert.equal(response.body, '')
      assert.equal(response.headers.etag, etag)
    }
  })

  test('If-None-Match with a stale or unrelated tag: 200 with the book', async () => {
    const book = await create(app())
    const { etag } = await read(app(), book.id)
    await put(app(), book.id, { year: 2000 })
    for (const header of [etag, '"other"', 'garbage']) {
      const response = await app().inject({ url: `/book/${book.id}`, headers: { ...auth, 'if-none-match': header } })
      assertEnvelope(response, 200, 'Book retrieved successfully', { ...book, year: 2000 })
    }
  })

  test('If-None-Match on a missing book is still 404; without a token still 401', async () => {
    assertEnvelope(await app().inject({ url: '/book/987654321', headers: { ...auth, 'if-none-match': '*' } }), 404, 'Book not found')
    const book = await create(app())
    const { etag } = await read(app(), book.id)
    const response = await app().inject({ url: `/book/${book.id}`, headers: { 'if-none-match': etag } })
    assertEnvelope(response, 401, 'Authorization token required')
  })
})

describeEachEngine('If-Match on PUT and DELETE', ({ app }) => {
  test('PUT with the current tag: 200 and the change is stored', async () => {
    const book = await create(app())
    const { etag } = await read(app(), book.id)
    const response = await put(app(), book.id, { title: 'Children of Dune' }, { 'if-match': etag })
    assertEnvelope(response, 200, 'Book updated successfully', { ...book, title: 'Children of Dune' })
    assert.equal((await read(app(), book.id)).book?.title, 'Children of Dune')
  })

  test('PUT with a stale tag: 412 Precondition failed, nothing changes', async () => {
    const book = await create(app())
    const { etag: stale } = await read(app(), book.id)
    await put(app(), book.id, { year: 1970 })
    const current = await read(app(), book.id)
    for (const header of [stale, `W/${current.etag}`, '"x", "y"', 'garbage', '']) {
      const response = await put(app(), book.id, { title: 'Overwritten' }, { 'if-match': header })
      assertEnvelope(response, 412, 'Precondition failed')
      assert.deepEqual(await read(app(), book.id), current, header)
    }
  })

  test('PUT with * or a list holding the current tag: 200', async () => {
    const book = await create(app())
    assert.equal((await put(app(), book.id, { year: 1 }, { 'if-match': '*' })).statusCode, 200)
    const { etag } = await read(app(), book.id)
    assert.equal((await put(app(), book.id, { year: 2 }, { 'if-match': `"old", ${etag}` })).statusCode, 200)
    assert.equal((await read(app(), book.id)).book?.year, 2)
  })

  test('PUT order: 401, then 404, then 412, then 400', async () => {
    const book = await create(app())
    const { etag: stale } = await read(app(), book.id)
    await put(app(), book.id, { year: 1980 })
    const { etag: current } = await read(app(), book.id)
    const noToken = await app().inject({ method: 'PUT', url: `/book/${book.id}`, headers: { 'if-match': stale }, payload: '{bad' })
    assertEnvelope(noToken, 401, 'Authorization token required')
    assertEnvelope(await put(app(), 987654321, '{bad', { 'if-match': stale }), 404, 'Book not found')
    assertEnvelope(await put(app(), book.id, '{bad', { 'if-match': stale }), 412, 'Precondition failed')
    assertEnvelope(await put(app(), book.id, { year: 'x' }, { 'if-match': stale }), 412, 'Precondition failed')
    assertEnvelope(await put(app(), book.id, { year: 'x' }, { 'if-match': current }), 400, 'Invalid input')
    assert.equal((await read(app(), book.id)).etag, current, 'a 400 changes nothing')
  })

  test('DELETE with a stale tag: 412 and the book stays; with the current tag: 200 and it is gone', async () => {
    const book = await create(app())
    const { etag: stale } = await read(app(), book.id)
    await put(app(), book.id, { year: 1990 })
    const current = await read(app(), book.id)
    assertEnvelope(await del(app(), book.id, { 'if-match': stale }), 412, 'Precondition failed')
    assert.deepEqual(await read(app(), book.id), current)
    assertEnvelope(await del(app(), book.id, { 'if-match': current.etag }), 200, 'Book deleted successfully')
    assert.equal((await read(app(), book.id)).status, 404)
    assertEnvelope(await del(app(), book.id, { 'if-match': current.etag }), 404, 'Book not found')
  })

  test('DELETE with If-Match *: 200 when the book exists, 404 when it does not', async () => {
    const book = await create(app())
    assertEnvelope(await del(app(), book.id, { 'if-match': '*' }), 200, 'Book deleted successfully')
    assertEnvelope(await del(app(), book.id, { 'if-match': '*' }), 404, 'Book not found')
    assertEnvelope(await del(app(), 0, { 'if-match': '"x"' }), 404, 'Book not found')
  })
})

describeEachEngine('concurrent edits with If-Match', ({ app }) => {
  test('two clients PUT with the same tag at once: exactly one 200, one 412, the winner stored (50 rounds)', async () => {
    for (let round = 0; round < 50; round++) {
      const book = await create(app(), { title: `Round ${round}`, author: 'Original', year: 1 })
      const [first, second] = await Promise.all([read(app(), book.id), read(app(), book.id)])
      assert.equal(first.etag, second.etag)
      const changes = [{ title: `A${round}`, year: 100 }, { author: `B${round}`, year: 200 }]
      const responses = await Promise.all([
        put(app(), book.id, changes[0], { 'if-match': first.etag }),
        put(app(), book.id, changes[1], { 'if-match': second.etag })
      ])
      const statuses = responses.map((response) => response.statusCode).sort()
      assert.deepEqual(statuses, [200, 412], `round ${round}`)
      const winner = responses.findIndex((response) => response.statusCode === 200)
      const expected = { ...book, ...changes[winner] }
      assert.deepEqual(responses[winner]!.json().data, expected)
      assertEnvelope(responses[1 - winner]!, 412, 'Precondition failed')
      const stored = await read(app(), book.id)
      assert.deepEqual(stored.book, expected, `round ${round}: exactly the winner's change`)
      assert.equal(stored.etag, responses[winner]!.headers.etag)
    }
  })

  test('five clients race with one tag: one wins; a racing conditional DELETE and PUT: one wins (20 rounds)', async () => {
    for (let round = 0; round < 20; round++) {
      const book = await create(app())
      const { etag } = await read(app(), book.id)
      const responses = await Promise.all(
        [0, 1, 2, 3, 4].map((client) => put(app(), book.id, { year: client }, { 'if-match': etag }))
      )
      assert.deepEqual(responses.map((response) => response.statusCode).sort(), [200, 412, 412, 412, 412])
      const winner = responses.findIndex((response) => response.statusCode === 200)
      assert.equal((await read(app(), book.id)).book?.year, winner)

      const { etag: next } = await read(app(), book.id)
      const [deleted, updated] = await Promise.all([
        del(app(), book.id, { 'if-match': next }),
        put(app(), book.id, { title: 'Late' }, { 'if-match': next })
      ])
      const outcome = [deleted.statusCode, updated.statusCode]
      assert.ok(
        (outcome[0] === 200 && [404, 412].includes(outcome[1]!)) || (outcome[0] === 412 && outcome[1] === 200),
        `round ${round}: ${outcome}`
      )
      const after = await read(app(), book.id)
      assert.equal(after.status, deleted.statusCode === 200 ? 404 : 200)
      if (after.status === 200) assert.equal(after.book?.title, 'Late')
    }
  })
})
