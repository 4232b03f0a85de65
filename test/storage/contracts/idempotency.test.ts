import assert from 'node:assert/strict'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import pg from 'pg'
import type { BookStore } from '../../../src/storage/contracts/book-store.js'
import { IDEMPOTENCY_TTL_MS, type IdempotencyClaim } from '../../../src/storage/contracts/idempotency.js'
import { PostgresDatabase } from '../../../src/storage/postgres/postgres-database.js'
import { SqliteDatabase } from '../../../src/storage/sqlite/sqlite-database.js'
import { dune } from '../../support/books.js'
import { createPostgresDatabase, postgresSkipReason } from '../../support/engines.js'
import { removeDirectory, temporaryDirectory } from '../../support/server.js'
import { UNKNOWN_CHANGE_CONTEXT } from '../../../src/storage/contracts/change-log.js'

/** A claim for `key` made at `nowMs` (ms since the epoch). */
function claimAt(key: string, nowMs: number, fingerprint = 'f1'): IdempotencyClaim {
  return {
    subject: '"alice"',
    key,
    fingerprint,
    now: new Date(nowMs).toISOString(),
    expiredBefore: new Date(nowMs - IDEMPOTENCY_TTL_MS).toISOString()
  }
}

/**
 * What every instance shares through the database (two databases on one database stand for two
 * instances or processes), and the 24 h expiry.
 */
async function assertSharedAndExpiring(first: BookStore, second: BookStore) {
  const now = Date.now()
  const created = await first.createIdempotent(dune, claimAt('k', now), UNKNOWN_CHANGE_CONTEXT)
  assert.equal(created.outcome, 'created')
  // Another instance: the first answer, nothing created.
  assert.deepEqual(await second.createIdempotent(dune, claimAt('k', now + 1000), UNKNOWN_CHANGE_CONTEXT), { ...created, outcome: 'replayed' })
  assert.deepEqual(await second.createIdempotent(dune, claimAt('k', now + 1000, 'f2'), UNKNOWN_CHANGE_CONTEXT), { outcome: 'reused' })
  // 24 h later the key is free again: a new book, and its answer replaces the old one.
  const later = now + IDEMPOTENCY_TTL_MS + 1000
  const again = await second.createIdempotent(dune, claimAt('k', later, 'f2'), UNKNOWN_CHANGE_CONTEXT)
  assert.equal(again.outcome, 'created')
  assert.ok(again.outcome === 'created' && created.outcome === 'created' && again.book.id > created.book.id)
  assert.deepEqual(await first.createIdempotent(dune, claimAt('k', later + 1, 'f2'), UNKNOWN_CHANGE_CONTEXT), { ...again, outcome: 'replayed' })
  // The trim removes what expired and keeps the rest.
  await first.createIdempotent(dune, claimAt('old', now - IDEMPOTENCY_TTL_MS - 5000), UNKNOWN_CHANGE_CONTEXT)
  assert.equal(await first.trimIdempotencyKeys(new Date(now - IDEMPOTENCY_TTL_MS).toISOString()), 1)
  assert.equal(await first.trimIdempotencyKeys(new Date(now - IDEMPOTENCY_TTL_MS).toISOString()), 0)
  assert.equal((await first.createIdempotent(dune, claimAt('k', later + 2, 'f2'), UNKNOWN_CHANGE_CONTEXT)).outcome, 'replayed')
}

describe('Idempotency-Key answers in the database', () => {
  const directories: string[] = []
  after(() => directories.forEach(removeDirectory))

  test('SQLite: two databases on one file share the answers; they expire after 24 h', async () => {
    const directory = temporaryDirectory()
    directories.push(directory)
    const path = join(directory, 'books.db')
    const first = await SqliteDatabase.open(path)
    const second = await SqliteDatabase.open(path)
    try {
      await assertSharedAndExpiring(first, second)
    } finally {
      await first.close()
      await second.close()
    }
  })

  test('PostgreSQL: two instances share the answers; a key held by another instance is inProgress', { skip: postgresSkipReason }, async () => {
    const database = await createPostgresDatabase()
    const first = await PostgresDatabase.open(database.url, { poolSize: 2, startupTimeoutMs: 0 })
    const second = await PostgresDatabase.open(database.url, { poolSize: 2, startupTimeoutMs: 0 })
    const holder = new pg.Client({ connectionString: database.url })
    try {
      await assertSharedAndExpiring(first, second)
      // Another instance inside its transaction for the key holds the key's lock.
      await holder.connect()
      await holder.query('BEGIN')
      await holder.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', ['"alice"\nbusy'])
      assert.deepEqual(await first.createIdempotent(dune, claimAt('busy', Date.now()), UNKNOWN_CHANGE_CONTEXT), { outcome: 'inProgress' })
      await holder.query('COMMIT')
      assert.equal((await first.createIdempotent(dune, claimAt('busy', Date.now()), UNKNOWN_CHANGE_CONTEXT)).outcome, 'created')
    } finally {
      await holder.end()
      await first.close()
      await second.close()
      await database.drop()
    }
  })
})
