import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import pg from 'pg'
import { PostgresDatabase } from '../../../src/storage/postgres/postgres-database.js'
import { openMigrated } from '../../../src/storage/sqlite/sqlite-connection.js'
import { createPostgresDatabase, postgresSkipReason } from '../../support/engines.js'

const INDEXES = ['webhook_deliveries_at', 'webhook_deliveries_endpoint_seq', 'webhook_deliveries_endpoint_status']

/** The delivery log's indexes of migration 0014 in the database at `url`, with whether each is valid. */
async function postgresIndexes(url: string): Promise<Record<string, boolean>> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ name: string; valid: boolean }>(
      `SELECT c.relname AS name, i.indisvalid AS valid FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
       WHERE c.relname = ANY($1) ORDER BY c.relname`,
      [INDEXES]
    )
    return Object.fromEntries(rows.map((row) => [row.name, row.valid]))
  } finally {
    await client.end()
  }
}

describe('migration 0014: the delivery log\'s indexes (docs/operations.md "Migrations while other instances serve")', () => {
  test('SQLite: the three indexes exist', async () => {
    const db = await openMigrated(':memory:')
    const names = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'webhook_deliveries' ORDER BY name").all()
    db.close()
    for (const index of INDEXES) assert.ok(names.some((row) => row.name === index), `${index} in ${JSON.stringify(names)}`)
  })

  test('PostgreSQL: built concurrently and valid; an index left invalid by an interrupted build is built again at the next start', { skip: postgresSkipReason }, async () => {
    const scratch = await createPostgresDatabase()
    try {
      const first = await PostgresDatabase.open(scratch.url, { poolSize: 1, startupTimeoutMs: 0 })
      await first.close()
      assert.deepEqual(await postgresIndexes(scratch.url), Object.fromEntries(INDEXES.map((name) => [name, true])))

      // What a build cancelled or crashed half way leaves behind: the index, marked invalid.
      const admin = new pg.Client({ connectionString: scratch.url })
      await admin.connect()
      await admin.query("UPDATE pg_index SET indisvalid = false WHERE indexrelid = 'webhook_deliveries_endpoint_status'::regclass")
      await admin.end()
      assert.equal((await postgresIndexes(scratch.url)).webhook_deliveries_endpoint_status, false)

      const second = await PostgresDatabase.open(scratch.url, { poolSize: 1, startupTimeoutMs: 0 })
      await second.close()
      assert.deepEqual(await postgresIndexes(scratch.url), Object.fromEntries(INDEXES.map((name) => [name, true])))
    } finally {
      await scratch.drop()
    }
  })
})
