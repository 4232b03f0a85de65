import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import { authHeaders, signToken } from '../../support/app.js'
import { assertEnvelope, type Book } from '../../support/books.js'
import { openFeed } from '../../support/change-feed.js'
import { describeEachEngine } from '../../support/suite.js'

const alice = authHeaders(signToken({ sub: 'alice', role: 'editor' }))
const bob = authHeaders(signToken({ sub: 'bob', role: 'editor' }))
const reader = authHeaders(signToken({ sub: 'carol', role: 'reader' }))

/** RFC 3339 UTC with milliseconds. */
const AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

interface Entry {
  version: number
  operation: string
  at: string
  actor: string | null
  book: Book | null
}

async function create(app: FastifyInstance, headers = alice, book: object = { title: 'Dune', author: 'Frank Herbert', year: 1965 }): Promise<Book> {
  const response = await app.inject({ method: 'POST', url: '/book', headers, payload: book })
  assert.equal(response.statusCode, 201, response.body)
  return response.json().data as Book
}

const put = (app: FastifyInstance, id: number, payload: object, headers = alice) =>
  app.inject({ method: 'PUT', url: `/book/${id}`, headers, payload })

const history = (app: FastifyInstance, id: number | string, query = '', headers = reader) =>
  app.inject({ url: `/book/${id}/history${query}`, headers })

const restore = (app: FastifyInstance, id: number | string, payload: unknown, headers: Record<string, string> = alice) =>
  app.inject({ method: 'POST', url: `/book/${id}/restore`, headers, payload: payload as object })

/** Four changes by two people: create (alice), title (bob), year (alice), delete (bob). */
async function aliceAndBob(app: FastifyInstance): Promise<Book> {
  const book = await create(app, alice)
  assert.equal((await put(app, book.id, { title: 'Dune Messiah' }, bob)).statusCode, 200)
  assert.equal((await put(app, book.id, { year: 1969 }, alice)).statusCode, 200)
  assert.equal((await app.inject({ method: 'DELETE', url: `/book/${book.id}`, headers: bob })).statusCode, 200)
  return book
}

