import type { Book, BookInput, BookPatch } from '../schemas/book.js'

/**
 * Where books live. Implemented by the SQLite store (embedded default) and the PostgreSQL store.
 *
 * Every write resolves only once the change is durable (committed and on disk), so a 2xx built
 * on it survives a crash (decisions: "Durability"). Methods reject with {@link StorageUnavailableError}
 * when the storage cannot be reached; any other rejection is an unexpected failure.
 */
export interface BookStore {
  /** Stores a new book and returns it with its newly assigned id (ascending, never reused). */
  create(input: BookInput): Promise<Book>
  /** Every book, ordered by id ascending, yielded in pages so memory stays flat. */
  list(): AsyncIterable<Book>
  /** The book with this id, or undefined. */
  get(id: number): Promise<Book | undefined>
  /**
   * Applies the present fields of `patch` on top of the stored book in one atomic step and
   * returns the result, or undefined when no book has this id (including one deleted meanwhile).
   */
  update(id: number, patch: BookPatch): Promise<Book | undefined>
  /** Removes the book; false when no book had this id. */
  delete(id: number): Promise<boolean>
  /** Resolves when the storage answers a trivial query (readiness); rejects otherwise. */
  ping(): Promise<void>
  /** Finishes pending writes and releases the storage (files, connections). */
  close(): Promise<void>
}

/** The storage cannot be reached right now; answered 503 `Service unavailable`. */
export class StorageUnavailableError extends Error {
  override name = 'StorageUnavailableError'
}

/** How many rows one page of {@link BookStore.list} reads at a time. */
export const LIST_PAGE_SIZE = 1000
