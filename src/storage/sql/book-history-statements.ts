import { HISTORY_START, type HistoryEntry, type HistoryPage } from '../contracts/book-history.js'
import { STORED_COLUMNS, VERSIONED_COLUMNS, placeholders } from './book-statements.js'
import type { Engine } from '../contracts/engine.js'

/*
 * A book's history read from the change log (`book_changes`), for both engines: the statements,
 * the one mapping of a log row to a history entry, and the reading of a page. What a history is
 * (its entries, pages and the restore's outcomes) is the contract's: contracts/book-history.ts.
 */

/** A row of the history statements (ids and numbers as JavaScript numbers once read). */
export interface HistoryRow {
  /**
   * The row's history key, its place in its book's history: `seq` on SQLite; `change_id` on PostgreSQL, which is
   * drawn when the row is written, so a change is in its book's history as soon as it commits,
   * before the sequencer numbers it (docs/change-feed.md "Change log"). Either grows with each change of a book.
   */
  history_key: number
  operation: 'created' | 'updated' | 'deleted'
  version: number
  title: string | null
  author: string | null
  year: number | null
  changed_at: string
  actor: string | null
  restored_from: number | null
}

/**
 * The {@link HistoryEntry} of a change-log row of book `bookId`: the one place the log's rows
 * become history entries.
 *
 * - Version: the log stores, for a delete, the version the book had when it was deleted; a delete
 *   is a change of its own, so the history shows it as that version + 1 (docs/contract.md:
 *   "every change gives the book a new version, one more than its last, a delete … included").
 *   Every other row's version is the book's version after the change, as stored.
 * - Operation: a row whose `restored_from` is set was written by a restore (`BookStore.restore`,
 *   the change context's `restoredFrom`);
 *   the log (and the change feed) keep its `created` or `updated`, the history shows `restored`.
 */
export function historyEntryOf(bookId: number, row: HistoryRow): HistoryEntry {
  const deleted = row.operation === 'deleted'
  return {
    version: deleted ? Number(row.version) + 1 : Number(row.version),
    operation: row.restored_from !== null && row.restored_from !== undefined ? 'restored' : row.operation,
    at: row.changed_at,
    actor: row.actor,
    book: deleted ? null : { id: bookId, title: row.title!, author: row.author!, year: Number(row.year) }
  }
}

/**
 * The version a book that has no row in `books` comes back with: one more than its newest history
 * entry's version as {@link historyEntryOf} shows it. For a deleted book (the usual case) that is
 * the version stored with the delete + 2.
 *
 * @param last the operation and stored version of the book's newest change-log row.
 */
export function revivedVersion(last: { operation: string; version: number }): number {
  return Number(last.version) + (last.operation === 'deleted' ? 2 : 1)
}

/**
 * The one description of the history's statements, for both engines (the log's table of
 * migration 0004; the indexes of migration 0008 make each a range read of
 * one book). Parameters, in order:
 * - `page`: book id, before key, limit: the book's rows below that history key, newest first ({@link HistoryRow});
 * - `any`: book id: a row when the book has any history;
 * - `version`: book id, version: the title, author and year of the newest non-`deleted` row with that version;
 * - `last`: book id: the operation and version of the book's newest row;
 * - `revive`: id, the insert values (book-statements.ts `insertValues`), version: a deleted book stored again under its id
 *   (PostgreSQL's identity column needs `OVERRIDING SYSTEM VALUE`); returns {@link VERSIONED_COLUMNS}.
 */
export function historyStatements(engine: Engine) {
  const [first, second, third] = placeholders(engine, 3)
  // A book's rows in change order ({@link HistoryRow} `history_key`): PostgreSQL numbers `seq` after
  // commit, so a change just acknowledged may have none yet; its `change_id` is there at once.
  const historyKey = engine === 'postgres' ? 'change_id' : 'seq'
  return {
    page: `SELECT ${historyKey} AS history_key, operation, version, title, author, year, changed_at, actor, restored_from FROM book_changes
      WHERE book_id = ${first} AND ${historyKey} < ${second} ORDER BY ${historyKey} DESC LIMIT ${third}`,
    any: `SELECT 1 FROM book_changes WHERE book_id = ${first} LIMIT 1`,
    version: `SELECT title, author, year FROM book_changes
      WHERE book_id = ${first} AND version = ${second} AND operation <> 'deleted' ORDER BY ${historyKey} DESC LIMIT 1`,
    last: `SELECT operation, version FROM book_changes WHERE book_id = ${first} ORDER BY ${historyKey} DESC LIMIT 1`,
    revive: `INSERT INTO books (id, ${STORED_COLUMNS}, version)${engine === 'postgres' ? ' OVERRIDING SYSTEM VALUE' : ''}
      VALUES (${placeholders(engine, 7).join(', ')}) RETURNING ${VERSIONED_COLUMNS}`
  }
}

/**
 * Reads one page of a history with `readRows` (the `page` statement of {@link historyStatements}):
 * asks for one row more than `limit`, so the extra row tells whether another page follows.
 *
 * @param before the history key the page starts below ({@link HISTORY_START} for the first page).
 * @returns the page, or undefined when the book has no history at all (`hasAny` said so).
 */
export async function readHistoryPage(
  bookId: number,
  before: number,
  limit: number,
  readRows: (bookId: number, before: number, limit: number) => Promise<HistoryRow[]>,
  hasAny: (bookId: number) => Promise<boolean>
): Promise<HistoryPage | undefined> {
  const rows = await readRows(bookId, before, limit + 1)
  if (rows.length === 0 && (before === HISTORY_START || !(await hasAny(bookId)))) return undefined
  const more = rows.length > limit
  if (more) rows.length = limit
  const page: HistoryPage = { entries: rows.map((row) => historyEntryOf(bookId, row)) }
  if (more) page.next = Number(rows[rows.length - 1]!.history_key)
  return page
}
