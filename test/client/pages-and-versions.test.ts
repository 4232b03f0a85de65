import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { BookServiceError, createClient, NetworkError, WRONG_CURRENT_PASSWORD } from '../../src/client/index.js'
import { TEST_PASSWORD, signToken } from '../support/app.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../support/server.js'

/** Resolves with the error `promise` rejects with (fails if it resolves). */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  assert.fail('expected the call to fail')
}

describe('the typed client: pages, versions, retries and one’s own password, against the real server', () => {
  let directory: string
  let server: RunningServer
  before(async () => {
    directory = temporaryDirectory()
    server = await startServer({ dataDirectory: directory })
  })
  after(async () => {
    await server.stop()
    removeDirectory(directory)
  })

  test('listBookPage: pages follow the Link header’s cursor to the end; count gives X-Total-Count', async () => {
    const client = createClient({ baseUrl: server.url, token: signToken() })
    const stored = []
    for (const year of [1961, 1962, 1963, 1964, 1965]) stored.push(await client.createBook({ title: `Paged ${year}`, author: 'Pager', year }))
    const first = await client.listBookPage({ author: 'pager', sort: '-year', limit: 2, count: true })
    assert.deepEqual(first.books, [stored[4], stored[3]])
    assert.equal(first.total, 5)
    assert.equal(typeof first.cursor, 'string')
    const second = await client.listBookPage({ author: 'pager', sort: '-year', limit: '2', cursor: first.cursor })
    assert.deepEqual(second.books, [stored[2], stored[1]])
    assert.equal(second.total, undefined)
    const last = await client.listBookPage({ author: 'pager', sort: '-year', limit: 2, cursor: second.cursor })
    assert.deepEqual(last, { books: [stored[0]] })
    assert.deepEqual((await client.listBookPage({ q: 'paged', year_min: 1964, count: true })).total, 2)
    const bad = await failure(client.listBookPage({ limit: 0 }))
    assert.ok(bad instanceof BookServiceError)
    assert.deepEqual([bad.status, bad.message], [400, 'Invalid input'])
  })

  test('getTaggedBook gives the ETag; updateBook and deleteBook with ifMatch: 412 once the book changed', async () => {
    const client = createClient({ baseUrl: server.url, token: signToken() })
    const book = await client.createBook({ title: 'Tagged', author: 'A', year: 2000 })
    const seen = await client.getTaggedBook(book.id)
    assert.deepEqual(seen.book, book)
    assert.match(seen.etag, /^"[^"]+"$/)
    const changed = await client.updateBook(book.id, { year: 2001 }, { ifMatch: seen.etag })
    assert.equal(changed.year, 2001)
    const stale = await failure(client.updateBook(book.id, { year: 2002 }, { ifMatch: seen.etag }))
    assert.ok(stale instanceof BookServiceError)
    assert.deepEqual([stale.status, stale.message], [412, 'Precondition failed'])
    const staleDelete = await failure(client.deleteBook(book.id, { ifMatch: seen.etag }))
    assert.ok(staleDelete instanceof BookServiceError && staleDelete.status === 412)
    const now = await client.getTaggedBook(book.id)
    assert.notEqual(now.etag, seen.etag)
    assert.equal(await client.deleteBook(book.id, { ifMatch: now.etag }), undefined)
  })

  test('createBookOnce: the first answer is new, a repeat with the key is the replayed first answer', async () => {
    const client = createClient({ baseUrl: server.url, token: signToken({ sub: 'once' }) })
    const dune = { title: 'Once', author: 'Frank Herbert', year: 1965 }
    const first = await client.createBookOnce(dune, 'client-once-1')
    assert.equal(first.replayed, false)
    assert.deepEqual(await client.createBookOnce(dune, 'client-once-1'), { book: first.book, replayed: true })
  })

  test('changeOwnPassword: a wrong current password keeps the token; the change revokes it (onUnauthorized on its next 401)', async () => {
    const admin = createClient({ baseUrl: server.url })
    await admin.login('admin', TEST_PASSWORD)
    await admin.createUser({ username: 'client-own', password: 'first password 1', role: 'reader' })
    let unauthorized = 0
    const own = createClient({ baseUrl: server.url, onUnauthorized: () => unauthorized++ })
    await own.login('client-own', 'first password 1')
    const wrong = await failure(own.changeOwnPassword('client-own', 'not the password', 'second password 2'))
    assert.ok(wrong instanceof BookServiceError)
    assert.deepEqual([wrong.status, wrong.message], [401, WRONG_CURRENT_PASSWORD])
    assert.equal(unauthorized, 0)
    const changed = await own.changeOwnPassword('client-own', 'first password 1', 'second password 2')
    assert.equal(changed.username, 'client-own')
    const revoked = await failure(own.listBooks())
    assert.ok(revoked instanceof BookServiceError && revoked.status === 401)
    assert.equal(unauthorized, 1)
    const failedLogin = await failure(own.login('client-own', 'first password 1'))
    assert.ok(failedLogin instanceof BookServiceError && failedLogin.status === 401)
    assert.equal(unauthorized, 1)
    await own.login('client-own', 'second password 2')
    assert.ok(Array.isArray(await own.listBooks()))
  })

  test('no answer at all is a NetworkError carrying fetch’s error', async () => {
    const cause = new TypeError('fetch failed')
    const client = createClient({
      baseUrl: server.url,
      fetch: async () => {
        throw cause
      }
    })
    const error = await failure(client.listBooks())
    assert.ok(error instanceof NetworkError)
    assert.equal(error.name, 'NetworkError')
    assert.equal(error.cause, cause)
  })
})