describeEachEngine('GET /book/{id}/history and POST /book/{id}/restore', ({ app, withFreshApp }) => {
  test('a reader reads the whole history of a deleted book, newest first', async () => {
    const book = await aliceAndBob(app())
    const response = await history(app(), book.id)
    assert.equal(response.statusCode, 200)
    const body = response.json() as { status: number; message: string; data: Entry[] }
    assert.equal(body.status, 200)
    assert.equal(body.message, 'History retrieved successfully')
    assert.deepEqual(
      body.data.map(({ version, operation, actor, book }) => ({ version, operation, actor, book })),
      [
        { version: 4, operation: 'deleted', actor: 'bob', book: null },
        { version: 3, operation: 'updated', actor: 'alice', book: { id: book.id, title: 'Dune Messiah', author: 'Frank Herbert', year: 1969 } },
        { version: 2, operation: 'updated', actor: 'bob', book: { id: book.id, title: 'Dune Messiah', author: 'Frank Herbert', year: 1965 } },
        { version: 1, operation: 'created', actor: 'alice', book: { id: book.id, title: 'Dune', author: 'Frank Herbert', year: 1965 } }
      ]
    )
    for (const entry of body.data) {
      assert.match(entry.at, AT)
      assert.deepEqual(Object.keys(entry), ['version', 'operation', 'at', 'actor', 'book'])
    }
    const times = body.data.map((entry) => entry.at)
    assert.deepEqual(times, [...times].sort().reverse(), 'newest first')
    assert.equal(response.headers.link, undefined)
  })

  test('a reader may not restore: 403 Forbidden, and nothing changes', async () => {
    const book = await aliceAndBob(app())
    assertEnvelope(await restore(app(), book.id, { version: 3 }, reader), 403, 'Forbidden')
    assertEnvelope(await app().inject({ url: `/book/${book.id}`, headers: reader }), 404, 'Book not found')
    assert.equal((await history(app(), book.id)).json().data.length, 4)
  })

  test('a deleted book comes back under its own id, as a new version recorded as restored', async () => {
    const book = await aliceAndBob(app())
    const response = await restore(app(), book.id, { version: 2 })
    assertEnvelope(response, 200, 'Book restored successfully', { id: book.id, title: 'Dune Messiah', author: 'Frank Herbert', year: 1965 })
    assert.match(String(response.headers.etag), /^"[^"]+"$/)
    const read = await app().inject({ url: `/book/${book.id}`, headers: reader })
    assertEnvelope(read, 200, 'Book retrieved successfully', { id: book.id, title: 'Dune Messiah', author: 'Frank Herbert', year: 1965 })
    assert.equal(read.headers.etag, response.headers.etag)
    const entries = (await history(app(), book.id)).json().data as Entry[]
    assert.deepEqual(entries.map((entry) => [entry.version, entry.operation, entry.actor]), [
      [5, 'restored', 'alice'],
      [4, 'deleted', 'bob'],
      [3, 'updated', 'alice'],
      [2, 'updated', 'bob'],
      [1, 'created', 'alice']
    ])
    assert.deepEqual(entries[0]!.book, { id: book.id, title: 'Dune Messiah', author: 'Frank Herbert', year: 1965 })
    // A restore of a book that exists updates it, again as a new version.
    assertEnvelope(await restore(app(), book.id, { version: 1 }, bob), 200, 'Book restored successfully', { id: book.id, title: 'Dune', author: 'Frank Herbert', year: 1965 })
    const again = (await history(app(), book.id)).json().data as Entry[]
    assert.deepEqual(again.slice(0, 2).map((entry) => [entry.version, entry.operation, entry.actor]), [[6, 'restored', 'bob'], [5, 'restored', 'alice']])
    // The restore is not an id reuse: the next new book still gets a greater id.
    assert.ok((await create(app())).id > book.id)
  })

  test('Version not found: a version never reached, or a deleted entry', async () => {
    const book = await aliceAndBob(app())
    for (const version of [4, 5, 99, 2_147_483_648, 9_007_199_254_740_991]) {
      assertEnvelope(await restore(app(), book.id, { version }), 404, 'Version not found')
    }
    assertEnvelope(await app().inject({ url: `/book/${book.id}`, headers: reader }), 404, 'Book not found')
  })

  test('Book not found: an id with no history, before the body is looked at', async () => {
    for (const id of ['999999', 'abc', '0', '1e3']) {
      assertEnvelope(await history(app(), id), 404, 'Book not found')
      assertEnvelope(await restore(app(), id, { version: 1 }), 404, 'Book not found')
      assertEnvelope(await restore(app(), id, 'not json'), 404, 'Book not found')
    }
  })

  test('Invalid input: a body that is not an object with a positive integer version', async () => {
    const book = await create(app())
    for (const payload of [{}, { version: 0 }, { version: -1 }, { version: '1' }, { version: 1.5 }, [1], null, 'text']) {
      assertEnvelope(await restore(app(), book.id, payload), 400, 'Invalid input')
    }
    const raw = await app().inject({ method: 'POST', url: `/book/${book.id}/restore`, headers: alice, payload: '{"version":' })
    assertEnvelope(raw, 400, 'Invalid input')
  })

  test('paging through 13 versions with limit and the Link header', async () => {
    const book = await create(app())
    for (let year = 1966; year < 1978; year++) assert.equal((await put(app(), book.id, { year })).statusCode, 200)
    const seen: number[] = []
    let url: string | undefined = `/book/${book.id}/history?limit=5`
    const sizes: number[] = []
    while (url !== undefined) {
      const response: { statusCode: number; body: string; json(): { data: Entry[] }; headers: Record<string, unknown> } = await app().inject({ url, headers: reader })
      assert.equal(response.statusCode, 200, response.body)
      const entries = response.json().data as Entry[]
      sizes.push(entries.length)
      seen.push(...entries.map((entry) => entry.version))
      const link = response.headers.link as string | undefined
      url = link === undefined ? undefined : /^<([^>]+)>; rel="next"$/.exec(link)![1]
      if (url !== undefined) assert.match(url, new RegExp(`^/book/${book.id}/history\\?limit=5&after=`))
    }
    assert.deepEqual(sizes, [5, 5, 3])
    assert.deepEqual(seen, [13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1])
    const whole = (await history(app(), book.id)).json().data as Entry[]
    assert.deepEqual(whole.map((entry) => entry.version), seen, 'without limit: every entry')
    for (const query of ['?limit=0', '?limit=1001', '?limit=abc', '?after=nope', '?limit=5&after=WyJ0aXRsZSIsImEiLDFd']) {
      assertEnvelope(await history(app(), book.id, query), 400, 'Invalid input')
    }
  })

  test('If-Match on a restore: a stale tag is 412 and changes nothing; the current tag restores', async () => {
    const book = await create(app())
    const first = await app().inject({ url: `/book/${book.id}`, headers: alice })
    const staleTag = first.headers.etag as string
    await put(app(), book.id, { title: 'Changed' })
    assertEnvelope(await restore(app(), book.id, { version: 1 }, { ...alice, 'if-match': staleTag }), 412, 'Precondition failed')
    // The version is checked before the tag.
    assertEnvelope(await restore(app(), book.id, { version: 9 }, { ...alice, 'if-match': staleTag }), 404, 'Version not found')
    assert.equal((await app().inject({ url: `/book/${book.id}`, headers: alice })).json().data.title, 'Changed')
    const current = (await app().inject({ url: `/book/${book.id}`, headers: alice })).headers.etag as string
    const response = await restore(app(), book.id, { version: 1 }, { ...alice, 'if-match': current })
    assertEnvelope(response, 200, 'Book restored successfully', book)
    assert.notEqual(response.headers.etag, current)
  })

  test('If-Match is ignored for a deleted book', async () => {
    const book = await aliceAndBob(app())
    assertEnvelope(await restore(app(), book.id, { version: 1 }, { ...alice, 'if-match': '"nothing-like-it"' }), 200, 'Book restored successfully', book)
  })

  test('concurrent restores of one book with the same If-Match: exactly one wins', async () => {
    const book = await create(app())
    await put(app(), book.id, { title: 'Second' })
    const { etag } = (await app().inject({ url: `/book/${book.id}`, headers: alice })).headers
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => restore(app(), book.id, { version: 1 + (i % 2) }, { ...(i % 2 ? bob : alice), 'if-match': String(etag) }))
    )
    const statuses = answers.map((answer) => answer.statusCode).sort()
    assert.deepEqual(statuses, [200, 412, 412, 412, 412, 412])
    const entries = (await history(app(), book.id)).json().data as Entry[]
    assert.deepEqual(entries.map((entry) => entry.operation), ['restored', 'updated', 'created'])
  })

  test('the change feed shows a restore as created (deleted book) or updated', async () => {
    await withFreshApp(async (fresh) => {
      await fresh.listen({ port: 0, host: '127.0.0.1' })
      const { port } = fresh.server.address() as { port: number }
      const feed = await openFeed(`http://127.0.0.1:${port}`, reader, '?after=0')
      try {
        const book = await aliceAndBob(fresh)
        assert.equal((await restore(fresh, book.id, { version: 1 })).statusCode, 200)
        assert.equal((await restore(fresh, book.id, { version: 3 })).statusCode, 200)
        const events = await feed.waitFor(6)
        assert.deepEqual(events.map((event) => event.type), ['created', 'updated', 'updated', 'deleted', 'created', 'updated'])
        assert.deepEqual(JSON.parse(events[4]!.data), { id: book.id, book: { id: book.id, title: 'Dune', author: 'Frank Herbert', year: 1965 } })
        assert.deepEqual(JSON.parse(events[5]!.data), { id: book.id, book: { id: book.id, title: 'Dune Messiah', author: 'Frank Herbert', year: 1969 } })
      } finally {
        feed.close()
      }
    })
  })
})
