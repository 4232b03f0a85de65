import type Database from 'better-sqlite3'
import type { Book } from '../../book/schema.js'
import type { VersionedBook } from '../contracts/book-store.js'
import { STORED_COLUMNS, bookStatements, type InsertValues, type PatchValues } from '../sql/book-statements.js'
import { idempotencyStatements, type IdempotencyRow } from '../sql/idempotency-statements.js'
import { historyStatements, type HistoryRow } from '../sql/book-history-statements.js'

/** The fixed statements on SQLite (placeholders `?`), from the one description in sql/book-statements.ts. */
const SQL = bookStatements('sqlite')
/** The statements of `Idempotency-Key` answers on SQLite. */
const IDEMPOTENCY_SQL = idempotencyStatements('sqlite')

/**
 * The readiness probe's row: an empty subject, which no request has (a request's subject is JSON
 * text, never empty), written and removed in one transaction.
 */
const PROBE_ROW = "subject = '' AND idempotency_key = ''"

/** `book-service import --keep-ids`: the row's own id, skipped (changes 0) when the id is taken. */
const INSERT_KEEPING_ID = `INSERT OR IGNORE INTO books (id, ${STORED_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?)`

/** The history's statements on SQLite (../sql/book-history-statements.ts). */
const HISTORY_SQL = historyStatements('sqlite')

/** A books row in raw mode: id, title, author, year. */
type BookRow = [id: number, title: string, author: string, year: number]

/** The prepared statements of one connection (see {@link prepareStatements}). */
export interface SqliteStatements {
  /** A page of the whole list by id: the books after `afterId`, at most `size`. */
  page(afterId: number, size: number): Book[]
  get: Database.Statement<[number], VersionedBook>
  exists: Database.Statement<[number], { 1: number }>
  insert: Database.Statement<InsertValues, Book>
  insertKeepingId: Database.Statement<[number, ...InsertValues]>
  update: Database.Statement<[...PatchValues, number], VersionedBook>
  updateIfVersion: Database.Statement<[...PatchValues, number, number], VersionedBook>
  delete: Database.Statement<[number]>
  deleteIfVersion: Database.Statement<[number, number]>
  ping: Database.Statement
  /** The stored answer of an `Idempotency-Key`: subject, key. */
  findIdempotencyKey: Database.Statement<[string, string], IdempotencyRow>
  /** Stores a key's answer (see `idempotencyStatements`). */
  saveIdempotencyKey: Database.Statement<unknown[]>
  /** Removes the answers created before the given time. */
  trimIdempotencyKeys: Database.Statement<[string]>
  /** The readiness probe's write and its undoing (see `PROBE_ROW`). */
  probeWrite: Database.Statement
  probeErase: Database.Statement
  /** A page of a book's history: book id, before history key, limit (newest first). */
  historyPage: Database.Statement<[number, number, number], HistoryRow>
  /** A row when the book has any history: book id. */
  historyAny: Database.Statement<[number], { 1: number }>
  /** The book at a version of its history: book id, version. */
  historyVersion: Database.Statement<[number, number], { title: string; author: string; year: number }>
  /** The book's newest change-log row: book id. */
  historyLast: Database.Statement<[number], { operation: string; version: number }>
  /** A deleted book stored again under its id: id, the insert values, version. */
  revive: Database.Statement<[number, ...InsertValues, number], VersionedBook>
  /** `PRAGMA data_version`: changes when another connection (the writer thread, an import) commits. */
  dataVersion: Database.Statement<[], number>
}

/**
 * The statements of a connection, prepared once (the one place SQLite statements are compiled).
 * Pages are read as raw rows (made into Books here): about twice as fast as native row objects.
 */
export function prepareStatements(db: Database.Database): SqliteStatements {
  const page = db.prepare<[number, number], BookRow>(SQL.page).raw(true)
  return {
    page: (afterId, size) =>
      (page.all(afterId, size) as unknown as BookRow[]).map(([id, title, author, year]) => ({ id, title, author, year })),
    get: db.prepare<[number], VersionedBook>(SQL.get),
    exists: db.prepare<[number], { 1: number }>(SQL.exists),
    insert: db.prepare<InsertValues, Book>(SQL.insert),
    insertKeepingId: db.prepare<[number, ...InsertValues]>(INSERT_KEEPING_ID),
    update: db.prepare<[...PatchValues, number], VersionedBook>(SQL.update),
    updateIfVersion: db.prepare<[...PatchValues, number, number], VersionedBook>(SQL.updateIfVersion),
    delete: db.prepare<[number]>(SQL.delete),
    deleteIfVersion: db.prepare<[number, number]>(SQL.deleteIfVersion),
    ping: db.prepare(SQL.ping),
    findIdempotencyKey: db.prepare<[string, string], IdempotencyRow>(IDEMPOTENCY_SQL.find),
    saveIdempotencyKey: db.prepare<unknown[]>(IDEMPOTENCY_SQL.save),
    trimIdempotencyKeys: db.prepare<[string]>(IDEMPOTENCY_SQL.trim),
    probeWrite: db.prepare(
      "INSERT OR REPLACE INTO idempotency_keys (subject, idempotency_key, fingerprint, status, book_id, response, created_at) VALUES ('', '', '', 0, 0, '', '')"
    ),
    probeErase: db.prepare(`DELETE FROM idempotency_keys WHERE ${PROBE_ROW}`),
    historyPage: db.prepare<[number, number, number], HistoryRow>(HISTORY_SQL.page),
    historyAny: db.prepare<[number], { 1: number }>(HISTORY_SQL.any),
    historyVersion: db.prepare<[number, number], { title: string; author: string; year: number }>(HISTORY_SQL.version),
    historyLast: db.prepare<[number], { operation: string; version: number }>(HISTORY_SQL.last),
    revive: db.prepare<[number, ...InsertValues, number], VersionedBook>(HISTORY_SQL.revive),
    dataVersion: db.prepare<[], number>('PRAGMA data_version').pluck()
  }
}

/** Most distinct list/count statements kept prepared (one per shape of query, not per value). */
const PREPARED_QUERIES = 64

/**
 * Statements of a connection prepared on first use and kept per SQL text (the most recent
 * {@link PREPARED_QUERIES}), so a query of the same shape is prepared once: the list and count
 * statements built by Kysely in sql/list.ts, and the webhook store's statements.
 */
export function preparedQueries(db: Database.Database): (sql: string) => Database.Statement {
  const prepared = new Map<string, Database.Statement>()
  return (sql) => {
    let statement = prepared.get(sql)
    if (!statement) {
      if (prepared.size >= PREPARED_QUERIES) prepared.delete(prepared.keys().next().value!)
      statement = db.prepare(sql)
      prepared.set(sql, statement)
    }
    return statement
  }
}
