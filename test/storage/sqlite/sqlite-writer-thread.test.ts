import assert from 'node:assert/strict'
import { existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import Database from 'better-sqlite3'
import { authHeaders, buildTestApp } from '../../support/app.js'
import { removeDirectory, temporaryDirectory } from '../../support/server.js'
import { BUSY_TIMEOUT_MS } from '../../../src/storage/sqlite/sqlite-connection.js'
import { SqliteDatabase } from '../../../src/storage/sqlite/sqlite-database.js'
import { UNKNOWN_CHANGE_CONTEXT } from '../../../src/storage/contracts/change-log.js'

const auth = authHeaders()

test('a SQLite file commits on its writer thread: concurrent writes all answered, stored, and there after reopening', async () => {
  const directory = temporaryDirectory()
  const path = join(directory, 'books.db')
  try {
    let app = await buildTestApp({}, await SqliteDatabase.open(path))
    const created = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        app.inject({ method: 'POST', url: '/book', headers: auth, payload: { title: `T${i}`, author: 'A', year: i } })
      )
    )
    const ids = created.map((response) => {
      assert.equal(response.statusCode, 201, response.body)
      return response.json().data.id as number
    })
    assert.equal(new Set(ids).size, 200)

    // Reads right after the 201 see the write (the read connection sees the writer's commits).
    const [first] = ids
    assert.equal((await app.inject({ url: `/book/${first}`, headers: auth })).json().data.title, 'T0')
    const updated = await app.inject({ method: 'PUT', url: `/book/${first}`, headers: auth, payload: { title: 'Changed' } })
    assert.equal(updated.json().data.title, 'Changed')
    assert.equal((await app.inject({ url: `/book/${first}`, headers: auth })).json().data.title, 'Changed')
    assert.equal((await app.inject({ method: 'DELETE', url: `/book/${ids[1]}`, headers: auth })).statusCode, 200)
    assert.equal((await app.inject({ url: `/book/${ids[1]}`, headers: auth })).statusCode, 404)
    // The last write answered before closing is there after reopening.
    const late = await app.inject({ method: 'POST', url: '/book', headers: auth, payload: { title: 'Late', author: 'A', year: 1 } })
    const lateId = late.json().data.id as number
    await app.close()

    app = await buildTestApp({}, await SqliteDatabase.open(path))
    const books = (await app.inject({ url: '/books', headers: auth })).json().data as Array<{ id: number; title: string }>
    assert.equal(books.length, 200) // 200 created, one deleted, one more created
    assert.equal(books.find((book) => book.id === first)?.title, 'Changed')
    assert.ok(books.some((book) => book.id === lateId))
    assert.ok(!books.some((book) => book.id === ids[1]))
    await app.close()
  } finally {
    removeDirectory(directory)
  }
})

test('a write whose statement fails is answered 500 alone; the rest of its batch is stored', async () => {
  const directory = temporaryDirectory()
  try {
    const storage = await SqliteDatabase.open(join(directory, 'books.db'))
    const app = await buildTestApp({}, storage)
    // A title the schema accepts but a CHECK added behind the service's back refuses.
    const db = new Database(join(directory, 'books.db'))
    db.exec("CREATE TRIGGER refuse BEFORE INSERT ON books WHEN NEW.title = 'refused' BEGIN SELECT RAISE(ABORT, 'refused'); END")
    db.close()
    const [good, bad] = await Promise.all([
      app.inject({ method: 'POST', url: '/book', headers: auth, payload: { title: 'fine', author: 'A', year: 1 } }),
      app.inject({ method: 'POST', url: '/book', headers: auth, payload: { title: 'refused', author: 'A', year: 1 } })
    ])
    assert.equal(good.statusCode, 201)
    assert.deepEqual(bad.json(), { status: 500, message: 'Internal server error', data: null })
    assert.doesNotMatch(bad.body, /refused|SQLITE/)
    const books = (await app.inject({ url: '/books', headers: auth })).json().data
    assert.deepEqual(books.map((book: { title: string }) => book.title), ['fine'])
    await app.close()
  } finally {
    removeDirectory(directory)
  }
})

