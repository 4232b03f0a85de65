import { isPostgresUrl } from '../config.js'
import type { BookTransfer } from './book-transfer.js'
import { SqliteBookTransfer } from './sqlite/transfer.js'

/**
 * Opens a {@link BookTransfer} on the database `DATABASE_URL` names: an existing SQLite file, or
 * a PostgreSQL URL. It does not create or migrate anything (import migrates before it calls this).
 *
 * @throws when the SQLite file does not exist or PostgreSQL cannot be reached.
 */
export async function openTransfer(databaseUrl: string): Promise<BookTransfer> {
  if (!isPostgresUrl(databaseUrl)) return SqliteBookTransfer.open(databaseUrl)
  // Loaded only when used, as in open.ts.
  const { PostgresBookTransfer } = await import('./postgres/transfer.js')
  return PostgresBookTransfer.open(databaseUrl)
}
