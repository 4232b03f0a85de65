import type { BookChange, ChangeContext, ChangeOperation } from '../contracts/change-log.js'
import { placeholders } from './book-statements.js'
import type { Engine } from '../contracts/engine.js'

/**
 * The one description of the change log's statements (tables of migration 0004), for both
 * engines; each engine compiles them in its change log (`sqlite-change-log.ts`, `postgres-change-log.ts`). Parameters, in order:
 * - `after`: after seq, limit: the rows numbered above it, ascending ({@link ChangeRow});
 * - `changedBooks`: after seq, limit: the seq and book id of those rows (cache invalidation);
 * - `horizon`: none: `trimmed_through` and `last_seq` (the highest number committed, or the
 *   trimmed one when retention emptied the log);
 * - `oldest`: limit: the seq and time of the oldest numbered rows, ascending (what retention looks
 *   at; PostgreSQL's rows waiting for a number are never removed);
 * - `trim`: through seq: removes the rows up to it; `trimmed`: through seq: records it.
 */
export function changeLogStatements(engine: Engine) {
  const [first, second] = placeholders(engine, 2)
  const greatest = engine === 'sqlite' ? 'max' : 'GREATEST'
  return {
    after: `SELECT seq, book_id, operation, version, title, author, year, changed_at, ${CONTEXT_COLUMN_LIST} FROM book_changes
      WHERE seq > ${first} ORDER BY seq LIMIT ${second}`,
    changedBooks: `SELECT seq, book_id FROM book_changes WHERE seq > ${first} ORDER BY seq LIMIT ${second}`,
    horizon: `SELECT trimmed_through, ${greatest}(trimmed_through, COALESCE((SELECT max(seq) FROM book_changes), 0)) AS last_seq
      FROM book_change_horizon`,
    oldest: `SELECT seq, changed_at FROM book_changes WHERE seq IS NOT NULL ORDER BY seq LIMIT ${first}`,
    trim: `DELETE FROM book_changes WHERE seq <= ${first}`,
    trimmed: `UPDATE book_change_horizon SET trimmed_through = ${greatest}(trimmed_through, ${first})`
  }
}

/**
 * The column of `book_changes` each field of a {@link ChangeContext} is recorded in (migration
 * 0007; `restoredFrom`: 0008; the mechanism: `ChangeContext` in contracts/change-log.ts). A field added to `ChangeContext` must
 * be added here, which the type enforces.
 */
export const CHANGE_CONTEXT_COLUMNS = {
  actor: 'actor',
  requestId: 'request_id',
  restoredFrom: 'restored_from'
} as const satisfies { readonly [Field in keyof ChangeContext]-?: string }

const CONTEXT_FIELDS = Object.keys(CHANGE_CONTEXT_COLUMNS) as (keyof ChangeContext)[]
const CONTEXT_COLUMN_LIST = CONTEXT_FIELDS.map((field) => CHANGE_CONTEXT_COLUMNS[field]).join(', ')

/** The values of `context` in the order of {@link CHANGE_CONTEXT_COLUMNS}. */
export function contextValues(context: ChangeContext): (string | number | null)[] {
  return CONTEXT_FIELDS.map((field) => context[field] ?? null)
}

/** `context` as the JSON object PostgreSQL's trigger reads: its columns' names and values. */
export function contextObject(context: ChangeContext): Record<string, string | number | null> {
  return Object.fromEntries(CONTEXT_FIELDS.map((field) => [CHANGE_CONTEXT_COLUMNS[field], context[field] ?? null]))
}

const CONTEXT_ASSIGNMENTS = CONTEXT_FIELDS.map((field) => `${CHANGE_CONTEXT_COLUMNS[field]} = ?`).join(', ')

/**
 * SQLite's stamp of a write's log rows (see `ChangeContext`): `stamp` takes the context's values
 * in column order, then the highest seq before the write; `lastSeq` reads that seq (0 when the log
 * is empty). For a grouped insert: `rowsAfter` (that seq) reads the seq and book id of the rows
 * written since, `stampRow` takes the context's values, then one row's seq. Each looks rows up by
 * `seq` (the rowid) alone: a parameter compared with an indexed column would make SQLite prepare
 * the statement again for every new value once `ANALYZE` has written `sqlite_stat4`.
 */
export const SQLITE_CONTEXT_STATEMENTS = {
  lastSeq: 'SELECT COALESCE(max(seq), 0) FROM book_changes',
  stamp: `UPDATE book_changes SET ${CONTEXT_ASSIGNMENTS} WHERE seq > ?`,
  rowsAfter: 'SELECT seq, book_id FROM book_changes WHERE seq > ? ORDER BY seq',
  stampRow: `UPDATE book_changes SET ${CONTEXT_ASSIGNMENTS} WHERE seq = ?`
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
  actor: string | null
  request_id: string | null
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
    changedAt: row.changed_at,
    actor: row.actor,
    requestId: row.request_id
  }
}
