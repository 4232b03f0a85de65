import type { Book } from '../../book/schema.js'

/*
 * A book's history (docs/contract.md "History and restore"), as the book store answers it
 * (`BookStore.history`, `BookStore.restore`): one entry per change, newest first, read from the
 * change log (sql/book-history-statements.ts).
 */

/** What a change did, as the history names it: the change log's operation, or `restored`. */
export type HistoryOperation = 'created' | 'updated' | 'deleted' | 'restored'

/** One entry of a book's history, as `GET /book/{id}/history` answers it. */
export interface HistoryEntry {
  /** The book's version after the change: distinct within a book, growing with time. */
  version: number
  operation: HistoryOperation
  /** When the change was committed: RFC 3339 UTC with milliseconds. */
  at: string
  /** Who made it: the token's `sub`, the command (`book-service import`), or null when unknown. */
  actor: string | null
  /** The book as it was after the change; null for `deleted`. */
  book: Book | null
}

/** One page of a history, and the history key its next page starts below (when more follow). */
export interface HistoryPage {
  entries: HistoryEntry[]
  /** The history key of the page's last entry, when more entries follow (the next page's `after` cursor encodes it). */
  next?: number
}

/**
 * What `BookStore.restore` did:
 * - `restored`: the book as stored now, with its new version, and whether it came back from a delete;
 * - `noHistory`: the id has no history at all (404 `Book not found`);
 * - `versionNotFound`: the version is not in the retained history, or is a `deleted` entry;
 * - `unrestorable`: the version's book fails today's book rules (422 `Version cannot be restored`); nothing written;
 * - `stale`: the book exists and its version is not the one `If-Match` named (412).
 */
export type RestoreOutcome =
  | { outcome: 'restored'; book: Book & { version: number }; revived: boolean }
  | { outcome: 'noHistory' | 'versionNotFound' | 'unrestorable' | 'stale' }

/** Highest version a stored row can hold (the `version` columns are 32-bit integers). */
export const MAX_VERSION = 2_147_483_647

/** The before key of a history's first page: above every history key the log can hold. */
export const HISTORY_START = Number.MAX_SAFE_INTEGER
