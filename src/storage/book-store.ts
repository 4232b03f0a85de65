import type { Book, BookInput, BookPatch } from '../book/schema.js'
import type { AccountStore } from './account-store.js'

/**
 * Where books live. Implemented by the SQLite store (embedded default) and the PostgreSQL store.
 *
 * Every write resolves only once the change is durable (committed and on disk), so a 2xx built
 * on it survives a crash (decisions: "Durability"). Methods reject with {@link StorageUnavailableError}
 * when the storage cannot be reached; any other rejection is an unexpected failure.
 */
export interface BookStore {
  /** The accounts kept in the same database (issue 15). */
  readonly accounts: AccountStore
  /** Stores a new book and returns it with its newly assigned id (ascending, never reused). */
  create(input: BookInput): Promise<Book>
  /**
   * Without `query`: every book, ordered by id ascending, yielded in pages so memory stays flat.
   * With `query`: the books matching its filters, in its order, after its cursor, at most
   * `query.limit` of them (README "Large collections and concurrent edits").
   */
  list(query?: BookQuery): AsyncIterable<Book>
  /** How many books match `filter` (all books when it is empty): the `X-Total-Count` header. */
  count(filter: BookFilter): Promise<number>
  /** The book with this id and its version (for the `ETag`), or undefined. */
  get(id: number): Promise<VersionedBook | undefined>
  /**
   * Applies the present fields of `patch` on top of the stored book in one atomic step and
   * returns the result, or undefined when no book has this id (including one deleted meanwhile).
   */
  update(id: number, patch: BookPatch): Promise<VersionedBook | undefined>
  /**
   * Like {@link update}, but only when the stored version is still `version`: the comparison and
   * the write are one atomic statement (`UPDATE … WHERE id = ? AND version = ?`).
   *
   * @returns the updated book, `'missing'` when no book has this id, `'stale'` when its version differs.
   */
  updateIfVersion(id: number, version: number, patch: BookPatch): Promise<VersionedBook | 'missing' | 'stale'>
  /** Removes the book; false when no book had this id. */
  delete(id: number): Promise<boolean>
  /**
   * Removes the book only when its stored version is still `version`, in one atomic statement.
   *
   * @returns `'deleted'`, `'missing'` (no book has this id) or `'stale'` (its version differs).
   */
  deleteIfVersion(id: number, version: number): Promise<'deleted' | 'missing' | 'stale'>
  /**
   * A mark that differs whenever any book may have changed since it was taken: by a write of
   * this store, or by another connection to the same database (`book-service import`). Taking it
   * is cheap (no I/O). Undefined when the store cannot know without asking the database
   * (PostgreSQL: other instances write too); then nothing read from it may be reused.
   */
  changeMark(): string | undefined
  /** Resolves when the storage answers a trivial query (readiness); rejects otherwise. */
  ping(): Promise<void>
  /** Finishes pending writes and releases the storage (files, connections). */
  close(): Promise<void>
}

/**
 * A stored book with its version: 1 when created, incremented by every successful update. The
 * version never reaches a response body; it makes the book's `ETag` (src/routes/books/etag.ts).
 */
export type VersionedBook = Book & { version: number }

/**
 * Filters of {@link BookStore.list} and {@link BookStore.count}; absent ones do not filter.
 * `title` and `author` are substrings as the client gave them, matched ignoring case: the
 * storage folds them (`foldText` in src/storage/fold.ts) like the stored columns, and matches
 * them literally (`%` and `_` are not wildcards); the year bounds are inclusive.
 */
export interface BookFilter {
  title?: string
  author?: string
  year?: number
  yearMin?: number
  yearMax?: number
}

/** The fields a list can be ordered by; `title` and `author` order by their folded form. */
export type SortField = 'id' | 'title' | 'author' | 'year'

/**
 * One position in a sorted list: the sort key of a book (its id, folded title, folded author or
 * year) and its id. A page "after" it starts with the first book past it in the list's order.
 */
export interface Cursor {
  key: string | number
  id: number
}

/** A query of {@link BookStore.list}: filters, order (ties always broken by id), start and size. */
export interface BookQuery extends BookFilter {
  /** Default `id`. */
  sort?: SortField
  /** Descending instead of ascending, for the sort key and the id tie-break alike. */
  descending?: boolean
  /** Only books strictly after this position in the order. */
  after?: Cursor
  /** At most this many books. */
  limit?: number
}

/** The storage cannot be reached right now; answered 503 `Service unavailable`. */
export class StorageUnavailableError extends Error {
  override name = 'StorageUnavailableError'
}

/** How many rows one page of {@link BookStore.list} reads at a time. */
export const LIST_PAGE_SIZE = 1000
