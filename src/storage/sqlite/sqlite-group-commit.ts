import type Database from 'better-sqlite3'
import type { Book } from '../../book/schema.js'
import type { BookWriteOutcome, VersionedBook } from '../contracts/book-store.js'
import type { InsertValues, PatchValues } from '../sql/book-statements.js'
import { isBusy, retryWhileBusy } from './sqlite-connection.js'
import type { IdempotencyClaim, IdempotentCreate } from '../contracts/idempotency.js'
import { answerFromRow, insertedRow } from '../sql/idempotency-statements.js'
import { prepareStatements, preparedQueries, type SqliteStatements } from './sqlite-statements.js'
import { insertValues, patchValues } from '../sql/book-statements.js'
import type { RestoreOutcome } from '../contracts/book-history.js'
import { revivedVersion } from '../sql/book-history-statements.js'
import type { ChangeContext } from '../contracts/change-log.js'
import { SQLITE_CONTEXT_STATEMENTS, contextValues } from '../sql/change-log-statements.js'
import { INSERT_GROUP_MAX, groupedInsert, type GroupedCreate } from './sqlite-grouped-insert.js'

/** One write of the SQLite store, as data (so it can be sent to the writer thread). */
export type WriteOp =
  | { op: 'insert'; values: InsertValues; context: ChangeContext }
  | { op: 'insertIdempotent'; values: InsertValues; claim: IdempotencyClaim; context: ChangeContext }
  | { op: 'trimIdempotencyKeys'; before: string }
  | { op: 'probe' }
  | { op: 'update'; id: number; values: PatchValues; context: ChangeContext }
  | { op: 'updateIfVersion'; id: number; version: number; values: PatchValues; context: ChangeContext }
  | { op: 'delete'; id: number; context: ChangeContext }
  | { op: 'deleteIfVersion'; id: number; version: number; context: ChangeContext }
  | { op: 'restore'; id: number; version: number; expectedVersion?: number; context: ChangeContext }
  /** Statements of another store committed with the batch (the webhook store's `record`): each one's rows. */
  | { op: 'statements'; statements: readonly { sql: string; values: readonly unknown[] }[] }

/** What a write gives back (see the store's method of the same name). */
export type WriteResult =
  | Book
  | VersionedBook
  | undefined
  | boolean
  | number
  | IdempotentCreate
  | RestoreOutcome
  | BookWriteOutcome<{ book: VersionedBook }>
  | BookWriteOutcome
  | unknown[][]

/** What one write gave: its result, or the error it raised (its savepoint was rolled back). */
export type WriteOutcome = { ok: true; value: WriteResult } | { ok: false; error: WriteError }

/** An error of a write, as plain data (errors cross threads as message, name and code). */
export interface WriteError {
  name: string
  message: string
  code?: string
}

/** Turns a {@link WriteError} back into an `Error` with the same name, message and code. */
export function toError(error: WriteError): Error {
  return Object.assign(new Error(error.message), { name: error.name, code: error.code })
}

/**
 * Makes the group-commit function of a connection: `commit(batch)` runs every write of the
 * batch in one transaction and commits once (one fsync with `synchronous=FULL`); consecutive
 * creates run as one grouped INSERT (sqlite-grouped-insert.ts). Should a write
 * fail, the batch is run again with each write in its own savepoint, so a failing write is
 * rolled back alone and the others are committed. A conditional write (`…IfVersion`) compares
 * and writes in one statement; when it changes nothing, the existence check runs in the same
 * transaction, so no other write can come between them (SQLite has one writer at a time). While
 * another connection (another process on the same file) holds the write lock, the batch waits
 * and is retried (sqlite-connection.ts `retryWhileBusy`), so it fails only after `BUSY_RETRY_MS`.
 *
 * @returns `commit`, which returns one outcome per write, in order.
 * @throws from `commit` when the commit itself fails: then nothing of the batch is stored.
 */
