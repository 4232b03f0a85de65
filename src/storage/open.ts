import { isPostgresUrl } from '../config.js'
import type { BookStore } from './book-store.js'
import { SqliteBookStore } from './sqlite.js'

/**
 * Opens the {@link BookStore} that `DATABASE_URL` names and brings its schema up to date.
 *
 * @param databaseUrl a SQLite file path (or `:memory:`) or a `postgres://` URL.
 * @throws when the storage cannot be opened or migrated.
 */
export async function openStore(databaseUrl: string): Promise<BookStore> {
  if (isPostgresUrl(databaseUrl)) {
    throw new Error('PostgreSQL storage is not available in this build')
  }
  return SqliteBookStore.open(databaseUrl)
}
