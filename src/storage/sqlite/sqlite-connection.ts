import { closeSync, openSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import { keepPrivate, makeFolder, PRIVATE_FILE_MODE, PRIVATE_FOLDER_MODE } from '../files.js'
import { isUpToDate, migrateToLatest } from '../schema/migrate.js'
import { inOneTransaction } from './sqlite-migration-transaction.js'

/** How long a connection waits for another one's write lock before failing `SQLITE_BUSY`, in ms. */
export const BUSY_TIMEOUT_MS = 5000

/**
 * Opens a connection to the SQLite database at `path` with the pragmas every connection of the
 * service uses (the one place they are set): WAL journal (readers never block the writer),
 * `synchronous=FULL` (a commit is on disk when it returns: docs/contract.md "Everything else"), and a
 * {@link BUSY_TIMEOUT_MS} busy timeout. Used by the store, its writer thread and the transfers.
 *
 * @param options.fileMustExist fail when there is no database file instead of creating it.
 * @throws when the file cannot be opened or is not a database.
 */
export function openConnection(path: string, options: { fileMustExist?: boolean } = {}): Database.Database {
  const db = new Database(path, { fileMustExist: options.fileMustExist ?? false })
  try {
    // The busy timeout first: switching a new file to WAL needs a moment's exclusive lock, which
    // another process opening the same file at once may hold.
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
    retryWhileBusy(() => db.pragma('journal_mode = WAL'))
    db.pragma('synchronous = FULL')
    return db
  } catch (error) {
    db.close()
    throw error
  }
}

/** The migrations recorded as applied in `db` (none when the history table does not exist yet). */
function appliedMigrations(db: Database.Database): string[] {
  const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kysely_migration'").get()
  return table === undefined ? [] : (db.prepare('SELECT name FROM kysely_migration').pluck().all() as string[])
}

/** How long a connection keeps retrying while other processes hold the database locked, in ms. */
export const BUSY_RETRY_MS = 60_000

/** True when `error` is SQLite's "database is locked" (`SQLITE_BUSY` and its extended codes). */
export function isBusy(error: unknown): boolean {
  return (error as { code?: unknown }).code?.toString().startsWith('SQLITE_BUSY') ?? false
}

/**
 * Runs `work` until it does not fail with `SQLITE_BUSY`, for up to {@link BUSY_RETRY_MS}: each
 * try already waits {@link BUSY_TIMEOUT_MS} for the lock, and some waits (a switch of journal
 * mode, an upgrade from a read) get `SQLITE_BUSY` at once. Blocks the thread (a start-up step, or
 * the writer thread).
 *
 * @throws the last `SQLITE_BUSY` once the time is up, or any other error at once.
 */
export function retryWhileBusy<T>(work: () => T): T {
  const deadline = Date.now() + BUSY_RETRY_MS
  for (;;) {
    try {
      return work()
    } catch (error) {
      if (!isBusy(error) || Date.now() > deadline) throw error
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10)
    }
  }
}

/**
 * Applies the pending migrations to `db`, all in one `BEGIN IMMEDIATE` transaction: processes
 * that open a new (or older) file at the same moment take turns, and the second finds the work
 * done (it checks again once it holds the lock), so neither meets a half-made schema. Kysely is
 * loaded only when there is something to migrate (it costs ~100 ms of start-up).
 *
 * @throws when a migration fails (everything is rolled back).
 */
export async function migrateConnection(db: Database.Database): Promise<void> {
  if (isUpToDate(appliedMigrations(db))) return
  retryWhileBusy(() => db.exec('BEGIN IMMEDIATE'))
  try {
    if (!isUpToDate(appliedMigrations(db))) {
      const { Kysely, SqliteDialect } = await import('kysely')
      await migrateToLatest(new Kysely<unknown>({ dialect: new SqliteDialect({ database: inOneTransaction(db) }) }), 'sqlite')
    }
    db.exec('COMMIT')
  } catch (error) {
    if (db.inTransaction) db.exec('ROLLBACK')
    throw error
  }
}

/**
 * Opens the database at `path` as {@link openConnection} does, creating it first when missing
 * (its folder with mode 0700, the file itself with mode 0600; SQLite gives `-wal` and `-shm` the
 * file's mode), and setting mode 0600 on the file, its `-wal` and `-shm` when they have another, then applies pending migrations: what the store, `book-service migrate`,
 * `book-service user` and `book-service import` all start with.
 *
 * @throws when the file cannot be created or opened, or a migration fails (the connection is closed).
 */
export async function openMigrated(path: string): Promise<Database.Database> {
  if (path !== ':memory:') {
    makeFolder(dirname(path), PRIVATE_FOLDER_MODE)
    closeSync(openSync(path, 'a', PRIVATE_FILE_MODE))
    // Before SQLite opens it: it gives the `-wal` and `-shm` it creates the file's mode. Files
    // already there with another mode (an older release, another umask) are made private too.
    for (const file of [path, `${path}-wal`, `${path}-shm`]) keepPrivate(file)
  }
  const db = openConnection(path)
  try {
    await migrateConnection(db)
    return db
  } catch (error) {
    db.close()
    throw error
  }
}
