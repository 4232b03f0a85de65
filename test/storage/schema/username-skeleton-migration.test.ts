import assert from 'node:assert/strict'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import Sqlite from 'better-sqlite3'
import pg from 'pg'
import { hashPassword } from '../../../src/auth/password.js'
import type { Database } from '../../../src/storage/contracts/database.js'
import { PostgresDatabase } from '../../../src/storage/postgres/postgres-database.js'
import { SqliteDatabase } from '../../../src/storage/sqlite/sqlite-database.js'
import { ACCOUNT_PASSWORD, login } from '../../support/accounts.js'
import { authHeaders, buildTestApp, signToken } from '../../support/app.js'
import { createPostgresDatabase, postgresSkipReason } from '../../support/engines.js'
import { removeDirectory, temporaryDirectory } from '../../support/server.js'

/** What makes a migrated database one migration 0011 has not run on: its own changes undone. */
const UNDO_0011 = [
  'DROP INDEX accounts_username_skeleton',
  'ALTER TABLE accounts DROP COLUMN username_skeleton',
  'ALTER TABLE webhook_endpoints DROP COLUMN replays',
  "DELETE FROM kysely_migration WHERE name = '0011_replays_and_username_skeletons'",
  "DELETE FROM schema_compatibility WHERE migration = '0011_replays_and_username_skeletons'"
]
/** Accounts an earlier release let in, oldest first: `admin` and two look-alikes of it. */
const EARLIER = [['admin', '2026-01-01T00:00:00.000Z'], ['\u0430dmin', '2026-01-02T00:00:00.000Z'], ['\uff41\uff44\uff4d\uff49\uff4e', '2026-01-03T00:00:00.000Z']] as const
const INSERT = 'INSERT INTO accounts (username_key, username, password_hash, role, generation, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)'

/** The migration's outcome, through the API: every earlier account signs in, the oldest keeps the skeleton, a new look-alike is refused. */
async function assertMigrated(database: Database, skeletons: Array<{ username: string; username_skeleton: string | null }>) {
  assert.deepEqual(skeletons, [
    { username: 'admin', username_skeleton: 'adrnin' }, { username: '\u0430dmin', username_skeleton: null }, { username: '\uff41\uff44\uff4d\uff49\uff4e', username_skeleton: null }
  ])
  const app = await buildTestApp({}, database)
  try {
    for (const [username] of EARLIER) assert.ok(await login(app, username), username)
    const admin = { ...authHeaders(signToken()), 'content-type': 'application/json' }
    const again = await app.inject({ method: 'POST', url: '/users', headers: admin, payload: { username: 'adm\u0131n', password: ACCOUNT_PASSWORD, role: 'reader' } })
    assert.deepEqual(again.json(), { status: 409, message: 'User already exists', data: null })
  } finally {
    await app.close()
  }
}

describe('migration 0011 on accounts an earlier release let look alike', () => {
  test('SQLite: the oldest keeps the skeleton, the others none; all still sign in', async () => {
    const directory = temporaryDirectory()
    try {
      const path = join(directory, 'books.db')
      await (await SqliteDatabase.open(path)).close()
      const db = new Sqlite(path)
      for (const statement of UNDO_0011) db.exec(statement)
      const hash = await hashPassword(ACCOUNT_PASSWORD)
      for (const [username, at] of EARLIER) db.prepare(INSERT.replace(/\$\d/g, '?')).run(username.normalize('NFC').toLowerCase(), username, hash, 'admin', 'g', at, at)
      db.close()
      const database = await SqliteDatabase.open(path)
      const check = new Sqlite(path, { readonly: true })
      const skeletons = check.prepare('SELECT username, username_skeleton FROM accounts ORDER BY created_at').all() as Array<{ username: string; username_skeleton: string | null }>
      check.close()
      await assertMigrated(database, skeletons)
    } finally {
      removeDirectory(directory)
    }
  })

  test('PostgreSQL: the same', { skip: postgresSkipReason }, async () => {
    const scratch = await createPostgresDatabase()
    const client = new pg.Client({ connectionString: scratch.url })
    try {
      await (await PostgresDatabase.open(scratch.url, { poolSize: 2, startupTimeoutMs: 0 })).close()
      await client.connect()
      for (const statement of UNDO_0011) await client.query(statement)
      const hash = await hashPassword(ACCOUNT_PASSWORD)
      for (const [username, at] of EARLIER) await client.query(INSERT.replace('$6, $6', '$6, $7'), [username.normalize('NFC').toLowerCase(), username, hash, 'admin', 'g', at, at])
      const database = await PostgresDatabase.open(scratch.url, { poolSize: 2, startupTimeoutMs: 0 })
      const { rows } = await client.query('SELECT username, username_skeleton FROM accounts ORDER BY created_at')
      await assertMigrated(database, rows)
    } finally {
      await client.end()
      await scratch.drop()
    }
  })
})
