import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import type { Database } from '../../../src/storage/contracts/database.js'
import type { ChangeLogOptions } from '../../../src/storage/retention.js'
import type { Engine } from '../../../src/storage/contracts/engine.js'
import { PostgresDatabase } from '../../../src/storage/postgres/postgres-database.js'
import { SqliteDatabase } from '../../../src/storage/sqlite/sqlite-database.js'
import { eventually } from '../../support/client.js'
import { createPostgresDatabase, engines } from '../../support/engines.js'
import { removeDirectory, temporaryDirectory } from '../../support/server.js'
import { UNKNOWN_CHANGE_CONTEXT } from '../../../src/storage/contracts/change-log.js'
import { parseSearch } from '../../../src/book/search.js'

/** A database of `engine` of its own, and how to open it (twice: two processes or instances). */
async function database(engine: Engine): Promise<{ open: (options?: ChangeLogOptions) => Promise<Database>; drop: () => Promise<void> }> {
  if (engine === 'sqlite') {
    const directory = temporaryDirectory()
    const path = join(directory, 'books.db')
    return { open: (options) => SqliteDatabase.open(path, options), drop: async () => removeDirectory(directory) }
  }
  const scratch = await createPostgresDatabase()
  return {
    open: (options) => PostgresDatabase.open(scratch.url, { poolSize: 4, startupTimeoutMs: 0, ...options }),
    drop: () => scratch.drop()
  }
}

/**
 * Waits until the log's numbers reach `lastSeq`: PostgreSQL numbers committed changes shortly
 * after their commit (docs/change-feed.md "Change log"), SQLite at the commit itself.
 */
async function numberedThrough(db: Database, lastSeq: number): Promise<void> {
  await eventually(`change ${lastSeq} numbered`, async () => (await db.changes.horizon()).lastSeq >= lastSeq, 5000)
}

