import type Database from 'better-sqlite3'
import type { Book } from '../schemas/book.js'

/** One write of the SQLite store, as data (so it can be sent to the writer thread). */
export type WriteOp =
  | { op: 'insert'; title: string; author: string; year: number }
  | { op: 'update'; id: number; title: string | null; author: string | null; year: number | null }
  | { op: 'delete'; id: number }

/** What one write gave: its result, or the error it raised (its savepoint was rolled back). */
export type WriteOutcome = { ok: true; value: Book | boolean | undefined } | { ok: false; error: WriteError }

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

const COLUMNS = 'id, title, author, year'

/**
 * Makes the group-commit function of a connection: `commit(batch)` runs every write of the
 * batch in one transaction and commits once (one fsync with `synchronous=FULL`). Should a write
 * fail, the batch is run again with each write in its own savepoint, so a failing write is
 * rolled back alone and the others are committed.
 *
 * @returns `commit`, which returns one outcome per write, in order.
 * @throws from `commit` when the commit itself fails: then nothing of the batch is stored.
 */
export function groupCommit(db: Database.Database): (batch: WriteOp[]) => WriteOutcome[] {
  const insert = db.prepare<[string, string, number], Book>(
    `INSERT INTO books (title, author, year) VALUES (?, ?, ?) RETURNING ${COLUMNS}`
  )
  const update = db.prepare<[string | null, string | null, number | null, number], Book>(
    `UPDATE books SET title = COALESCE(?, title), author = COALESCE(?, author), year = COALESCE(?, year)
     WHERE id = ? RETURNING ${COLUMNS}`
  )
  const remove = db.prepare<[number]>('DELETE FROM books WHERE id = ?')
  const run = (write: WriteOp): Book | boolean | undefined => {
    switch (write.op) {
      case 'insert':
        return insert.get(write.title, write.author, write.year)
      case 'update':
        return update.get(write.title, write.author, write.year, write.id)
      case 'delete':
        return remove.run(write.id).changes > 0
    }
  }
  // The usual case: every write succeeds, so the batch runs without savepoints.
  const plain = db.transaction((batch: WriteOp[]) => batch.map((write): WriteOutcome => ({ ok: true, value: run(write) })))
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
  return (batch) => {
    try {
      return plain(batch)
    } catch {
      // A write (or the commit) failed and the whole transaction was rolled back, so nothing of
      // the batch is stored: run it again with one savepoint per write, so that only the failing
      // writes fail. If the commit fails again, that error is thrown.
      return isolated(batch)
    }
  }
}