test('another process holding the write lock longer than the busy timeout: the writes wait their turn, none fails', async () => {
  const directory = temporaryDirectory()
  const path = join(directory, 'books.db')
  const storage = await SqliteDatabase.open(path)
  // Another connection (as another process would) takes the write lock and keeps it past BUSY_TIMEOUT_MS.
  const other = new Database(path)
  try {
    other.exec('BEGIN IMMEDIATE')
    other.prepare("INSERT INTO books (title, author, year) VALUES ('Theirs', 'Other', 1)").run()
    let settled = false
    const writes = Promise.all([1, 2, 3].map((n) => storage.books.create({ title: `Mine ${n}`, author: 'A', year: n }, UNKNOWN_CHANGE_CONTEXT))).finally(() => (settled = true))
    // Past two busy timeouts: a batch and its savepoint retry would both have given up by then.
    await new Promise((resolve) => setTimeout(resolve, 2 * BUSY_TIMEOUT_MS + 1000))
    assert.equal(settled, false, 'the writes wait while the lock is held')
    other.exec('COMMIT')
    const books = await writes
    assert.deepEqual(books.map((book) => book.title), ['Mine 1', 'Mine 2', 'Mine 3'])
    assert.deepEqual((await storage.changes.changesAfter(0, 10)).map((change) => change.book?.title), ['Theirs', 'Mine 1', 'Mine 2', 'Mine 3'])
  } finally {
    other.close()
    await storage.close()
    removeDirectory(directory)
  }
})

test('a store that has not written yet (no writer thread): its file removed is noticed, the data saved back, writes 503, then a restart has every book', async () => {
  const directory = temporaryDirectory()
  const path = join(directory, 'books.db')
  try {
    let app = await buildTestApp({}, await SqliteDatabase.open(path))
    for (const title of ['One', 'Two']) {
      assert.equal((await app.inject({ method: 'POST', url: '/book', headers: auth, payload: { title, author: 'A', year: 1 } })).statusCode, 201)
    }
    await app.close()

    // Reopened with no write: nothing starts the writer thread; the main thread watches the files.
    const storage = await SqliteDatabase.open(path)
    rmSync(path)
    const deadline = Date.now() + 10_000
    while (!existsSync(path) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
    assert.ok(existsSync(path), 'the committed data was written back to the path')
    await assert.rejects(storage.books.create({ title: 'Three', author: 'A', year: 1 }, UNKNOWN_CHANGE_CONTEXT), { name: 'StorageUnavailableError' })
    await assert.rejects(storage.ping(), { name: 'StorageUnavailableError' })
    await storage.close()

    app = await buildTestApp({}, await SqliteDatabase.open(path))
    const books = (await app.inject({ url: '/books', headers: auth })).json().data as Array<{ title: string }>
    assert.deepEqual(books.map((book) => book.title), ['One', 'Two'])
    await app.close()
  } finally {
    removeDirectory(directory)
  }
})

test('a store that has not written yet starts its writer thread on the first write: the write is stored and ordered', async () => {
  const directory = temporaryDirectory()
  const path = join(directory, 'books.db')
  try {
    await (await SqliteDatabase.open(path)).close()
    const storage = await SqliteDatabase.open(path)
    const created = await Promise.all(
      Array.from({ length: 20 }, (_, i) => storage.books.create({ title: `T${i}`, author: 'A', year: i }, UNKNOWN_CHANGE_CONTEXT))
    )
    assert.deepEqual(created.map((book) => book.id), Array.from({ length: 20 }, (_, i) => i + 1))
    await storage.close()
    const db = new Database(path, { readonly: true })
    assert.equal((db.prepare('SELECT count(*) AS n FROM books').get() as { n: number }).n, 20)
    db.close()
  } finally {
    removeDirectory(directory)
  }
})

test('a store that has not written yet still keeps the change log\'s retention: rows due when it opens are removed', async () => {
  const directory = temporaryDirectory()
  const path = join(directory, 'books.db')
  try {
    const first = await SqliteDatabase.open(path)
    for (let n = 0; n < 12; n++) await first.books.create({ title: `T${n}`, author: 'A', year: 2000 }, UNKNOWN_CHANGE_CONTEXT)
    await first.close()
    // Reopened with a tighter retention and no write: the rows beyond it go all the same.
    const storage = await SqliteDatabase.open(path, { retention: { maxAgeSeconds: 3600, maxRows: 5 }, trimIntervalMs: 50 })
    const deadline = Date.now() + 10_000
    while ((await storage.changes.horizon()).trimmedThrough !== 7 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50))
    assert.deepEqual(await storage.changes.horizon(), { trimmedThrough: 7, lastSeq: 12 })
    await storage.close()
  } finally {
    removeDirectory(directory)
  }
})