for (const { engine, skip } of engines) {
  describe(`the change log [${engine}]`, { skip }, () => {
    const cleanups: Array<() => Promise<void>> = []
    after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup()
    })
    async function openTwo(options?: ChangeLogOptions): Promise<[Database, Database]> {
      const shared = await database(engine)
      const first = await shared.open(options)
      const second = await shared.open(options)
      cleanups.push(shared.drop, () => first.close(), () => second.close())
      return [first, second]
    }

    test('a row per create, update and delete, with the version and the book after it, in order', async () => {
      const [db] = await openTwo()
      assert.deepEqual(await db.changes.horizon(), { trimmedThrough: 0, lastSeq: 0 })
      const book = await db.books.create({ title: 'Dune', author: 'Frank Herbert', year: 1965 }, UNKNOWN_CHANGE_CONTEXT)
      await db.books.update(book.id, { title: 'Dune Messiah' }, UNKNOWN_CHANGE_CONTEXT)
      assert.equal((await db.books.update(book.id, { year: 1 }, UNKNOWN_CHANGE_CONTEXT, 1)).status, 'stale')
      await db.books.update(book.id, { year: 1969 }, UNKNOWN_CHANGE_CONTEXT, 2)
      assert.equal((await db.books.delete(book.id, UNKNOWN_CHANGE_CONTEXT)).status, 'written')
      assert.equal((await db.books.delete(book.id, UNKNOWN_CHANGE_CONTEXT)).status, 'missing')
      await numberedThrough(db, 4)
      const changes = await db.changes.changesAfter(0, 100)
      assert.deepEqual(
        changes.map(({ seq, bookId, operation, version, book }) => ({ seq, bookId, operation, version, book })),
        [
          { seq: 1, bookId: book.id, operation: 'created', version: 1, book: { id: book.id, title: 'Dune', author: 'Frank Herbert', year: 1965 } },
          { seq: 2, bookId: book.id, operation: 'updated', version: 2, book: { id: book.id, title: 'Dune Messiah', author: 'Frank Herbert', year: 1965 } },
          { seq: 3, bookId: book.id, operation: 'updated', version: 3, book: { id: book.id, title: 'Dune Messiah', author: 'Frank Herbert', year: 1969 } },
          { seq: 4, bookId: book.id, operation: 'deleted', version: 3, book: null }
        ]
      )
      for (const change of changes) {
        assert.match(change.changedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
        assert.ok(Math.abs(Date.parse(change.changedAt) - Date.now()) < 60_000)
      }
      assert.deepEqual((await db.changes.changesAfter(2, 1)).map((change) => change.seq), [3])
      assert.deepEqual(await db.changes.horizon(), { trimmedThrough: 0, lastSeq: 4 })
    })

    test('creates committed together: each book its own values, its log row its own write\'s actor and request id, each found by search', async () => {
      const [db] = await openTwo()
      // Made in one event-loop turn, so committed in one batch (one grouped INSERT on SQLite).
      const inputs = Array.from({ length: 40 }, (_, i) => ({ title: `Grouped ${i} title`, author: i % 2 === 0 ? `Writer ${i}` : 'Same Writer', year: 1900 + i }))
      const contexts = inputs.map((_, i) => ({ actor: `actor-${i % 3}`, requestId: `request-${i}` }))
      const books = await Promise.all(inputs.map((input, i) => db.books.create(input, contexts[i]!)))
      books.forEach((book, i) => assert.deepEqual({ title: book.title, author: book.author, year: book.year }, inputs[i]))
      assert.ok(books.every((book, i) => i === 0 || book.id > books[i - 1]!.id), 'ids ascend in the order of the creates')
      await numberedThrough(db, 40)
      const changes = await db.changes.changesAfter(0, 100)
      assert.equal(changes.length, 40)
      const byBook = new Map(changes.map((change) => [change.bookId, change]))
      books.forEach((book, i) => {
        const change = byBook.get(book.id)!
        assert.deepEqual({ operation: change.operation, book: change.book, actor: change.actor, requestId: change.requestId }, {
          operation: 'created', book, actor: contexts[i]!.actor, requestId: contexts[i]!.requestId
        })
      })
      for (const [i, book] of books.entries()) {
        const found = []
        for await (const match of db.books.list({ search: parseSearch(`"grouped ${i} title"`)! })) found.push(match.id)
        assert.deepEqual(found, [book.id], `search for book ${i}`)
      }
    })

    test('writes refused by their version leave no row, the others of their batch have theirs', async () => {
      const [db] = await openTwo()
      const books = await Promise.all([1, 2, 3].map((n) => db.books.create({ title: `T${n}`, author: 'A', year: 2000 + n }, UNKNOWN_CHANGE_CONTEXT)))
      const results = await Promise.all([
        db.books.delete(books[0]!.id, UNKNOWN_CHANGE_CONTEXT, 7),
        db.books.delete(books[1]!.id, UNKNOWN_CHANGE_CONTEXT, 1),
        db.books.update(books[2]!.id, { title: 'T3b' }, UNKNOWN_CHANGE_CONTEXT, 1)
      ])
      assert.deepEqual(results.map((result) => (result.status !== 'written' ? result.status : 'book' in result ? 'updated' : 'deleted')), ['stale', 'deleted', 'updated'])
      await numberedThrough(db, 5)
      assert.equal((await db.changes.numberingLag?.())?.waiting ?? 0, 0)
      const operations = (await db.changes.changesAfter(3, 100)).map((change) => [change.bookId, change.operation])
      assert.deepEqual(operations.sort(), [[books[1]!.id, 'deleted'], [books[2]!.id, 'updated']].sort())
    })

    test('retention removes the oldest rows beyond the limit, and the horizon says so', async () => {
      const [db] = await openTwo({ retention: { maxAgeSeconds: 3600, maxRows: 5 }, trimIntervalMs: 50 })
      for (let n = 0; n < 12; n++) await db.books.create({ title: `T${n}`, author: 'A', year: 2000 }, UNKNOWN_CHANGE_CONTEXT)
      await eventually('the trim', async () => (await db.changes.horizon()).trimmedThrough === 7)
      assert.deepEqual(await db.changes.horizon(), { trimmedThrough: 7, lastSeq: 12 })
      assert.deepEqual((await db.changes.changesAfter(0, 100)).map((change) => change.seq), [8, 9, 10, 11, 12])
    })

    test('retention by age: rows older than the limit go, the numbers are never reused', async () => {
      const [db] = await openTwo({ retention: { maxAgeSeconds: 0, maxRows: 1000 }, trimIntervalMs: 50 })
      for (let n = 0; n < 3; n++) await db.books.create({ title: `T${n}`, author: 'A', year: 2000 }, UNKNOWN_CHANGE_CONTEXT)
      await eventually('the trim', async () => (await db.changes.horizon()).trimmedThrough === 3)
      assert.deepEqual(await db.changes.changesAfter(0, 100), [])
      assert.deepEqual(await db.changes.horizon(), { trimmedThrough: 3, lastSeq: 3 })
      await db.books.create({ title: 'T4', author: 'A', year: 2000 }, UNKNOWN_CHANGE_CONTEXT)
      await numberedThrough(db, 4)
      assert.equal((await db.changes.horizon()).lastSeq, 4)
    })

    test('onChanges wakes a listener of another db (process, instance); after stop() it is called no more', async () => {
      const [writer, reader] = await openTwo()
      let woken = 0
      const stop = reader.changes.onChanges(() => woken++)
      // PostgreSQL wakes a new listener once its LISTEN is in place (a commit before it notifies
      // nobody); SQLite's watch starts with the call.
      if (engine === 'postgres') await eventually('the listener in place', async () => woken > 0)
      const settled = woken
      await writer.books.create({ title: 'Wake', author: 'Up', year: 2000 }, UNKNOWN_CHANGE_CONTEXT)
      await eventually('the wake-up', async () => woken > settled)
      // A second listener keeps the watch running; every wake calls all listeners at once, so when
      // it is woken by the next commit, the stopped one would have been too.
      let witnessed = 0
      const stopWitness = reader.changes.onChanges(() => witnessed++)
      stop()
      const stopped = woken
      await writer.books.create({ title: 'Quiet', author: 'Now', year: 2000 }, UNKNOWN_CHANGE_CONTEXT)
      await numberedThrough(reader, 2)
      await eventually('the second listener woken', async () => witnessed > 0)
      stopWitness()
      assert.equal(woken, stopped, 'no call after stop()')
      assert.equal((await reader.changes.changesAfter(0, 10)).length, 2)
    })
  })
}
