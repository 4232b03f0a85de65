import { isPostgresUrl, type Config } from '../config.js'
import type { BookStore } from './book-store.js'
import { SqliteBookStore } from './sqlite/store.js'

/**
 * Opens the {@link BookStore} that `DATABASE_URL` names and brings its schema up to date.
 *
 * @param config `DATABASE_URL` (a SQLite file path, `:memory:`, or a `postgres://` /
 *   `postgresql://` URL), and for PostgreSQL the pool size and the start-up retry time (seconds).
 * @param onRetry told of each start-up retry while PostgreSQL is unreachable.
 * @param onConnectionError told when a pooled PostgreSQL connection fails between requests
 *   (already discarded; the next query reconnects).
 * @throws when the storage cannot be opened (after the retry time) or migrated.
 */
export async function openStore(
  config: Pick<Config, 'DATABASE_URL' | 'DATABASE_POOL_SIZE' | 'DATABASE_STARTUP_TIMEOUT'>,
  onRetry?: (error: unknown, delayMs: number) => void,
  onConnectionError?: (error: unknown) => void
): Promise<BookStore> {
  if (isPostgresUrl(config.DATABASE_URL)) {
    // Loaded only when used: node-postgres and Kysely add ~150 ms to every SQLite start otherwise.
    const { PostgresBookStore } = await import('./postgres/store.js')
    return PostgresBookStore.open(config.DATABASE_URL, {
      poolSize: config.DATABASE_POOL_SIZE,
      startupTimeoutMs: config.DATABASE_STARTUP_TIMEOUT * 1000,
      onRetry,
      onConnectionError
    })
  }
  return SqliteBookStore.open(config.DATABASE_URL)
}
