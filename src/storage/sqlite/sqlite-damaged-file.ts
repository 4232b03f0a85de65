import { StorageUnavailableError } from '../contracts/database.js'

/**
 * SQLite result codes of a database file whose contents are not a database any more: emptied
 * (`truncate -s 0 books.db`), overwritten or cut short under the service (`SQLITE_NOTADB`,
 * `SQLITE_CORRUPT` and its extended codes). Nothing the service does repairs it: the file must be
 * restored (docs/operations.md "Readiness").
 */
const DAMAGED_CODES = /^SQLITE_(CORRUPT|NOTADB)/

/** True when `error` (or its cause) is SQLite's word that the database file is damaged ({@link DAMAGED_CODES}). */
export function isDamaged(error: unknown): boolean {
  const { code, cause } = (error ?? {}) as { code?: unknown; cause?: unknown }
  return (typeof code === 'string' && DAMAGED_CODES.test(code)) || (cause !== undefined && isDamaged(cause))
}

/** The error the store is unavailable with once `error` showed its file is damaged: one line for the log. */
export function damagedFileError(path: string, error: Error & { code?: string }): StorageUnavailableError {
  return new StorageUnavailableError(
    `the database file ${path} is damaged (${error.code ?? 'SQLITE_CORRUPT'}: ${error.message}); restore it from a backup and restart`,
    { cause: error }
  )
}
