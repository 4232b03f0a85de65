import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import pg from 'pg'
import { PostgresDatabase } from '../../../src/storage/postgres/postgres-database.js'
import { createPostgresDatabase, postgresSkipReason } from '../../support/engines.js'
import { UNKNOWN_CHANGE_CONTEXT } from '../../../src/storage/contracts/change-log.js'
import { eventually } from '../../support/client.js'

describe('the change log under concurrent writers on two instances [postgres]', { skip: postgresSkipReason }, () => {
  test('a reader polling changesAfter sees every change once, numbered without gaps, never a smaller number later', async () => {
    const database = await createPostgresDatabase()
    const open = () => PostgresDatabase.open(database.url, { poolSize: 8, startupTimeoutMs: 0 })
    const [a, b, reader] = await Promise.all([open(), open(), open()])
    // A deferred trigger that sleeps at commit: each transaction then commits a while after its
    // log rows were written, which gives commits every chance to land out of the order of those
    // writes; the numbering must still come out contiguous, and each book's changes in order.
    const admin = new pg.Client({ connectionString: database.url })
    await admin.connect()
    await admin.query(`CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN PERFORM pg_sleep(random() * 0.01); RETURN NULL; END $$`)
    await admin.query(`CREATE CONSTRAINT TRIGGER zz_slow_commit AFTER INSERT OR UPDATE OR DELETE ON books
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION slow_commit()`)
    await admin.end()
    try {
      const seen: number[] = []
      const versions = new Map<number, number>()
      let writing = true
      const poll = (async () => {
        for (let last = 0; ; ) {
          const changes = await reader.changes.changesAfter(last, 50)
          for (const change of changes) {
            assert.equal(change.seq, last + 1, `after ${last} came ${change.seq}`)
            assert.ok((versions.get(change.bookId) ?? 0) <= change.version, `book ${change.bookId}: version ${change.version} after a later one`)
            versions.set(change.bookId, change.version)
            seen.push(change.seq)
            last = change.seq
          }
          if (!writing && changes.length === 0 && last === (await reader.changes.horizon()).lastSeq) return last
        }
      })()
      // Eight concurrent writers per instance: creates (group inserts), then an update and a delete each.
      const writer = async (storage: PostgresDatabase, n: number) => {
        for (let round = 0; round < 15; round++) {
          const book = await storage.books.create({ title: `W${n}-${round}`, author: 'A', year: 2000 }, UNKNOWN_CHANGE_CONTEXT)
          await storage.books.update(book.id, { year: 2001 }, UNKNOWN_CHANGE_CONTEXT)
          if (round % 3 === 0) await storage.books.delete(book.id, UNKNOWN_CHANGE_CONTEXT)
        }
      }
      await Promise.all(Array.from({ length: 16 }, (_, n) => writer(n % 2 === 0 ? a : b, n)))
      // Every write is acknowledged; the numbering follows shortly (docs/change-feed.md "Change log").
      await eventually('every change numbered', async () => (await reader.changes.numberingLag()).waiting === 0, 5000)
      writing = false
      const last = await poll
      const expected = 16 * (15 * 2 + 5)
      assert.equal(last, expected)
      assert.deepEqual(seen, Array.from({ length: expected }, (_, index) => index + 1))
    } finally {
      await Promise.all([a.close(), b.close(), reader.close()])
      await database.drop()
    }
  })
})
