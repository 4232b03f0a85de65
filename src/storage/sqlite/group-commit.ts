import type Database from 'better-sqlite3'
import type { Book } from '../../book/schema.js'
import type { VersionedBook } from '../book-store.js'
import type { PatchValues } from '../patch-values.js'

/** One write of the SQLite store, as data (so it can be sent to the writer thread). */
export type WriteOp =
  | { op: 'insert'; title: string; author: string; year: number; titleFolded: string; authorFolded: string }
  | { op: 'update'; id: number; values: PatchValues }
  | { op: 'updateIfVersion'; id: number; version: number; values: PatchValues }
  | { op: 'delete'; id: number }
  | { op: 'deleteIfVersion'; id: number; version: number }

/** What a write gives back (see the store's method of the same name). */
export type WriteResult = Book | VersionedBook | undefined | boolean | 'deleted' | 'missing' | 'stale'

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

const COLUMNS = 'id, title, author, year'
const VERSIONED = `${COLUMNS}, version`

/** The SET clause of every update: present fields replace, absent ones keep; the version goes up. */
const SET_PATCH = `title = COALESCE(?, title), title_folded = COALESCE(?, title_folded),
  author = COALESCE(?, author), author_folded = COALESCE(?, author_folded),
  year = COALESCE(?, year), version = version + 1`

/**
 * Makes the group-commit function of a connection: `commit(batch)` runs every write of the
 * batch in one transaction and commits once (one fsync with `synchronous=FULL`). Should a write
 * fail, the batch is run again with each write in its own savepoint, so a failing write is
 * rolled back alone and the others are committed. A conditional write (`…IfVersion`) compares
 * and writes in one statement; when it changes nothing, the existence check runs in the same
 * transaction, so no other write can come between them (SQLite has one writer: this connection).
 *
 * @returns `commit`, which returns one outcome per write, in order.
 * @throws from `commit` when the commit itself fails: then nothing of the batch is stored.
 */
export function groupCommit(db: Database.Database): (batch: WriteOp[]) => WriteOutcome[] {
  const insert = db.prepare<[string, string, number, string, string], Book>(
    `INSERT INTO books (title, author, year, title_folded, author_folded) VALUES (?, ?, ?, ?, ?) RETURNING ${COLUMNS}`
  )
  const update = db.prepare<[...PatchValues, number], VersionedBook>(
    `UPDATE books SET ${SET_PATCH} WHERE id = ? RETURNING ${VERSIONED}`
  )
  const updateIfVersion = db.prepare<[...PatchValues, number, number], VersionedBook>(
    `UPDATE books SET ${SET_PATCH} WHERE id = ? AND version = ? RETURNING ${VERSIONED}`
  )
  const remove = db.prepare<[number]>('DELETE FROM books WHERE id = ?')
  const removeIfVersion = db.prepare<[number, number]>('DELETE FROM books WHERE id = ? AND version = ?')
  const exists = db.prepare<[number], { id: number }>('SELECT id FROM books WHERE id = ?')
  const missingOrStale = (id: number) => (exists.get(id) ? 'stale' : 'missing')
  const run = (write: WriteOp): WriteResult => {
    switch (write.op) {
      case 'insert':
        return insert.get(write.title, write.author, write.year, write.titleFolded, write.authorFolded)
      case 'update':
        return update.get(...write.values, write.id)
      case 'updateIfVersion':
        return updateIfVersion.get(...write.values, write.id, write.version) ?? missingOrStale(write.id)
      case 'delete':
        return remove.run(write.id).changes > 0
      case 'deleteIfVersion':
        return removeIfVersion.run(write.id, write.version).changes > 0 ? 'deleted' : missingOrStale(write.id)
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
