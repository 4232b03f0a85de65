import type pg from 'pg'
import { insertValues, patchValues, bookStatements } from '../sql/book-statements.js'
import type { RestoreOutcome } from '../contracts/book-history.js'
import { isRestorable } from '../../book/validation.js'
import { historyStatements, revivedVersion } from '../sql/book-history-statements.js'
import type { VersionedBook } from '../contracts/book-store.js'
import { inTransaction } from './postgres-transaction.js'

/** The history's statements on PostgreSQL (../sql/book-history-statements.ts). */
const SQL = historyStatements('postgres')
/** The book statements on PostgreSQL (../sql/book-statements.ts). */
const BOOK_SQL = bookStatements('postgres')

/** PostgreSQL's `unique_violation`: two restores stored the same deleted book again at once. */
const UNIQUE_VIOLATION = '23505'

/**
 * `BookStore.restore` on PostgreSQL: one transaction on a client of `pool`. The book's row is
 * locked (`FOR UPDATE`) before its version is compared, so of two restores naming the same
 * `If-Match` version exactly one writes. The transaction sets its change context (`context`: the
 * JSON text of `ChangeContext`, `restored_from` included) before the write, for the triggers that
 * write and fill its change-log row. Two restores bringing back the same deleted book at once: the
 * second's insert fails on the id, and it is run again, now as an update of the book the first stored.
 */
export async function restoreBook(
  pool: pg.Pool,
  queryTimeoutMs: number,
  id: number,
  version: number,
  expectedVersion: number | undefined,
  context: string
): Promise<RestoreOutcome> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await inTransaction(pool, queryTimeoutMs, async (query) => {
        const [target] = await query<{ title: string; author: string; year: number }>(SQL.version, [id, version])
        if (!target) return { outcome: (await query(SQL.any, [id])).length > 0 ? 'versionNotFound' : 'noHistory' }
        if (!isRestorable(target)) return { outcome: 'unrestorable' }
        const [current] = await query<{ version: number }>('SELECT version FROM books WHERE id = $1 FOR UPDATE', [id])
        if (current && expectedVersion !== undefined && current.version !== expectedVersion) return { outcome: 'stale' }
        await query("SELECT set_config('book_service.change_context', $1, true)", [context])
        let book: VersionedBook
        if (current) {
          ;[book] = (await query<VersionedBook>(BOOK_SQL.update, [...patchValues(target), id])) as [VersionedBook]
        } else {
          const [last] = await query<{ operation: string; version: number }>(SQL.last, [id])
          ;[book] = (await query<VersionedBook>(SQL.revive, [id, ...insertValues(target), revivedVersion(last!)])) as [VersionedBook]
        }
        return { outcome: 'restored', book: { ...book, id: Number(book.id) }, revived: !current }
      })
    } catch (error) {
      if (attempt === 1 && (error as { code?: string }).code === UNIQUE_VIOLATION) continue
      throw error
    }
  }
}
