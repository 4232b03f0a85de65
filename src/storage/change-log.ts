import type { Book } from '../book/schema.js'

/** What a committed change did to a book. */
export type ChangeOperation = 'created' | 'updated' | 'deleted'

/**
 * One row of the change log (README "Change log"): one per committed create, update and delete,
 * written in the same transaction as the change, so neither exists without the other.
 */
export interface BookChange {
  /** The change's sequence number: strictly increasing in commit order, never reused (≥ 1). */
  readonly seq: number
  /** The id of the book changed. */
  readonly bookId: number
  readonly operation: ChangeOperation
  /** The book's version after the change (the version it had when deleted, for `deleted`). */
  readonly version: number
  /** The book as GET /book/{id} answers it after the change; null for `deleted`. */
  readonly book: Book | null
  /** When the change was committed, ISO 8601 UTC with milliseconds. */
  readonly changedAt: string
}

/** What the log still holds: the changes numbered `trimmedThrough + 1` … `lastSeq`. */
export interface ChangeLogHorizon {
  /** The highest sequence number retention has removed (0 when nothing has been trimmed). */
  readonly trimmedThrough: number
  /** The highest sequence number committed so far (0 when the log is empty). */
  readonly lastSeq: number
}

/**
 * Reads the change log of one database: the truth the change feed (`GET /books/changes`) and any
 * later reader (history, webhooks) are built on. Every process and instance on the database sees
 * the same log.
 *
 * Methods reject with `StorageUnavailableError` (src/storage/book-store.ts) when the storage
 * cannot be reached.
 */
export interface ChangeLog {
  /**
   * The committed changes numbered above `after`, in ascending order, at most `limit` of them
   * (1 … 10,000). Never skips a number that could still commit: a change is returned only once
   * every smaller number is committed or known never to commit.
   */
  changesAfter(after: number, limit: number): Promise<BookChange[]>
  /** What the log holds now (retention trims the oldest rows). */
  horizon(): Promise<ChangeLogHorizon>
  /**
   * Calls `listener` soon after new changes may have been committed by this process or any other
   * process or instance on the database (a wake-up only: read them with {@link changesAfter}).
   *
   * @returns a function that stops the calls.
   */
  onChanges(listener: () => void): () => void
}
