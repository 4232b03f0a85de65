import type Database from 'better-sqlite3'
import type { Book } from '../../book/schema.js'
import { BOOK_COLUMNS, STORED_COLUMNS, type InsertValues } from '../sql/book-statements.js'
import type { ChangeContext } from '../contracts/change-log.js'
import { SQLITE_CONTEXT_STATEMENTS, contextValues } from '../sql/change-log-statements.js'

/** Most books one grouped INSERT stores (5 parameters each, far below SQLite's 32,766). */
export const INSERT_GROUP_MAX = 64

/** One create of a group: the book's values and the context its change-log row is stamped with. */
export interface GroupedCreate {
  values: InsertValues
  context: ChangeContext
}

/**
 * The grouped insert of a connection: `insertGroup(creates)` stores up to {@link INSERT_GROUP_MAX}
 * books with one `INSERT … VALUES (…), (…) RETURNING`, then stamps each one's change-log row with
 * its own context (`ChangeContext`), and returns the books in the order of `creates`. It must run
 * inside a transaction (the group commit's).
 *
 * Why one statement: a statement that fires the triggers of `books` opens a statement savepoint,
 * and the search index's FTS5 table (migration 0009) writes out what it holds in memory at every
 * savepoint, so one INSERT per book makes one index segment per book, each merged again later,
 * the largest part of a create's cost. One INSERT for the group leaves the group's rows in
 * memory until the commit writes them as one segment. The triggers, the index and the log rows
 * are the same as with one INSERT per book (docs/search.md "Search", docs/change-feed.md "Change log").
 *
 * Which row is whose: `books.id` is `AUTOINCREMENT` (migration 0001), so the rows of one INSERT
 * take ascending ids in the order of its VALUES; the returned rows are put in id order, whatever
 * order RETURNING gives them in. The log rows numbered after the group's start are the group's
 * (one per book, written by its trigger); each is stamped with the context of its `book_id`.
 *
 * @throws the statement's error (nothing of the group is stored; the group commit then runs each
 *   write alone in its own savepoint).
 */
export function groupedInsert(db: Database.Database): (creates: readonly GroupedCreate[]) => Book[] {
  const inserts = new Map<number, Database.Statement<unknown[], Book>>()
  const lastSeq = db.prepare<[], number>(SQLITE_CONTEXT_STATEMENTS.lastSeq).pluck()
  const rowsAfter = db.prepare<[number], { seq: number; book_id: number }>(SQLITE_CONTEXT_STATEMENTS.rowsAfter)
  const stampRow = db.prepare(SQLITE_CONTEXT_STATEMENTS.stampRow)
  const insertOf = (count: number) => {
    let statement = inserts.get(count)
    if (!statement) {
      const rows = Array.from({ length: count }, () => '(?, ?, ?, ?, ?)').join(', ')
      statement = db.prepare<unknown[], Book>(`INSERT INTO books (${STORED_COLUMNS}) VALUES ${rows} RETURNING ${BOOK_COLUMNS}`)
      inserts.set(count, statement)
    }
    return statement
  }
  return (creates) => {
    if (creates.length > INSERT_GROUP_MAX) throw new RangeError(`a grouped insert stores at most ${INSERT_GROUP_MAX} books`)
    const before = lastSeq.get()!
    const books = insertOf(creates.length).all(...creates.flatMap((create) => create.values))
    books.sort((a, b) => a.id - b.id)
    const contexts = new Map(books.map((book, index) => [book.id, creates[index]!.context]))
    for (const row of rowsAfter.all(before)) {
      const context = contexts.get(row.book_id)
      if (context) stampRow.run(...contextValues(context), row.seq)
    }
    return books
  }
}
