import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import pg from 'pg'
import { UNKNOWN_CHANGE_CONTEXT } from '../../../src/storage/contracts/change-log.js'
import { CHANGE_NUMBERING_LOCK } from '../../../src/storage/schema/migrations/0007_change_log_numbering.js'
import { PostgresDatabase } from '../../../src/storage/postgres/postgres-database.js'
import { authHeaders, buildTestApp } from '../../support/app.js'
import { eventually } from '../../support/client.js'
import { createPostgresDatabase, postgresSkipReason } from '../../support/engines.js'
import { removeDirectory, temporaryDirectory } from '../../support/server.js'

const book = (n: number) => ({ title: `N${n}`, author: 'A', year: 2000 + n })

describe('the change log numbering on PostgreSQL (docs/change-feed.md "Change log")', { skip: postgresSkipReason }, () => {
  const cleanups: Array<() => Promise<void>> = []
  after(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup()
  })
  async function setUp(options: { retention?: { maxAgeSeconds: number; maxRows: number }; trimIntervalMs?: number } = {}) {
    const database = await createPostgresDatabase()
    const storage = await PostgresDatabase.open(database.url, { poolSize: 6, startupTimeoutMs: 0, ...options })
    const session = new pg.Client({ connectionString: database.url })
    await session.connect()
    cleanups.push(database.drop, () => storage.close(), () => session.end())
    return { database, storage, session }
  }

  test('a commit waiting at its end holds no other writer up: no lock every writer takes in turn', async () => {
    const { storage, session } = await setUp()
    const slow = await storage.books.create(book(0), UNKNOWN_CHANGE_CONTEXT)
    // A deferred trigger that sleeps 2 s at the commit of any transaction that changes book `slow`
    // (after the change-log trigger: triggers fire in name order).
    await session.query(`CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.id = ${slow.id} THEN PERFORM pg_sleep(2); END IF; RETURN NULL; END $$`)
    await session.query(`CREATE CONSTRAINT TRIGGER zz_slow_commit AFTER UPDATE ON books
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION slow_commit()`)
    const slowUpdate = storage.books.update(slow.id, { year: 1999 }, UNKNOWN_CHANGE_CONTEXT)
    await new Promise((resolve) => setTimeout(resolve, 300)) // it is in its commit now
    const start = Date.now()
    for (let n = 1; n <= 10; n++) await storage.books.create(book(n), UNKNOWN_CHANGE_CONTEXT)
    const elapsed = Date.now() - start
    assert.ok(elapsed < 1500, `10 writes took ${elapsed} ms while another commit was under way`)
    await eventually('the ten numbered', async () => (await storage.changes.horizon()).lastSeq >= 11, 5000)
    await slowUpdate
    await eventually('the slow one numbered', async () => (await storage.changes.horizon()).lastSeq === 12, 5000)
    const changes = await storage.changes.changesAfter(0, 100)
    assert.deepEqual(changes.map((change) => change.seq), Array.from({ length: 12 }, (_, index) => index + 1))
    assert.deepEqual(changes.at(-1)!.book, { ...book(0), id: slow.id, year: 1999 }) // numbered after its commit, last
  })

  test('a rolled-back writer leaves nothing and holds nothing up; an open one is numbered once it commits', async () => {
    const { storage, session } = await setUp()
    const first = await storage.books.create(book(1), UNKNOWN_CHANGE_CONTEXT)
    await session.query('BEGIN')
    await session.query('UPDATE books SET year = 1 WHERE id = $1', [first.id])
    await session.query('INSERT INTO books (title, author, year) VALUES ($1, $2, $3)', ['Rolled', 'Back', 1])
    for (let n = 2; n <= 4; n++) await storage.books.create(book(n), UNKNOWN_CHANGE_CONTEXT)
    await eventually('the three numbered', async () => (await storage.changes.horizon()).lastSeq === 4, 5000)
    await session.query('ROLLBACK')
    await storage.books.create(book(5), UNKNOWN_CHANGE_CONTEXT)
    await eventually('the fifth numbered', async () => (await storage.changes.horizon()).lastSeq === 5, 5000)
    const changes = await storage.changes.changesAfter(0, 100)
    assert.deepEqual(changes.map((change) => change.book!.title), ['N1', 'N2', 'N3', 'N4', 'N5'])
    assert.equal((await session.query('SELECT count(*)::int AS n FROM book_changes')).rows[0].n, 5) // no row left behind
    assert.deepEqual(await storage.changes.numberingLag(), { waiting: 0, oldestAgeSeconds: 0 })

    await session.query('BEGIN')
    await session.query('UPDATE books SET year = 2 WHERE id = $1', [first.id])
    await storage.books.create(book(6), UNKNOWN_CHANGE_CONTEXT)
    await eventually('the sixth numbered past the open one', async () => (await storage.changes.horizon()).lastSeq === 6, 5000)
    await session.query('COMMIT')
    await eventually('the session change numbered', async () => (await storage.changes.horizon()).lastSeq === 7, 5000)
    const [last] = await storage.changes.changesAfter(6, 10)
    assert.deepEqual({ bookId: last!.bookId, year: last!.book!.year, actor: last!.actor }, { bookId: first.id, year: 2, actor: null })
  })

  test('without a sequencer changes wait, counted by numberingLag; retention keeps them; they are numbered once one is back', async () => {
    // Another session holds the numbering lock first: the storage's sequencer cannot number (as while no instance runs).
    const database = await createPostgresDatabase()
    const blocked = new pg.Client({ connectionString: database.url })
    await blocked.connect()
    await blocked.query('SELECT pg_advisory_lock($1)', [CHANGE_NUMBERING_LOCK.toString()])
    const other = await PostgresDatabase.open(database.url, { poolSize: 2, startupTimeoutMs: 0, retention: { maxAgeSeconds: 0, maxRows: 1000 }, trimIntervalMs: 50 })
    cleanups.push(database.drop, () => other.close(), () => blocked.end())
    for (let n = 1; n <= 3; n++) await other.create(book(n), UNKNOWN_CHANGE_CONTEXT)
    await new Promise((resolve) => setTimeout(resolve, 1200))
    const lag = await other.changes.numberingLag()
    assert.equal(lag.waiting, 3)
    assert.ok(lag.oldestAgeSeconds >= 1, `oldest ${lag.oldestAgeSeconds} s`)
    assert.equal((await other.changes.horizon()).lastSeq, 0)
    await blocked.query('SELECT pg_advisory_unlock($1)', [CHANGE_NUMBERING_LOCK.toString()])
    await eventually('numbered by the storage, taking the numbering over', async () => (await other.changes.horizon()).lastSeq === 3, 5000)
    // Numbered in their order; retention (maximum age 0) may already have trimmed the oldest of them,
    // now that they have numbers: what is left is the end of N1, N2, N3, and all of it goes.
    const titles = (await other.changes.changesAfter(0, 10)).map((change) => change.book!.title)
    assert.deepEqual(titles, ['N1', 'N2', 'N3'].slice(3 - titles.length))
    await eventually('trimmed once numbered', async () => (await other.changes.horizon()).trimmedThrough === 3, 5000)
  })

  test('a pg_dump restore keeps the numbering going', async () => {
    if (spawnSync('pg_dump', ['--version']).status !== 0) return
    const { storage, database } = await setUp()
    for (let n = 1; n <= 3; n++) await storage.books.create(book(n), UNKNOWN_CHANGE_CONTEXT)
    await eventually('numbered', async () => (await storage.changes.horizon()).lastSeq === 3, 5000)
    await storage.close()
    const directory = temporaryDirectory()
    cleanups.push(async () => removeDirectory(directory))
    const file = join(directory, 'dump')
    assert.equal(spawnSync('pg_dump', ['--format=custom', `--file=${file}`, `--dbname=${database.url}`]).status, 0)
    const restored = await createPostgresDatabase()
    cleanups.push(restored.drop)
    const restore = spawnSync('pg_restore', ['--no-owner', `--dbname=${restored.url}`, file])
    assert.equal(restore.status, 0, restore.stderr.toString())
    const reopened = await PostgresDatabase.open(restored.url, { poolSize: 2, startupTimeoutMs: 0 })
    cleanups.push(() => reopened.close())
    await reopened.create(book(4), UNKNOWN_CHANGE_CONTEXT)
    await eventually('numbered after the restore', async () => (await reopened.changes.horizon()).lastSeq === 4, 5000)
    assert.deepEqual((await reopened.changes.changesAfter(0, 10)).map((change) => change.seq), [1, 2, 3, 4])
  })
})

