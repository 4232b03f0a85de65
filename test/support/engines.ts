import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { createScratchDatabase, type ScratchDatabase } from './scratch-database.js'
import { postgresScopeSkipReason } from './scope.js'
import type { Database } from '../../src/storage/contracts/database.js'
import type { Engine } from '../../src/storage/contracts/engine.js'
import { PostgresDatabase } from '../../src/storage/postgres/postgres-database.js'
import type { SearchReadOptions } from '../../src/storage/sql/search-results.js'
import { SqliteDatabase } from '../../src/storage/sqlite/sqlite-database.js'

/** The PostgreSQL server the tests use (`TEST_POSTGRES_URL` overrides); each run makes its own database in it. */
export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test'

/**
 * How long the probe waits for PostgreSQL to accept a connection, in ms. An absent server refuses
 * at once; this only has to outlast a machine busy with the other test file running beside this
 * one (a browser, a property run), where a shorter wait would skip a PostgreSQL suite that can run.
 */
const PROBE_TIMEOUT_MS = 10_000

async function probePostgres(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: PROBE_TIMEOUT_MS })
  try {
    await client.connect()
    await client.query('SELECT 1')
    return undefined
  } catch (error) {
    return `PostgreSQL not reachable at ${POSTGRES_ADMIN_URL} (${(error as Error).message}): PostgreSQL tests skipped`
  } finally {
    await client.end().catch(() => {})
  }
}

/** Why the PostgreSQL tests are skipped (the run's scope, or no server), or undefined when they run. */
export const postgresSkipReason = postgresScopeSkipReason ?? (await probePostgres())
if (postgresSkipReason) console.log(`# ${postgresSkipReason}`)

/** Every engine, each with the reason it is skipped here (undefined: it runs). */
export const engines: Array<{ engine: Engine; skip: string | undefined }> = [
  { engine: 'sqlite', skip: undefined },
  { engine: 'postgres', skip: postgresSkipReason }
]

/** What a test may change of how a database works (its costs, never its answers). */
export interface TestDatabaseOptions {
  /** How searches are read (src/storage/sql/search-results.ts). */
  search?: SearchReadOptions
  /** SQLite in a file of its own instead of in memory, so the searches' walks run on the reader thread (sqlite-search-reader.ts). */
  sqliteFile?: boolean
}

/** A database of its own for one test suite: its URL, and `drop()` to remove it. */
export type TestDatabase = ScratchDatabase

/** Creates a fresh, empty PostgreSQL database for one suite, so runs never collide. */
export async function createPostgresDatabase(): Promise<TestDatabase> {
  return createScratchDatabase(POSTGRES_ADMIN_URL, 'books_test')
}

/**
 * Opens an empty database of `engine`: in-memory SQLite, or a PostgreSQL database of its own.
 * `cleanup()` drops that PostgreSQL database (call it after the database is closed).
 */
export async function openTestDatabase(engine: Engine, options: TestDatabaseOptions = {}): Promise<{ database: Database; cleanup: () => Promise<void> }> {
  if (engine === 'sqlite') {
    if (!options.sqliteFile) return { database: await SqliteDatabase.open(':memory:', options), cleanup: async () => {} }
    const directory = mkdtempSync(join(tmpdir(), 'book-test-'))
    const database = await SqliteDatabase.open(join(directory, 'books.db'), options)
    return { database, cleanup: async () => rmSync(directory, { recursive: true, force: true }) }
  }
  const scratch = await createPostgresDatabase()
  const database = await PostgresDatabase.open(scratch.url, { poolSize: 5, startupTimeoutMs: 0, ...options })
  return { database, cleanup: () => scratch.drop() }
}
