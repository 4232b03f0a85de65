import { spawn } from 'node:child_process'
import { chmodSync } from 'node:fs'
import type { PgDumpOutcome } from '../contracts/backup.js'
import { replaceAtomically } from '../files.js'

/** Stops {@link replaceAtomically} when pg_dump did not succeed (nothing is kept). */
class PgDumpFailed extends Error {
  constructor(readonly outcome: PgDumpOutcome) {
    super(`pg_dump ${outcome === 'missing' ? 'is not installed' : `failed (exit ${outcome})`}`)
  }
}

/** Runs `pg_dump --format=custom` of `url` into `file`; its output goes to this process's. */
function pgDump(url: string, file: string): Promise<PgDumpOutcome> {
  return new Promise((resolve) => {
    const child = spawn('pg_dump', ['--format=custom', `--file=${file}`, `--dbname=${url}`], {
      stdio: ['ignore', 'inherit', 'inherit']
    })
    child.on('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ENOENT' ? 'missing' : 1))
    child.on('exit', (code) => resolve(code ?? 1))
  })
}

/**
 * `book-service backup` on PostgreSQL: `pg_dump --format=custom` of the database at `url` into
 * `file`, written under a temporary name, mode 0600, and renamed into place once pg_dump
 * succeeded (an existing `file` is replaced only then).
 *
 * @returns 0 when the backup is written; `'missing'` when pg_dump is not installed, else the
 *   exit code of pg_dump (nothing is written then).
 * @throws the file system's error when the finished dump cannot be moved into place.
 */
export async function backupPostgres(url: string, file: string): Promise<PgDumpOutcome> {
  try {
    await replaceAtomically(file, async (temporary) => {
      const outcome = await pgDump(url, temporary)
      if (outcome !== 0) throw new PgDumpFailed(outcome)
      chmodSync(temporary, 0o600)
    })
    return 0
  } catch (error) {
    if (error instanceof PgDumpFailed) return error.outcome
    throw error
  }
}