describe('/metrics: the numbering lag (docs/change-feed.md "Change log") [postgres]', { skip: postgresSkipReason }, () => {
  test('change_log_unnumbered and change_log_unnumbered_oldest_seconds count the changes waiting for a number', async () => {
    const database = await createPostgresDatabase()
    const blocked = new pg.Client({ connectionString: database.url })
    await blocked.connect()
    await blocked.query('SELECT pg_advisory_lock($1)', [CHANGE_NUMBERING_LOCK.toString()]) // no sequencer can number
    const storage = await PostgresDatabase.open(database.url, { poolSize: 2, startupTimeoutMs: 0 })
    const app = await buildTestApp({}, storage)
    try {
      const gauge = async (name: string) => {
        const text = (await app.inject({ url: '/metrics' })).body
        return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1])
      }
      assert.equal(await gauge('change_log_unnumbered'), 0)
      for (let n = 0; n < 2; n++) {
        assert.equal((await app.inject({ method: 'POST', url: '/book', headers: authHeaders(), payload: book(n) })).statusCode, 201)
      }
      await new Promise((resolve) => setTimeout(resolve, 1100))
      assert.equal(await gauge('change_log_unnumbered'), 2)
      assert.ok((await gauge('change_log_unnumbered_oldest_seconds')) >= 1)
      await blocked.query('SELECT pg_advisory_unlock($1)', [CHANGE_NUMBERING_LOCK.toString()])
      await eventually('numbered', async () => (await gauge('change_log_unnumbered')) === 0, 5000)
      assert.equal(await gauge('change_log_unnumbered_oldest_seconds'), 0)
    } finally {
      await app.close()
      await blocked.end()
      await database.drop()
    }
  })
})
