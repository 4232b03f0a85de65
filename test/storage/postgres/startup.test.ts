import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import pg from 'pg'
import { PostgresDatabase } from '../../../src/storage/postgres/postgres-database.js'
import { call, eventually } from '../../support/client.js'
import { createPostgresDatabase, postgresSkipReason } from '../../support/engines.js'
import { postgresTarget, startProxy, through } from '../../support/proxy.js'
import { freePort, removeDirectory, startServer, temporaryDirectory, type RunningServer } from '../../support/server.js'
import { UNKNOWN_CHANGE_CONTEXT } from '../../../src/storage/contracts/change-log.js'

/** The advisory lock id Kysely's PostgreSQL adapter takes while it migrates. */
const KYSELY_MIGRATION_LOCK_ID = '3853314791062309107'

const OK = { status: 200, message: 'OK', data: null }

describe('start-up against PostgreSQL', { skip: postgresSkipReason }, () => {
  let directory: string
  before(() => {
    directory = temporaryDirectory()
  })
  after(() => removeDirectory(directory))

  test('database down for good: retries with backoff, then exits 1 with one clear line', async () => {
    const port = await freePort() // nothing listens there
    const url = `postgres://postgres@127.0.0.1:${port}/books`
    await assert.rejects(
      startServer({ dataDirectory: directory, env: { DATABASE_URL: url, DATABASE_STARTUP_TIMEOUT: '2' } }),
      (error: Error) => {
        assert.match(error.message, /^server exited \(1\) before it was ready/)
        const retries = error.message.match(/book-service: database unreachable \(.*ECONNREFUSED.*\); retrying in \d+ ms/g) ?? []
        assert.ok(retries.length >= 2, `retried more than once:\n${error.message}`)
        const lines = error.message.trim().split('\n')
        assert.match(lines[lines.length - 1]!, /^book-service: cannot open the storage at DATABASE_URL: connect ECONNREFUSED 127\.0\.0\.1:\d+$/)
        return true
      }
    )
  })

  test('database down at start, back within DATABASE_STARTUP_TIMEOUT: the server waits for it and starts', async () => {
    const database = await createPostgresDatabase()
    const proxy = await startProxy(postgresTarget())
    await proxy.cut()
    let server: RunningServer | undefined
    try {
      let retried!: () => void
      const retrying = new Promise<void>((resolve) => (retried = resolve))
      const starting = startServer({
        dataDirectory: directory,
        // No time limit of the test's own: the server either starts once the database is back or
        // exits (its DATABASE_STARTUP_TIMEOUT, far beyond a loaded machine's slowest start).
        env: { DATABASE_URL: through(database.url, proxy.port), DATABASE_STARTUP_TIMEOUT: '600' },
        timeoutMs: Number.POSITIVE_INFINITY,
        onOutput: (text) => {
          if (text.includes('database unreachable')) retried()
        }
      })
      await Promise.race([retrying, starting])
      await proxy.restore()
      server = await starting
      assert.deepEqual((await call(`${server.url}/readyz`)).body, OK)
      assert.equal((await call(`${server.url}/book`, 'POST', { title: 'Ubik', author: 'Philip K. Dick', year: 1969 })).status, 201)
      assert.equal(await server.stop('SIGTERM'), 0)
    } finally {
      await server?.stop('SIGKILL')
      await proxy.close()
      await database.drop()
    }
  })

  test('connection lost mid-migration (waiting for another instance\'s migration lock): retried, not a crash', async () => {
    const database = await createPostgresDatabase()
    const proxy = await startProxy(postgresTarget())
    // Another "instance" holds Kysely's migration lock, so our migration waits on a checked-out connection.
    const locker = new pg.Client({ connectionString: database.url })
    await locker.connect()
    try {
      await locker.query(`SELECT pg_advisory_lock(${KYSELY_MIGRATION_LOCK_ID})`)
      const retries: unknown[] = []
      const opening = PostgresDatabase.open(through(database.url, proxy.port), {
        poolSize: 2,
        startupTimeoutMs: 30_000,
        onRetry: (error) => retries.push(error)
      })
      const waitingForLock = async () => {
        const { rows } = await locker.query(
          "SELECT count(*) AS count FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
        )
        return Number(rows[0].count) > 0
      }
      await eventually('the migration to wait for the lock', waitingForLock)
      await proxy.cut()
      await eventually('a start-up retry', async () => retries.length > 0)
      assert.match((retries[0] as Error).message, /Connection terminated|not queryable/)
      await proxy.restore()
      await locker.query(`SELECT pg_advisory_unlock(${KYSELY_MIGRATION_LOCK_ID})`)
      const storage = await opening
      try {
        assert.equal((await storage.books.create({ title: 'Ubik', author: 'Philip K. Dick', year: 1969 }, UNKNOWN_CHANGE_CONTEXT)).title, 'Ubik')
      } finally {
        await storage.close()
      }
    } finally {
      await locker.end()
      await proxy.close()
      await database.drop()
    }
  })

  test('a PostgreSQL URL without SECRET_TOKEN: exits 1 with a clear line', async () => {
    for (const url of ['postgres://postgres@127.0.0.1:5432/books', 'postgresql://postgres@127.0.0.1:5432/books']) {
      await assert.rejects(
        startServer({ dataDirectory: directory, env: { DATABASE_URL: url, SECRET_TOKEN: '' } }),
        (error: Error) => {
          assert.match(error.message, /^server exited \(1\) before it was ready/)
          assert.match(
            error.message,
            /\nbook-service: SECRET_TOKEN must be set when DATABASE_URL is PostgreSQL \(every instance must share it\)\n/
          )
          return true
        }
      )
    }
  })
})