export function groupCommit(db: Database.Database): (batch: WriteOp[]) => WriteOutcome[] {
  const statements = prepareStatements(db)
  const missingOrStale = (id: number): { status: 'missing' | 'stale' } => ({ status: statements.exists.get(id) ? 'stale' : 'missing' })
  const bookWritten = (book: VersionedBook | undefined) => (book === undefined ? undefined : { status: 'written' as const, book })
  const lastSeq = db.prepare<[], number>(SQLITE_CONTEXT_STATEMENTS.lastSeq).pluck()
  // The `statements` writes' SQL, prepared once each (a store's handful of statements).
  const prepared = preparedQueries(db)
  const stamp = db.prepare(SQLITE_CONTEXT_STATEMENTS.stamp)
  // A book write stamps the change-log rows its triggers wrote with its context (`ChangeContext`):
  // the rows numbered above the highest number before it, in the same transaction (or savepoint).
  const run = (write: WriteOp): WriteResult => {
    if (!('context' in write)) return runWrite(write)
    const before = lastSeq.get()!
    const result = runWrite(write)
    stamp.run(...contextValues(write.context), before)
    return result
  }
  const runWrite = (write: WriteOp): WriteResult => {
    switch (write.op) {
      case 'insert':
        return statements.insert.get(...write.values)
      case 'insertIdempotent': {
        // The lookup and the writes in the batch's transaction: the book and its key together.
        const replay = answerFromRow(statements.findIdempotencyKey.get(write.claim.subject, write.claim.key), write.claim)
        if (replay) return replay
        const book = statements.insert.get(...write.values)!
        statements.saveIdempotencyKey.run(...insertedRow(write.claim, book))
        return { outcome: 'created', status: 201, book }
      }
      case 'trimIdempotencyKeys':
        return statements.trimIdempotencyKeys.run(write.before).changes
      case 'probe':
        // Readiness after a failed write: a row written and removed in the batch's transaction
        // leaves its page dirty, so the commit writes and syncs the log like any write.
        statements.probeWrite.run()
        statements.probeErase.run()
        return true
      case 'update':
        return bookWritten(statements.update.get(...write.values, write.id)) ?? { status: 'missing' }
      case 'updateIfVersion':
        return bookWritten(statements.updateIfVersion.get(...write.values, write.id, write.version)) ?? missingOrStale(write.id)
      case 'delete':
        return statements.delete.run(write.id).changes > 0 ? { status: 'written' } : { status: 'missing' }
      case 'deleteIfVersion':
        return statements.deleteIfVersion.run(write.id, write.version).changes > 0 ? { status: 'written' } : missingOrStale(write.id)
      case 'restore':
        return restore(statements, write)
      case 'statements':
        return write.statements.map(({ sql, values }) => {
          const statement = prepared(sql)
          if (statement.reader) return statement.all(...values)
          statement.run(...values)
          return []
        })
    }
  }
  const insertGroup = groupedInsert(db)
  // The usual case: every write succeeds, so the batch runs without savepoints, and each run of
  // consecutive creates is one grouped INSERT (sqlite-grouped-insert.ts: the search index's cost).
  const plain = db.transaction((batch: WriteOp[]) => {
    const outcomes: WriteOutcome[] = []
    for (let start = 0; start < batch.length; ) {
      const creates = insertRun(batch, start)
      if (creates.length > 1) {
        for (const book of insertGroup(creates)) outcomes.push({ ok: true, value: book })
        start += creates.length
      } else outcomes.push({ ok: true, value: run(batch[start++]!) })
    }
    return outcomes
  })
  const savepoint = db.transaction(run)
  const isolated = db.transaction((batch: WriteOp[]) =>
    batch.map((write): WriteOutcome => {
      try {
        return { ok: true, value: savepoint(write) }
      } catch (error) {
        const { name, message, code } = error as Error & { code?: string }
        return { ok: false, error: { name, message, code } }
      }
    })
  )
  // `BEGIN IMMEDIATE`: the write lock is taken (or waited for) at the start, so another process
  // writing the same file makes the batch wait its turn, retried while it is busy.
  return (batch) =>
    retryWhileBusy(() => {
      try {
        return plain.immediate(batch)
      } catch (error) {
        if (isBusy(error)) throw error
        // A write (or the commit) failed and the whole transaction was rolled back, so nothing of
        // the batch is stored: run it again with one savepoint per write, so that only the failing
        // writes fail. If the commit fails again, that error is thrown.
        return isolated.immediate(batch)
      }
    })
}

/** The creates (`insert`) of `batch` from `start` on, up to the first other write or {@link INSERT_GROUP_MAX}. */
function insertRun(batch: readonly WriteOp[], start: number): GroupedCreate[] {
  const creates: GroupedCreate[] = []
  for (let index = start; index < batch.length && creates.length < INSERT_GROUP_MAX; index++) {
    const write = batch[index]!
    if (write.op !== 'insert') break
    creates.push(write)
  }
  return creates
}

/**
 * A restore (`BookStore.restore`), inside the batch's transaction: the version's book from the
 * log, then the current row and its version check, then the write (whose change-log row `run`
 * stamps with the context, `restoredFrom` included). Nothing can come between these steps: SQLite
 * has one writer at a time.
 */
function restore(statements: SqliteStatements, write: Extract<WriteOp, { op: 'restore' }>): RestoreOutcome {
  const { id, version, expectedVersion } = write
  const target = statements.historyVersion.get(id, version)
  if (!target) return { outcome: statements.historyAny.get(id) ? 'versionNotFound' : 'noHistory' }
  const current = statements.get.get(id)
  if (current && expectedVersion !== undefined && current.version !== expectedVersion) return { outcome: 'stale' }
  const book = current
    ? statements.update.get(...patchValues(target), id)!
    : statements.revive.get(id, ...insertValues(target), revivedVersion(statements.historyLast.get(id)!))!
  return { outcome: 'restored', book, revived: !current }
}
