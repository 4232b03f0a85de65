import type { Book } from '../../book/schema.js'

/** What a committed change did to a book. */
export type ChangeOperation = 'created' | 'updated' | 'deleted'

/**
 * One row of the change log (docs/change-feed.md "Change log"): one per committed create, update and delete,
 * written in the same transaction as the change, so neither exists without the other.
 */
export interface BookChange {
  /**
   * The change's sequence number (≥ 1), never reused: given at the commit on SQLite, shortly after
   * it on PostgreSQL (docs/change-feed.md "Change log"); a reader that saw it never later finds a smaller one.
   */
  readonly seq: number
  /** The id of the book changed. */
  readonly bookId: number
  readonly operation: ChangeOperation
  /** The book's version after the change (the version it had when deleted, for `deleted`). */
  readonly version: number
  /** The book as GET /book/{id} answers it after the change; null for `deleted`. */
  readonly book: Book | null
  /** When the change was made (written in its transaction), ISO 8601 UTC with milliseconds. */
  readonly changedAt: string
  /** Who made it ({@link ChangeContext.actor}); null for a write of another program. */
  readonly actor: string | null
  /** The request that made it ({@link ChangeContext.requestId}); null when none did. */
  readonly requestId: string | null
}

/**
 * Who and what causes a write, recorded on every change-log row it writes (docs/change-feed.md "Change log").
 * Every write method of the store (`BookStore`, `BookTransfer.store`) takes one; a row written by
 * another program (a SQL session, a migration) has null in each field.
 *
 * How it reaches the rows, the same way for every field (a new field is one more entry of
 * `CHANGE_CONTEXT_COLUMNS` in sql/change-log-statements.ts and one more column of `book_changes`, added by a
 * migration that also reads it in PostgreSQL's trigger):
 * - PostgreSQL: the writing transaction sets `book_service.change_context` (`set_config(…, true)`:
 *   transaction-local, so it never outlives the write on a pooled connection), in the same
 *   statement as the write, to a JSON object of the columns' values; the trigger that writes the
 *   log row reads it with `current_setting(…, true)` and copies each field into its column. A
 *   group insert of several requests sets a JSON array instead, one object per inserted row in
 *   row order, which the trigger takes one by one (`book_service.change_context_row` counts).
 * - SQLite: triggers cannot see connection state (only through application-defined functions,
 *   which the writes of other programs would lack), so the writer stamps the rows after the
 *   write, in the same transaction: `UPDATE book_changes SET … WHERE seq > <highest seq before
 *   the write>` (one writer at a time; a range of the primary key).
 */
export interface ChangeContext {
  /** The token's `sub` claim (a string as is, any other value as its JSON text), or the command (`book-service import`). */
  readonly actor: string | null
  /** The request's id (`x-request-id`), or null. */
  readonly requestId: string | null
  /**
   * For a restore (`BookStore.restore`, README "History and restore"): the version of the book's
   * history it brought back; absent or null for every other write. The history shows such a
   * change as `restored`.
   */
  readonly restoredFrom?: number | null
}

/** The context of a write nothing is known about (tests, tools): every field null. */
export const UNKNOWN_CHANGE_CONTEXT: ChangeContext = Object.freeze({ actor: null, requestId: null })

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
 * Methods reject with `StorageUnavailableError` (src/storage/contracts/database.ts) when the storage
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
  /**
   * The numbering's lag (`/metrics`): committed changes still waiting for a number and the age of
   * the oldest. Absent where changes are numbered as they commit (SQLite).
   */
  numberingLag?(): Promise<NumberingLag>
}

/** Committed changes not numbered yet (PostgreSQL numbers after commit: docs/change-feed.md "Change log"). */
export interface NumberingLag {
  /** How many. */
  readonly waiting: number
  /** Seconds since the oldest of them was written; 0 when none waits. */
  readonly oldestAgeSeconds: number
}
