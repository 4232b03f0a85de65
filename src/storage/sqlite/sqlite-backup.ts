import { existsSync, linkSync } from 'node:fs'
import Database from 'better-sqlite3'
import { BackupError, type RestoredBackup } from '../contracts/backup.js'
import { createPrivateFile, replaceAtomically } from '../files.js'
import { MIGRATION_NAMES } from '../schema/migrate.js'
import { BUSY_TIMEOUT_MS, migrateConnection } from './sqlite-connection.js'

/**
 * Opens the SQLite file at `path` read-only and checks it is a book-service database that this
 * version can serve: `PRAGMA integrity_check` answers `ok`, and every migration it records is
 * one this version knows (pending ones are applied when it is restored).
 *
 * @returns how many books it holds.
 * @throws {BackupError} naming what is wrong.
 */
export function checkDatabaseFile(path: string): number {
  let db: Database.Database
  try {
    db = new Database(path, { readonly: true, fileMustExist: true })
  } catch (error) {
    throw new BackupError(`cannot open ${path}: ${(error as Error).message}`)
  }
  try {
    const integrity = db.pragma('integrity_check', { simple: true }) as string
    if (integrity !== 'ok') throw new BackupError(`${path} fails PRAGMA integrity_check: ${integrity}`)
    const hasHistory = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kysely_migration'").get()
    if (!hasHistory) throw new BackupError(`${path} is not a book-service database (no migration history)`)
    const unknown = (db.prepare('SELECT name FROM kysely_migration').pluck().all() as string[]).filter(
      (name) => !MIGRATION_NAMES.includes(name)
    )
    if (unknown.length > 0) {
      throw new BackupError(`${path} was made by a newer book-service (unknown migrations: ${unknown.join(', ')})`)
    }
    return db.prepare('SELECT count(*) FROM books').pluck().get() as number
  } catch (error) {
    if (error instanceof BackupError) throw error
    throw new BackupError(`${path} is not a usable database: ${(error as Error).message}`)
  } finally {
    db.close()
  }
}

/**
 * `book-service backup` on SQLite (docs/data.md "Backups and moving data"): a consistent snapshot of the
 * database at `databasePath` written to `file`, while a service may be running and writing.
 *
 * The snapshot is SQLite's `VACUUM INTO`: one read transaction, so it holds exactly the writes
 * committed when it began (every write acknowledged before the command started); in WAL mode a
 * reader never blocks the writer, so the service's group commits go on meanwhile. It is written
 * to a temporary name beside `file` (mode 0600), passes `PRAGMA integrity_check`, is synced,
 * then renamed into place (an existing `file` is replaced only then).
 *
 * @returns how many books the backup holds.
 * @throws {BackupError} when there is no database, or the snapshot fails its checks (nothing is left behind).
 */
export async function backupSqlite(databasePath: string, file: string): Promise<number> {
  if (!existsSync(databasePath)) throw new BackupError(`no database at ${databasePath} (DATABASE_URL)`)
  const db = new Database(databasePath, { fileMustExist: true })
  try {
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
    return await replaceAtomically(file, (temporary) => {
      createPrivateFile(temporary) // VACUUM INTO accepts an empty file: ours, private
      db.prepare('VACUUM INTO ?').run(temporary)
      return checkDatabaseFile(temporary)
    })
  } finally {
    db.close()
  }
}

/** The tables whose `AUTOINCREMENT` numbers are never reused: book ids, change-log numbers. */
const SEQUENCED_TABLES = ['books', 'book_changes']

/**
 * Moves the id sequence and the change log's numbering of the database file `copy` up to those
 * of the `current` connection's, so a restored database never hands out an id the replaced one
 * already had (docs/contract.md "Ids"), nor a change number (docs/change-feed.md "Change log").
 */
function carryIdSequence(current: Database.Database, copy: string): void {
  const db = new Database(copy)
  try {
    for (const table of SEQUENCED_TABLES) {
      const used = current.prepare('SELECT seq FROM sqlite_sequence WHERE name = ?').pluck().get(table) as number | undefined
      if (used === undefined) continue
      db.prepare('UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?').run(used, table)
      db.prepare('INSERT INTO sqlite_sequence (name, seq) SELECT ?, ? WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?)').run(table, used, table)
    }
  } finally {
    db.close()
  }
}

/**
 * Opens the database at `path` and holds it exclusively (`BEGIN EXCLUSIVE`: a service starting
 * meanwhile waits). Leaving WAL mode first needs every other connection closed, which makes it
 * the running-service check; it also folds the `-wal` file into the database file, so a copy of
 * the file is complete.
 *
 * @returns the connection, in its exclusive transaction (the caller rolls back and closes it).
 * @throws {BackupError} when another connection (a running service) has the database open.
 */
function lockExclusively(path: string): Database.Database {
  const db = new Database(path, { fileMustExist: true })
  try {
    db.pragma('busy_timeout = 0')
    db.pragma('journal_mode = DELETE')
    db.exec('BEGIN EXCLUSIVE')
    return db
  } catch (error) {
    db.close()
    if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) {
      throw new BackupError(`${path} is in use: a running book-service (or another program) has it open; stop it, then restore`)
    }
    throw error
  }
}

/**
 * `book-service restore` on SQLite (docs/data.md "Backups and moving data"): replaces the database at
 * `databasePath` with the backup `file`.
 *
 * Order: check the backup ({@link checkDatabaseFile}); copy it beside the database under a
 * temporary name with SQLite's backup API and apply pending migrations to the copy; then make
 * sure no service holds the database: switching it out of WAL mode needs every other connection
 * closed, so while a service has it open SQLite answers "database is locked" and the restore
 * stops, changing nothing. Holding an exclusive lock meanwhile (a service starting now waits),
 * it carries the id sequence over (so ids handed out after the backup are never handed out
 * again), keeps the current database beside it as `<name>.before-restore-<time>` (a hard link),
 * then renames the copy into place.
 *
 * @returns the books restored and where the old database is kept.
 * @throws {BackupError} when the backup is unusable or a service holds the database.
 */
export async function restoreSqlite(databasePath: string, file: string): Promise<RestoredBackup> {
  const books = checkDatabaseFile(file)
  const source = new Database(file, { readonly: true, fileMustExist: true })
  let current: Database.Database | undefined
  try {
    return await replaceAtomically(databasePath, async (temporary) => {
      createPrivateFile(temporary)
      await source.backup(temporary)
      const copy = new Database(temporary)
      try {
        await migrateConnection(copy)
      } finally {
        copy.close()
      }
      if (!existsSync(databasePath)) return { books, previous: undefined }
      current = lockExclusively(databasePath)
      carryIdSequence(current, temporary)
      const previous = `${databasePath}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`
      linkSync(databasePath, previous)
      return { books, previous }
    })
  } finally {
    source.close()
    if (current?.inTransaction) current.exec('ROLLBACK')
    current?.close()
  }
}
