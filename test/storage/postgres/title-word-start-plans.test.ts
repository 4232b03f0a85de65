import assert from 'node:assert/strict'
import { test } from 'node:test'
import pg from 'pg'
import { PostgresDatabase } from '../../../src/storage/postgres/postgres-database.js'
import { createPostgresDatabase, postgresSkipReason } from '../../support/engines.js'

// Migration 0016 (src/storage/schema/migrations/0016_title_word_start_keys_rows.ts): the statement
// triggers that remove a changed or deleted title's keys look each key up in title_word_starts'
// primary key; with PostgreSQL's default estimate of a set-returning function (1,000 rows) they
// read the whole table on every title change and delete.

/** Sequential scans of title_word_starts by `statement`, run in a transaction of its own (rolled back), on `client`. */
async function sequentialScans(client: pg.Client, statement: string): Promise<number> {
  await client.query('BEGIN')
  try {
    await client.query(statement)
    const { rows } = await client.query<{ scans: string }>("SELECT seq_scan::text AS scans FROM pg_stat_xact_user_tables WHERE relname = 'title_word_starts'")
    return Number(rows[0]!.scans)
  } finally {
    await client.query('ROLLBACK')
  }
}

test('[postgres] at 20,000 books, a title change and a delete remove the book\'s title keys without reading title_word_starts whole', { skip: postgresSkipReason }, async () => {
  const database = await createPostgresDatabase()
  const store = await PostgresDatabase.open(database.url, { poolSize: 2, startupTimeoutMs: 0 })
  const client = new pg.Client({ connectionString: database.url })
  try {
    await client.connect()
    await client.query(
      `INSERT INTO books (title, author, year, title_folded, author_folded)
       SELECT 'The book of number ' || n, 'A', 2000, 'the book of number ' || n, 'a' FROM generate_series(1, 20000) AS n`
    )
    await client.query('ANALYZE title_word_starts')
    assert.equal(await sequentialScans(client, "UPDATE books SET title = 'Another title', title_folded = 'another title' WHERE id = 7"), 0, 'a title change')
    assert.equal(await sequentialScans(client, 'DELETE FROM books WHERE id = 8'), 0, 'a delete')
    // The keys did go: the statements ran their triggers.
    await client.query("UPDATE books SET title = 'Another title', title_folded = 'another title' WHERE id = 7")
    const { rows } = await client.query<{ keys: string[] }>('SELECT array_agg(key ORDER BY key) AS keys FROM title_word_starts WHERE book_id = 7')
    assert.deepEqual(rows[0]!.keys, ['another ', 'title'], 'the keys of the new title (8 characters from each word start)')
  } finally {
    await client.end().catch(() => {})
    await store.close()
    await database.drop()
  }
})
