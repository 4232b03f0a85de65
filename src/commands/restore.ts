import { isPostgresUrl } from '../config.js'
import { EXIT_NOT_SUPPORTED } from './backup.js'
import { configOrExit, fail } from '../serve.js'
import { BackupError, restoreSqlite } from '../storage/sqlite/backup.js'

/**
 * `book-service restore FILE` (issue 14, SQLite): replaces the database at `DATABASE_URL` with
 * the backup FILE (see {@link restoreSqlite}: integrity and migrations checked first, refused
 * while a service holds the database, the old file kept beside it). Prints one line; exits 1
 * with one line when refused or failed (the database is then unchanged), 2 on PostgreSQL.
 */
export async function restoreCommand(file: string): Promise<void> {
  const config = configOrExit()
  if (isPostgresUrl(config.DATABASE_URL)) {
    process.stderr.write('book-service: on PostgreSQL restore a pg_dump backup with pg_restore (e.g. pg_restore --clean --dbname="$DATABASE_URL" FILE)\n')
    process.exit(EXIT_NOT_SUPPORTED)
  }
  try {
    const { books, previous } = await restoreSqlite(config.DATABASE_URL, file)
    const kept = previous ? `; the previous database is kept as ${previous}` : ''
    process.stdout.write(`book-service: restored ${books} books from ${file} into ${config.DATABASE_URL}${kept}\n`)
  } catch (error) {
    fail(error instanceof BackupError ? `restore refused: ${error.message}` : `restore failed: ${(error as Error).message}`)
  }
}
