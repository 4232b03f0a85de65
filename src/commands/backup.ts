import { spawn } from 'node:child_process'
import { chmodSync, renameSync, rmSync } from 'node:fs'
import { dirname } from 'node:path'
import { isPostgresUrl } from '../config.js'
import { configOrExit, fail } from '../serve.js'
import { BackupError, backupSqlite, syncPath, temporaryName } from '../storage/sqlite/backup.js'

/** Exit code when the command does not apply to the configured engine (PostgreSQL without pg_dump). */
export const EXIT_NOT_SUPPORTED = 2

/**
 * Runs `pg_dump` (custom format) of `url` into `file`: to a temporary name first, mode 0600,
 * renamed into place once pg_dump succeeded.
 *
 * @returns `'missing'` when pg_dump is not installed (not on PATH), else the exit code of pg_dump.
 */
function pgDump(url: string, file: string): Promise<number | 'missing'> {
  const temporary = temporaryName(file)
  return new Promise((resolve) => {
    const child = spawn('pg_dump', ['--format=custom', `--file=${temporary}`, `--dbname=${url}`], {
      stdio: ['ignore', 'inherit', 'inherit']
    })
    child.on('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ENOENT' ? 'missing' : 1))
    child.on('exit', (code) => {
      if (code !== 0) {
        rmSync(temporary, { force: true })
        return resolve(code ?? 1)
      }
      chmodSync(temporary, 0o600)
      syncPath(temporary)
      renameSync(temporary, file)
      syncPath(dirname(file))
      resolve(0)
    })
  })
}

/**
 * `book-service backup FILE` (issue 14): on SQLite, a consistent snapshot of the database while
 * the service runs (see {@link backupSqlite}); prints one line with the number of books. On
 * PostgreSQL, runs `pg_dump --format=custom` when it is installed; otherwise says in one line
 * that pg_dump is the tool and exits 2. Exits 1 with one line on any failure.
 */
export async function backupCommand(file: string): Promise<void> {
  const config = configOrExit()
  if (isPostgresUrl(config.DATABASE_URL)) {
    const code = await pgDump(config.DATABASE_URL, file)
    if (code === 'missing') {
      process.stderr.write('book-service: on PostgreSQL back up with pg_dump (e.g. pg_dump --format=custom --file=FILE "$DATABASE_URL"); pg_dump is not installed here\n')
      process.exit(EXIT_NOT_SUPPORTED)
    }
    if (code !== 0) fail(`pg_dump failed (exit ${code}); no backup written`)
    process.stdout.write(`book-service: PostgreSQL backup written to ${file} by pg_dump (restore it with pg_restore)\n`)
    return
  }
  try {
    const books = backupSqlite(config.DATABASE_URL, file)
    process.stdout.write(`book-service: backup of ${books} books written to ${file} (integrity ok)\n`)
  } catch (error) {
    fail(error instanceof BackupError ? error.message : `backup failed: ${(error as Error).message}`)
  }
}
