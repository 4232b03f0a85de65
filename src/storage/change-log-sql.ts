import type { BookChange, ChangeOperation } from './change-log.js'
import { placeholders } from './book-sql.js'
import type { Engine } from './engine.js'

/**
 * The one description of the change log's statements (tables of migration 0004), for both
 * engines; each engine compiles them in its `change-log.ts`. Parameters, in order:
 * - `after`: after seq, limit: the rows numbered above it, ascending ({@link ChangeRow});
 * - `changedBooks`: after seq, limit: the seq and book id of those rows (cache invalidation);
 * - `horizon`: none: `trimmed_through` and `last_seq` (the highest number committed, or the
 *   trimmed one when retention emptied the log);
 * - `oldest`: limit: the seq and time of the oldest rows, ascending (what retention looks at);
 * - `trim`: through seq: removes the rows up to it; `trimmed`: through seq: records it.
 */
export function changeLogStatements(engine: Engine) {
  const [first, second] = placeholders(engine, 2)
  const greatest = engine === 'sqlite' ? 'max' : 'GREATEST'
  return {
    after: `SELECT seq, book_id, operation, version, title, author, year, changed_at FROM book_changes
      WHERE seq > ${first} ORDER BY seq LIMIT ${second}`,
    changedBooks: `SELECT seq, book_id FROM book_changes WHERE seq > ${first} ORDER BY seq LIMIT ${second}`,
    horizon: `SELECT trimmed_through, ${greatest}(trimmed_through, COALESCE((SELECT max(seq) FROM book_changes), 0)) AS last_seq
      FROM book_change_horizon`,
    oldest: `SELECT seq, changed_at FROM book_changes ORDER BY seq LIMIT ${first}`,
    trim: `DELETE FROM book_changes WHERE seq <= ${first}`,
    trimmed: `UPDATE book_change_horizon SET trimmed_through = ${greatest}(trimmed_through, ${first})`
  }
}

/** A row of `book_changes` as both engines return it (ids and numbers as JavaScript numbers). */
export interface ChangeRow {
  seq: number
  book_id: number
  operation: ChangeOperation
  version: number
  title: string | null
  author: string | null
  year: number | null
  changed_at: string
}

/** A row of the `horizon` statement. */
export interface HorizonRow {
  trimmed_through: number
  last_seq: number
}

/** The {@link BookChange} a row of `book_changes` records. */
export function bookChangeOf(row: ChangeRow): BookChange {
  return {
    seq: Number(row.seq),
    bookId: Number(row.book_id),
    operation: row.operation,
    version: row.version,
    book: row.operation === 'deleted' ? null : { id: Number(row.book_id), title: row.title!, author: row.author!, year: row.year! },
    changedAt: row.changed_at
  }
}
