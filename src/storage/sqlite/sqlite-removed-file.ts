import { existsSync, linkSync, rmSync } from 'node:fs'
import type Database from 'better-sqlite3'
import { createPrivateFile } from '../files.js'
import type { FileChange } from './sqlite-file-identity.js'
import type { WriteError } from './sqlite-group-commit.js'

/**
 * Saves what was committed when the database file or its `-wal` was removed under the service
 * (docs/operations.md "Readiness"), through the connection `db`, which still has the removed files open:
 *
 * - a checkpoint (`wal_checkpoint(TRUNCATE)`) first copies every commit of the write-ahead log,
 *   the removed one included, into the database file and empties the log, so a log removed with
 *   `rm books.db-wal` loses nothing and leaves no stale log for the next start to replay;
 * - when the database file itself was removed, its contents (the ids' sequence included, so no id
 *   is handed out again) are written to a new file (`VACUUM INTO`) and linked at `path`, only if
 *   nothing is there yet (an existing file is never overwritten). The removed database's `-wal` and
 *   `-shm` are removed from beside it first: this process's other connections still write to that
 *   log (a login counter, the webhook dispatcher's lease), and SQLite replays a log it finds beside
 *   a database file into it at the next start, which would corrupt the saved file with pages of the
 *   removed one. While nothing is at `path`, they can belong to no other database.
 *
 * The service's writes are refused from then on, until it is restarted on the file at `path`.
 *
 * @returns what was done, in words, for the log line.
 */
export function keepCommittedData(db: Database.Database, path: string, change: FileChange): string {
  try {
    const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as Array<{ busy: number }>
    if (result?.busy) return 'its committed data could not be checkpointed (another connection is reading); stop every process using it'
    if (change.database !== 'removed') return 'the committed data is kept in the database file'
    const copy = `${path}.recovered-${process.pid}`
    rmSync(copy, { force: true })
    createPrivateFile(copy) // VACUUM INTO fills an empty file, keeping its mode: 0600, as the hashes it holds need
    db.prepare('VACUUM INTO ?').run(copy)
    if (!existsSync(path)) for (const stale of [`${path}-wal`, `${path}-shm`]) rmSync(stale, { force: true })
    try {
      linkSync(copy, path)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      return `another file is at its path now; the committed data is kept in ${copy}`
    }
    rmSync(copy, { force: true })
    return `its committed data was written back to ${path}`
  } catch (error) {
    return `saving its committed data failed (${(error as Error).message})`
  }
}

/**
 * What the writes are refused with once `change` was found (docs/operations.md "Readiness"): an
 * emptied database file is damaged (`SQLITE_NOTADB`; nothing can be saved into it, a checkpoint
 * would write part of the database there); a removed or replaced one is `SQLITE_FILE_REMOVED`,
 * after what was committed is saved through `db` ({@link keepCommittedData}), a connection that
 * still has the files it opened. Used by the writer thread, and by the main thread while no
 * writer thread runs yet (sqlite-write-queue.ts).
 */
export function fileRemovedError(db: Database.Database, path: string, change: FileChange): WriteError {
  if (change.database === 'emptied') {
    return { name: 'DatabaseFileDamaged', code: 'SQLITE_NOTADB', message: `the SQLite database ${change.description}` }
  }
  const kept = keepCommittedData(db, path, change)
  return {
    name: 'DatabaseFileRemoved',
    code: 'SQLITE_FILE_REMOVED',
    message: `the SQLite database ${change.description}: writes are refused until the service is restarted; ${kept}`
  }
}
