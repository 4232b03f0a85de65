import type pg from 'pg'
import { BOOK_COLUMNS, STORED_COLUMNS, bookStatements, type InsertValues } from '../sql/book-statements.js'
import { classified } from './postgres-errors.js'
import { historyStatements } from '../sql/book-history-statements.js'

/** The fixed statements on PostgreSQL (placeholders `$n`), from the one description in sql/book-statements.ts. */
const SQL = bookStatements('postgres')

/** The history's statements on PostgreSQL (../sql/book-history-statements.ts). */
const HISTORY_SQL = historyStatements('postgres')

/**
 * The change context's CTE (`ChangeContext` in contracts/change-log.ts): sets `book_service.change_context`
 * to parameter `$n` (JSON text of `contextObject`, or an array of them for a group insert) for
 * the rest of the transaction, and restarts the group insert's row count. A statement runs it by
 * naming {@link IN_CONTEXT} in its condition, so the setting is made in the same round trip as
 * the write, before the triggers of its rows read it.
 */
function contextCte(n: number): string {
  return `WITH change_context AS MATERIALIZED (SELECT set_config('book_service.change_context', $${n}, true),
    set_config('book_service.change_context_row', '0', true))`
}
const IN_CONTEXT = 'EXISTS (SELECT FROM change_context)'

/** `statement` (ending in `RETURNING …`, its last placeholder `$n-1`) with the change context as `$n`. */
function inContext(statement: string, n: number): string {
  return `${contextCte(n)} ${statement.replace(/\sRETURNING /, ` AND ${IN_CONTEXT} RETURNING `)}`
}

/** The unnest of one array per {@link STORED_COLUMNS} ($1..$5), numbered `n` in array order. */
const UNNEST_STORED = `unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[])
  WITH ORDINALITY AS batch(title, author, year, title_folded, author_folded, n)`

/**
 * The statements of the PostgreSQL store and transfer (the one place they are compiled), each
 * with the name node-postgres prepares it under on every connection. The group insert is
 * PostgreSQL's own: one multi-row `INSERT … SELECT FROM unnest(…)`, ids drawn in row order.
 */
export const STATEMENTS = {
  page: { name: 'book-page', text: SQL.page },
  get: { name: 'book-get-versioned', text: SQL.get },
  exists: { name: 'book-exists', text: SQL.exists },
  /** The statements of sql/book-statements.ts, then the change context (JSON text) as their last parameter. */
  update: { name: 'book-update-versioned', text: inContext(SQL.update, 7) },
  updateIfVersion: { name: 'book-update-if-version', text: inContext(SQL.updateIfVersion, 8) },
  delete: { name: 'book-delete', text: inContext(SQL.delete, 2) },
  deleteIfVersion: { name: 'book-delete-if-version', text: inContext(SQL.deleteIfVersion, 3) },
  ping: { name: 'ping', text: SQL.ping },
  historyPage: { name: 'book-history-page', text: HISTORY_SQL.page },
  historyAny: { name: 'book-history-any', text: HISTORY_SQL.any },
  /**
   * Arrays of the stored columns ($1..$5), then the JSON array of each row's change context ($6);
   * returns the books (sort them by id for row order).
   */
  insertMany: {
    name: 'book-insert-many',
    text: `${contextCte(6)} INSERT INTO books (${STORED_COLUMNS}) SELECT ${STORED_COLUMNS} FROM ${UNNEST_STORED}
      WHERE ${IN_CONTEXT} ORDER BY n RETURNING ${BOOK_COLUMNS}`
  },
  /** Sets the change context ($1, JSON text) for the rest of the transaction (import). */
  setContext: {
    name: 'book-set-change-context',
    text: "SELECT set_config('book_service.change_context', $1, true)"
  },
  /** The same, returning nothing (import). */
  importMany: {
    name: 'book-import-many',
    text: `INSERT INTO books (${STORED_COLUMNS}) SELECT ${STORED_COLUMNS} FROM ${UNNEST_STORED} ORDER BY n`
  },
  /** Arrays of ids ($1) and the stored columns ($2..$6); rows whose id is taken are skipped; returns the ids stored. */
  importManyKeepingIds: {
    name: 'book-import-many-keeping-ids',
    text: `INSERT INTO books (id, ${STORED_COLUMNS}) OVERRIDING SYSTEM VALUE
      SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::int[], $5::text[], $6::text[])
      ON CONFLICT (id) DO NOTHING RETURNING id`
  },
  /** Moves the id sequence to at least $1 (import with kept ids). */
  moveIdSequence: {
    name: 'book-move-id-sequence',
    text: `SELECT setval(seq, GREATEST($1::bigint, COALESCE(pg_sequence_last_value(seq), 1)))
      FROM (SELECT pg_get_serial_sequence('books', 'id')::regclass AS seq) AS s`
  }
} as const

/** One named statement of {@link STATEMENTS}, or the text of a list or count query (unnamed). */
export type Statement = { name?: string; text: string }

/**
 * Makes the runner of the store's statements on `pool`: each runs with a read timeout of
 * `queryTimeoutMs`, and an unreachable database becomes `StorageUnavailableError` (503). With
 * `named` false every statement is sent unnamed (parsed each time): a transaction-mode pooler
 * before PgBouncer 1.21 hands each transaction a server connection that may not hold a
 * statement prepared on another (config `DATABASE_NAMED_STATEMENTS`).
 *
 * @returns `query(statement, values)`, resolving with the rows.
 */
export function statementRunner(pool: pg.Pool, queryTimeoutMs: number, named = true) {
  return async function query<Row extends pg.QueryResultRow>(statement: Statement, values: unknown[]): Promise<Row[]> {
    try {
      // `query_timeout` per query is honoured by node-postgres but missing from @types/pg.
      const config: pg.QueryConfig & { query_timeout: number } = { text: statement.text, values, query_timeout: queryTimeoutMs }
      if (named && statement.name !== undefined) config.name = statement.name
      return (await pool.query<Row>(config)).rows
    } catch (error) {
      throw classified(error)
    }
  }
}

/** The {@link InsertValues} of many books as one array per column ({@link STORED_COLUMNS}), for the unnest inserts. */
export function columnArrays(values: readonly InsertValues[]): unknown[][] {
  return [0, 1, 2, 3, 4].map((index) => values.map((row) => row[index]))
}
