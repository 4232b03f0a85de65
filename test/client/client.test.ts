import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { BookServiceError, createClient, NetworkError, WRONG_CURRENT_PASSWORD, type Book, type BookChangeEvent } from '../../src/client/index.js'
import { TEST_PASSWORD, signToken } from '../support/app.js'
import { eventually } from '../support/client.js'
import { startProxy } from '../support/proxy.js'
import { removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../support/server.js'
import { processSkipReason } from '../support/scope.js'

/** Resolves with the BookServiceError `promise` rejects with (fails if it resolves or rejects otherwise). */
async function failure(promise: Promise<unknown>): Promise<BookServiceError> {
  try {
    await promise
  } catch (error) {
    assert.ok(error instanceof BookServiceError, `expected a BookServiceError, got ${String(error)}`)
    return error
  }
  assert.fail('expected the call to fail')
}

describe('the typed client against the real server', { skip: processSkipReason }, () => {
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

  test('the built package entry exports the client', async () => {
    const entry = '../../dist/client/index.js'
    const built = (await import(entry)) as Record<string, unknown>
    assert.equal(typeof built.createClient, 'function')
    assert.equal(typeof built.BookServiceError, 'function')
  })

  test('without a token: 401 Authorization token required; a wrong password: 401 Invalid credentials', async () => {
    const client = createClient({ baseUrl: server.url })
    const missing = await failure(client.listBooks())
    assert.equal(missing.status, 401)
    assert.equal(missing.message, 'Authorization token required')
    assert.equal(missing.name, 'BookServiceError')
    assert.match(missing.requestId ?? '', /^[0-9a-f-]{36}$/)
    const wrong = await failure(client.login('admin', 'not the password'))
    assert.equal(wrong.status, 401)
    assert.equal(wrong.message, 'Invalid credentials')
  })

  test('searchBooks: GET /books?q= in relevance order, or in a sort; a q too long is a 400', async () => {
    const client = createClient({ baseUrl: server.url })
    await client.login('admin', TEST_PASSWORD)
    const garcia = await client.createBook({ title: 'Cien años de soledad', author: 'Gabriel García Márquez', year: 1967 })
    const cholera = await client.createBook({ title: 'El amor en los tiempos del cólera', author: 'Gabriel Garcia Marquez', year: 1985 })
    assert.deepEqual(await client.searchBooks('garcia marquez'), [garcia, cholera])
    assert.deepEqual(await client.searchBooks('garcia', { sort: '-year' }), [cholera, garcia])
    assert.deepEqual(await client.searchBooks('"marquez gabriel"'), [])
    assert.equal((await failure(client.searchBooks('x'.repeat(201)))).status, 400)
    for (const book of [garcia, cholera]) await client.deleteBook(book.id)
  })

  test('login, then create, list, get, update and delete', async () => {
    const client = createClient({ baseUrl: `${server.url}/` })
    const login = await client.login('admin', TEST_PASSWORD)
    assert.equal(login.token_type, 'Bearer')
    assert.equal(login.expires_in, 3600)

    const created: Book = await client.createBook({ title: 'Dune', author: 'Frank Herbert', year: 1965 })
    assert.deepEqual(created, { id: created.id, title: 'Dune', author: 'Frank Herbert', year: 1965 })
    assert.deepEqual(await client.getBook(created.id), created)
    assert.ok((await client.listBooks()).some((book) => book.id === created.id))

    const updated = await client.updateBook(created.id, { year: 1966 })
    assert.deepEqual(updated, { ...created, year: 1966 })

    assert.equal(await client.deleteBook(created.id), undefined)
    const gone = await failure(client.getBook(created.id))
    assert.equal(gone.status, 404)
    assert.equal(gone.message, 'Book not found')
    assert.equal((await failure(client.deleteBook(created.id))).status, 404)
    assert.equal((await failure(client.updateBook(created.id, {}))).message, 'Book not found')
  })

  test('accounts: create, list, update and delete users; a reader is refused with 403 Forbidden; a revoked token with 401', async () => {
    const admin = createClient({ baseUrl: server.url })
    await admin.login('admin', TEST_PASSWORD)
    const created = await admin.createUser({ username: 'Client-Reader', password: 'a long enough passphrase', role: 'reader' })
    assert.deepEqual([created.username, created.role], ['Client-Reader', 'reader'])
    assert.ok((await admin.listUsers()).some((account) => account.username === 'Client-Reader'))
    const exists = await failure(admin.createUser({ username: 'client-reader', password: 'a long enough passphrase', role: 'editor' }))
    assert.deepEqual([exists.status, exists.message], [409, 'User already exists'])

    const reader = createClient({ baseUrl: server.url })
    await reader.login('client-reader', 'a long enough passphrase')
    assert.ok(Array.isArray(await reader.listBooks()))
    const refused = await failure(reader.createBook({ title: 'T', author: 'A', year: 1 }))
    assert.deepEqual([refused.status, refused.message], [403, 'Forbidden'])
    assert.equal((await failure(reader.listUsers())).status, 403)

    const updated = await admin.updateUser('client-reader', { role: 'editor' })
    assert.equal(updated.role, 'editor')
    const revoked = await failure(reader.listBooks())
    assert.deepEqual([revoked.status, revoked.message], [401, 'Invalid token'])
    assert.equal(await admin.deleteUser('CLIENT-READER'), undefined)
    assert.deepEqual([(await failure(admin.deleteUser('client-reader'))).message], ['User not found'])
    assert.deepEqual([(await failure(admin.deleteUser('admin'))).message], ['Cannot remove the last admin'])
  })

  test('API tokens: createApiToken, listApiTokens (all for admins), revokeApiToken; refusals as BookServiceError', async () => {
    const admin = createClient({ baseUrl: server.url, token: signToken({ sub: 'admin', role: 'admin' }) })
    await admin.createUser({ username: 'carol', password: 'a long enough passphrase', role: 'editor' })
    const carol = createClient({ baseUrl: server.url, token: signToken({ sub: 'carol', role: 'editor' }) })
    const created = await carol.createApiToken({ name: 'shop front', role: 'reader', expires_in_days: 7 })
    assert.deepEqual([created.name, created.role, created.last_used_at], ['shop front', 'reader', null])
    let unauthorized = 0
    const program = createClient({ baseUrl: server.url, token: created.token, onUnauthorized: () => unauthorized++ })
    assert.ok(Array.isArray(await program.listBooks()))
    assert.equal((await failure(program.createBook({ title: 'T', author: 'A', year: 1 }))).status, 403)

    const listed = await carol.listApiTokens()
    assert.deepEqual(listed.map((token) => [token.id, token.expires_at, 'token' in token]), [[created.id, created.expires_at, false]])
    assert.equal((await failure(carol.listApiTokens({ all: true }))).status, 403)
    assert.equal((await failure(carol.createApiToken({ name: 'more', role: 'admin' }))).status, 403)
    assert.equal((await failure(carol.createApiToken({ name: '' }))).message, 'Invalid input')
    const everyone = await admin.listApiTokens({ all: true })
    assert.deepEqual(everyone.filter((token) => token.id === created.id).map((token) => token.username), ['carol'])
    assert.equal((await failure(admin.revokeApiToken('no-such-token'))).message, 'Token not found')

    await carol.revokeApiToken(created.id)
    assert.equal((await failure(program.listBooks())).message, 'Invalid token')
    assert.equal(unauthorized, 1)
    assert.deepEqual(await carol.listApiTokens(), [])
  })

  test('createBook with an idempotencyKey: a repeat gets the first book, another book with the key is a 422', async () => {
    const client = createClient({ baseUrl: server.url, token: signToken({ sub: 'retrier' }) })
    const dune = { title: 'Dune', author: 'Frank Herbert', year: 1965 }
    const before = (await client.listBooks()).length
    const first = await client.createBook(dune, { idempotencyKey: 'client-key-1' })
    assert.deepEqual(await client.createBook(dune, { idempotencyKey: 'client-key-1' }), first)
    const reused = await failure(client.createBook({ ...dune, year: 1966 }, { idempotencyKey: 'client-key-1' }))
    assert.deepEqual([reused.status, reused.message], [422, 'Idempotency key reused with a different body'])
    assert.equal((await client.listBooks()).length, before + 1)
  })

  test('a token given up front is used; invalid input and invalid tokens are typed errors', async () => {
    const client = createClient({ baseUrl: server.url, token: signToken({ sub: 'tests' }) })
    const bad = await failure(client.createBook({ title: '', author: 'x', year: 2000 }))
    assert.equal(bad.status, 400)
    assert.equal(bad.message, 'Invalid input')
    const fraction = await failure(client.createBook({ title: 'A', author: 'B', year: 2000.5 }))
    assert.equal(fraction.message, 'Invalid input')
    assert.ok(Array.isArray(await client.listBooks()))

    const forged = createClient({ baseUrl: server.url, token: signToken({}, { key: 'another secret' }) })
    const invalid = await failure(forged.listBooks())
    assert.equal(invalid.status, 401)
    assert.equal(invalid.message, 'Invalid token')
  })

  test('a response that is not the envelope is reported as Unexpected response with its status', async () => {
    const client = createClient({
      baseUrl: server.url,
      fetch: async () => new Response('<html>Bad gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } })
    })
    const error = await failure(client.listBooks())
    assert.equal(error.status, 502)
    assert.equal(error.message, 'Unexpected response')
  })

  test('subscribe: every change in order, each once, across a break (it resumes with Last-Event-ID by itself); 401 rejects', async () => {
    const writer = createClient({ baseUrl: server.url, token: signToken() })
    const proxy = await startProxy({ host: '127.0.0.1', port: server.port })
    const client = createClient({ baseUrl: `http://127.0.0.1:${proxy.port}`, token: signToken() })
    const controller = new AbortController()
    const changes: BookChangeEvent[] = []
    const reconnects: unknown[] = []
    let opened = 0
    const following = client.subscribe({
      onChange: (change) => changes.push(change),
      onReconnect: (reason) => reconnects.push(reason),
      onOpen: () => opened++,
      signal: controller.signal
    })
    try {
      await eventually('the stream is open', async () => opened === 1)
      const first = await writer.createBook({ title: 'Subscribed', author: 'A', year: 1 })
      await eventually('the first change arrives', async () => changes.length === 1)
      assert.deepEqual(changes[0], { seq: changes[0]!.seq, type: 'created', id: first.id, book: first })
      await proxy.cut()
      await writer.updateBook(first.id, { year: 2 })
      await writer.deleteBook(first.id)
      await proxy.restore()
      await eventually('the changes made during the break arrive', async () => changes.length === 3)
      assert.ok(reconnects.length >= 1)
      assert.deepEqual(changes.map((change) => change.type), ['created', 'updated', 'deleted'])
      assert.deepEqual(changes.map((change) => change.seq - changes[0]!.seq), [0, 1, 2])
      assert.equal(changes[2]!.book, null)
    } finally {
      controller.abort()
      await following
      await proxy.close()
    }
    const refused = await failure(createClient({ baseUrl: server.url, token: 'not-a-token' }).subscribe({ onChange: () => {} }))
    assert.equal(refused.status, 401)
    assert.equal(refused.message, 'Invalid token')
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
    assert.deepEqual([stale.status, stale.message], [412, 'Precondition failed'])
    const staleDelete = await failure(client.deleteBook(book.id, { ifMatch: seen.etag }))
    assert.equal(staleDelete.status, 412)
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
    assert.deepEqual([wrong.status, wrong.message], [401, WRONG_CURRENT_PASSWORD])
    assert.equal(unauthorized, 0)
    const changed = await own.changeOwnPassword('client-own', 'first password 1', 'second password 2')
    assert.equal(changed.username, 'client-own')
    const revoked = await failure(own.listBooks())
    assert.equal(revoked.status, 401)
    assert.equal(unauthorized, 1)
    const failedLogin = await failure(own.login('client-own', 'first password 1'))
    assert.equal(failedLogin.status, 401)
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
    await assert.rejects(client.listBooks(), (error) => error instanceof NetworkError && error.name === 'NetworkError' && error.cause === cause)
  })
})
