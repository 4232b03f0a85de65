import type { BookFilter, BookQuery } from '../../book/query.js'
import type { Book, BookInput, BookPatch } from '../../book/schema.js'
import type { ChangeContext } from './change-log.js'
import type { IdempotencyClaim, IdempotentCreate } from './idempotency.js'
import type { HistoryPage, RestoreOutcome } from './book-history.js'

/**
 * Where books live: the book operations of a `Database` (./database.ts: `database.books`). Implemented by
 * each engine's database (sqlite/sqlite-database.ts, postgres/postgres-database.ts).
 *
 * Every write resolves only once the change is durable (committed and on disk), so a 2xx built on
 * it survives a crash (docs/contract.md "Everything else"). Methods reject with
 * `StorageUnavailableError` (./database.ts) when the storage cannot be reached; any other rejection is an unexpected
 * failure. Every write takes the {@link ChangeContext} its change-log rows record (who, which request).
 */
export interface BookStore {
  /** Stores a new book and returns it with its newly assigned id (ascending, never reused). */
  create(input: BookInput, context: ChangeContext): Promise<Book>
  /**
   * {@link create} under an `Idempotency-Key` (docs/contract.md "Hardening"): in one transaction,
   * the key's stored answer is looked up and, when there is none (or it expired), the book and the
   * key's answer are stored together. See {@link IdempotentCreate} for the outcomes; `inProgress`
   * when another instance holds the key's transaction right now (PostgreSQL; SQLite serialises
   * the writers of a file, so the later one replays).
   */
  createIdempotent(input: BookInput, claim: IdempotencyClaim, context: ChangeContext): Promise<IdempotentCreate>
  /**
   * Removes the stored `Idempotency-Key` answers created before `before` (ISO 8601 UTC).
   *
   * @returns how many were removed.
   */
  trimIdempotencyKeys(before: string): Promise<number>
  /**
   * Without `query`: every book, ordered by id ascending, yielded in pages so memory stays flat.
   * With `query`: the books matching its filters, in its order, after its `after` position, at most
   * `query.limit` of them (docs/api.md "Large collections and concurrent edits"), read in pages by
   * keyset too (`pagesOf` in sql/list-pages.ts), so an unlimited query holds one page at a time.
   */
  list(query?: BookQuery): AsyncIterable<Book>
  /** How many books match `filter` (all books when it is empty): the `X-Total-Count` header. */
  count(filter: BookFilter): Promise<number>
  /** The book with this id and its version (for the `ETag`), or undefined. */
  get(id: number): Promise<VersionedBook | undefined>
  /**
   * Applies the present fields of `patch` on top of the stored book in one atomic step. With
   * `expectedVersion`, only when the stored version is still that one: the comparison and the
   * write are one atomic statement (`UPDATE … WHERE id = ? AND version = ?`).
   *
   * @returns `written` with the book as stored now, `missing` when no book has this id (including
   *   one deleted meanwhile), `stale` when its version is not `expectedVersion`.
   */
  update(id: number, patch: BookPatch, context: ChangeContext, expectedVersion?: number): Promise<BookWriteOutcome<{ book: VersionedBook }>>
  /**
   * Removes the book; with `expectedVersion`, only when its stored version is still that one, in
   * one atomic statement.
   *
   * @returns `written` when it was removed, `missing` when no book had this id, `stale` when its
   *   version is not `expectedVersion`.
   */
  delete(id: number, context: ChangeContext, expectedVersion?: number): Promise<BookWriteOutcome>
  /**
   * One page of the history of book `id` (README "History and restore"; ./book-history.ts), newest
   * first: at most `limit` entries, those whose history key is below `before`
   * (`HISTORY_START` for the first page). Deleted books keep their history.
   *
   * @returns the page, or undefined when the id has no history at all (never existed, or trimmed).
   */
  history(id: number, before: number, limit: number): Promise<HistoryPage | undefined>
  /** Whether book `id` has any history retained (the first check of a restore). */
  hasHistory(id: number): Promise<boolean>
  /**
   * Brings back the title, author and year book `id` had at `version` of its history, as one new
   * version, in one transaction: the version is read from the log, then, while the book exists, its
   * version compared with `expectedVersion` (when given: the version `If-Match` named, or -1 for a
   * tag that names none), then the book written (updated, or stored again under its id when it
   * was deleted). The change log records the write as `updated` (or `created`) with `context`
   * and its `restoredFrom` = `version`, which the history shows as `restored`.
   */
  restore(id: number, version: number, expectedVersion: number | undefined, context: ChangeContext): Promise<RestoreOutcome>
  /**
   * A mark that differs whenever any book may have changed since it was taken: by a write of
   * this store, or by another connection to the same database (`book-service import`). Taking it
   * is cheap (no I/O). Undefined when the store cannot know without asking the database
   * (PostgreSQL: other instances write too); then nothing read from it may be reused.
   */
  changeMark(): string | undefined
}

/**
 * What an update or a delete of one book came to: `written` (with what the write gives back,
 * such as the book as stored now), `missing` (no book has the id) or `stale` (its version is not
 * the one the write expected: `If-Match`, docs/api.md "Large collections and concurrent edits").
 */
export type BookWriteOutcome<T extends object = object> = ({ status: 'written' } & T) | { status: 'missing' } | { status: 'stale' }

/**
 * A stored book with its version: 1 when created, incremented by every successful update. The
 * version never reaches a response body; it makes the book's `ETag` (src/routes/books/etag.ts).
 */
export type VersionedBook = Book & { version: number }

/** How many rows one page of {@link BookStore.list} reads at a time. */
export const LIST_PAGE_SIZE = 1000
