import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { PostgresDatabase } from '../../../src/storage/postgres/postgres-database.js'
import { authHeaders, buildTestApp } from '../../support/app.js'
import { createBook } from '../../support/books.js'
import { createPostgresDatabase, postgresSkipReason, type TestDatabase } from '../../support/engines.js'

/** The query bound of the app under test, in ms: tiny, so a statement waiting on a lock passes it. */
const BOUND_MS = 300

/** The statements of the service's pool still running on `database` (application `book-service`). */
async function serviceStatementsRunning(client: pg.Client, database: TestDatabase): Promise<string[]> {
  const { rows } = await client.query<{ query: string }>(
    `SELECT query FROM pg_stat_activity
     WHERE datname = $1 AND application_name = 'book-service' AND state <> 'idle' AND pid <> pg_backend_pid()`,
    [new URL(database.url).pathname.slice(1)]
  )
  return rows.map((row) => row.query)
}

describe('PostgreSQL: every statement of the service is bounded on the server too (docs/operations.md "Bounded reads")', { skip: postgresSkipReason }, () => {
  let database: TestDatabase
  let app: FastifyInstance
  let locker: pg.Client

  before(async () => {
    database = await createPostgresDatabase()
    // The database's own default would cut every migration statement: migrations must not run under it.
    const admin = new pg.Client({ connectionString: database.url })
    await admin.connect()
    await admin.query(`ALTER DATABASE ${new URL(database.url).pathname.slice(1)} SET statement_timeout = '1ms'`)
    await admin.end()
    app = await buildTestApp({}, await PostgresDatabase.open(database.url, { poolSize: 2, startupTimeoutMs: 0, queryTimeoutMs: BOUND_MS }))
    locker = new pg.Client({ connectionString: database.url, application_name: 'statement-bound-test', statement_timeout: 0 })
    await locker.connect()
    await locker.query('SET statement_timeout = 0')
  })

  after(async () => {
    await locker?.end().catch(() => {})
    await app?.close()
    await database?.drop()
  })

  test('migrations ran whatever the database\'s own statement_timeout; the service\'s statements run under its bound', async () => {
    const created = await createBook(app)
    const read = await app.inject({ method: 'GET', url: `/book/${created.id}`, headers: authHeaders() })
    assert.equal(read.statusCode, 200)
  })

  test('a statement past the bound answers 503 with Retry-After and is gone from pg_stat_activity right after', async () => {
    const created = await createBook(app)
    // Another session holds the table: the service's read waits on the lock, past the bound.
    await locker.query('BEGIN')
    await locker.query('LOCK TABLE books IN ACCESS EXCLUSIVE MODE')
    try {
      const read = await app.inject({ method: 'GET', url: `/book/${created.id}`, headers: authHeaders() })
      assert.equal(read.statusCode, 503)
      assert.deepEqual(read.json(), { status: 503, message: 'Service unavailable', data: null })
      assert.match(String(read.headers['retry-after']), /^[1-9]\d*$/)
      // Still inside the lock holder's transaction: only the server's timeout can have ended the read.
      assert.deepEqual(await serviceStatementsRunning(locker, database), [])
    } finally {
      await locker.query('ROLLBACK')
    }
    const again = await app.inject({ method: 'GET', url: `/book/${created.id}`, headers: authHeaders() })
    assert.equal(again.statusCode, 200)
  })
})
