import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import type { BookStore } from '../../../src/storage/contracts/book-store.js'
import type { ChangeLogOptions } from '../../../src/storage/retention.js'
import type { Engine } from '../../../src/storage/contracts/engine.js'
import { PostgresBookStore } from '../../../src/storage/postgres/store.js'
import { SqliteBookStore } from '../../../src/storage/sqlite/store.js'
import { eventually } from '../../support/client.js'
import { createPostgresDatabase, engines } from '../../support/engines.js'
import { removeDirectory, temporaryDirectory } from '../../support/server.js'
import { UNKNOWN_CHANGE_CONTEXT } from '../../../src/storage/contracts/change-log.js'

/** A database of `engine` of its own, and how to open stores on it (two stores: two processes or instances). */
async function database(engine: Engine): Promise<{ open: (options?: ChangeLogOptions) => Promise<BookStore>; drop: () => Promise<void> }> {
  if (engine === 'sqlite') {
    const directory = temporaryDirectory()
    const path = join(directory, 'books.db')
    return { open: (options) => SqliteBookStore.open(path, options), drop: async () => removeDirectory(directory) }
  }
  const scratch = await createPostgresDatabase()
  return {
    open: (options) => PostgresBookStore.open(scratch.url, { poolSize: 4, startupTimeoutMs: 0, ...options }),
    drop: () => scratch.drop()
  }
}

/**
 * Waits until the log's numbers reach `lastSeq`: PostgreSQL numbers committed changes shortly
 * after their commit (docs/change-feed.md "Change log"), SQLite at the commit itself.
 */
async function numberedThrough(store: BookStore, lastSeq: number): Promise<void> {
  await eventually(`change ${lastSeq} numbered`, async () => (await store.changes.horizon()).lastSeq >= lastSeq, 5000)
}

for (const { engine, skip } of engines) {
  describe(`the change log [${engine}]`, { skip }, () => {
    const cleanups: Array<() => Promise<void>> = []
    after(async () => {
      for (const cleanup of cleanups.reverse()) await cleanup()
    })
    async function openTwo(options?: ChangeLogOptions): Promise<[BookStore, BookStore]> {
      const db = await database(engine)
      const first = await db.open(options)
      const second = await db.open(options)
      cleanups.push(db.drop, () => first.close(), () => second.close())
      return [first, second]
    }

    test('a row per create, update and delete, with the version and the book after it, in order', async () => {
      const [store] = await openTwo()
      assert.deepEqual(await store.changes.horizon(), { trimmedThrough: 0, lastSeq: 0 })
      const book = await store.create({ title: 'Dune', author: 'Frank Herbert', year: 1965 }, UNKNOWN_CHANGE_CONTEXT)
      await store.update(book.id, { title: 'Dune Messiah' }, UNKNOWN_CHANGE_CONTEXT)
      assert.equal((await store.update(book.id, { year: 1 }, UNKNOWN_CHANGE_CONTEXT, 1)).status, 'stale')
      await store.update(book.id, { year: 1969 }, UNKNOWN_CHANGE_CONTEXT, 2)
      assert.equal((await store.delete(book.id, UNKNOWN_CHANGE_CONTEXT)).status, 'written')
      assert.equal((await store.delete(book.id, UNKNOWN_CHANGE_CONTEXT)).status, 'missing')
      await numberedThrough(store, 4)
      const changes = await store.changes.changesAfter(0, 100)
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
      assert.deepEqual((await store.changes.changesAfter(2, 1)).map((change) => change.seq), [3])
      assert.deepEqual(await store.changes.horizon(), { trimmedThrough: 0, lastSeq: 4 })
    })

    test('writes refused by their version leave no row, the others of their batch have theirs', async () => {
      const [store] = await openTwo()
      const books = await Promise.all([1, 2, 3].map((n) => store.create({ title: `T${n}`, author: 'A', year: 2000 + n }, UNKNOWN_CHANGE_CONTEXT)))
      const results = await Promise.all([
        store.delete(books[0]!.id, UNKNOWN_CHANGE_CONTEXT, 7),
        store.delete(books[1]!.id, UNKNOWN_CHANGE_CONTEXT, 1),
        store.update(books[2]!.id, { title: 'T3b' }, UNKNOWN_CHANGE_CONTEXT, 1)
      ])
      assert.deepEqual(results.map((result) => (result.status !== 'written' ? result.status : 'book' in result ? 'updated' : 'deleted')), ['stale', 'deleted', 'updated'])
      await numberedThrough(store, 5)
      assert.equal((await store.changes.numberingLag?.())?.waiting ?? 0, 0)
      const operations = (await store.changes.changesAfter(3, 100)).map((change) => [change.bookId, change.operation])
      assert.deepEqual(operations.sort(), [[books[1]!.id, 'deleted'], [books[2]!.id, 'updated']].sort())
    })

    test('retention removes the oldest rows beyond the limit, and the horizon says so', async () => {
      const [store] = await openTwo({ retention: { maxAgeSeconds: 3600, maxRows: 5 }, trimIntervalMs: 50 })
      for (let n = 0; n < 12; n++) await store.create({ title: `T${n}`, author: 'A', year: 2000 }, UNKNOWN_CHANGE_CONTEXT)
      await eventually('the trim', async () => (await store.changes.horizon()).trimmedThrough === 7)
      assert.deepEqual(await store.changes.horizon(), { trimmedThrough: 7, lastSeq: 12 })
      assert.deepEqual((await store.changes.changesAfter(0, 100)).map((change) => change.seq), [8, 9, 10, 11, 12])
    })

    test('retention by age: rows older than the limit go, the numbers are never reused', async () => {
      const [store] = await openTwo({ retention: { maxAgeSeconds: 0, maxRows: 1000 }, trimIntervalMs: 50 })
      for (let n = 0; n < 3; n++) await store.create({ title: `T${n}`, author: 'A', year: 2000 }, UNKNOWN_CHANGE_CONTEXT)
      await eventually('the trim', async () => (await store.changes.horizon()).trimmedThrough === 3)
      assert.deepEqual(await store.changes.changesAfter(0, 100), [])
      assert.deepEqual(await store.changes.horizon(), { trimmedThrough: 3, lastSeq: 3 })
      await store.create({ title: 'T4', author: 'A', year: 2000 }, UNKNOWN_CHANGE_CONTEXT)
      await numberedThrough(store, 4)
      assert.equal((await store.changes.horizon()).lastSeq, 4)
    })

    test('onChanges wakes a listener of another store (process, instance) within a second', async () => {
      const [writer, reader] = await openTwo()
      let woken = 0
      const stop = reader.changes.onChanges(() => woken++)
      await new Promise((resolve) => setTimeout(resolve, 300)) // the listener is set up
      const start = Date.now()
      await writer.create({ title: 'Wake', author: 'Up', year: 2000 }, UNKNOWN_CHANGE_CONTEXT)
      await eventually('the wake-up', async () => woken > 0, 1000)
      assert.ok(Date.now() - start < 1000)
      stop()
      const before = woken
      await writer.create({ title: 'Quiet', author: 'Now', year: 2000 }, UNKNOWN_CHANGE_CONTEXT)
      await new Promise((resolve) => setTimeout(resolve, 400))
      assert.equal(woken, before, 'no call after stop()')
      await numberedThrough(reader, 2)
      assert.equal((await reader.changes.changesAfter(0, 10)).length, 2)
    })
  })
}
