import { StorageUnavailableError } from '../contracts/database.js'

/** Node and PostgreSQL error codes that mean "the database cannot be reached right now". */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300' // too_many_connections
])

/**
 * node-postgres errors without a code that mean the connection is gone or never came: the socket
 * closed ("Connection terminated unexpectedly"), the connect or pool-wait timeout, a client whose
 * connection already failed, and the per-query read timeout.
 */
const UNREACHABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|connect ECONNREFUSED|not queryable|Query read timeout/i

/**
 * PostgreSQL error codes of a database that answers but cannot store writes right now: a
 * read-only transaction (a standby, `default_transaction_read_only`), a full disk, an I/O error.
 */
const WRITE_REFUSED_CODES = new Set(['25006', '53100', '58030'])

/** `query_canceled`: the statement ran past `statement_timeout`, or was cancelled (`pg_cancel_backend`). */
const STOPPED_CODE = '57014'

/**
 * `Retry-After` of a statement stopped at the bound, in seconds: the default bound itself, as a
 * query that ran that long once is not worth repeating sooner.
 */
export const STOPPED_RETRY_AFTER_SECONDS = 10

/** True when `error` (or its cause) says the database cannot store writes right now (docs/operations.md "Readiness"). */
export function isWriteRefused(error: unknown): boolean {
  const { code, cause } = error as { code?: string; cause?: unknown }
  return (code !== undefined && WRITE_REFUSED_CODES.has(code)) || (cause !== undefined && isWriteRefused(cause))
}

/** True when `error` says the database is unreachable (as opposed to a bug or a bad query). */
export function isUnreachable(error: unknown): boolean {
  const { code, message } = error as { code?: string; message?: string }
  if (code && (UNREACHABLE_CODES.has(code) || code.startsWith('08'))) return true
  return UNREACHABLE_MESSAGES.test(message ?? '')
}

/**
 * The error a failed query is reported as: {@link StorageUnavailableError} (answered 503) when
 * the database is unreachable, refuses writes, or stopped the statement at the query bound (with
 * `Retry-After`), the error itself otherwise (answered 500, logged).
 */
export function classified(error: unknown): unknown {
  if (isUnreachable(error)) return new StorageUnavailableError('PostgreSQL is unreachable', { cause: error })
  if ((error as { code?: string }).code === STOPPED_CODE) {
    return new StorageUnavailableError('PostgreSQL stopped a statement at the query bound', { cause: error, retryAfterSeconds: STOPPED_RETRY_AFTER_SECONDS })
  }
  if (isWriteRefused(error)) return new StorageUnavailableError(`PostgreSQL refuses writes: ${(error as Error).message}`, { cause: error })
  return error
}
