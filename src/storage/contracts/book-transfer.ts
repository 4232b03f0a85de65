import type { ValidRow } from '../../book/validation.js'
import { LIST_PAGE_SIZE } from './book-store.js'
import type { Book } from '../../book/schema.js'
import type { ChangeContext } from './change-log.js'
import type { Search } from '../../book/search.js'

/** A validated row of an imported file, with the line it starts on (for the error report). */
export interface ImportRow {
  line: number
  row: ValidRow
}

/** A row refused by the database because its id is taken (`--keep-ids`). */
export interface IdConflict {
  line: number
  id: number
}

/** What {@link BookTransfer.store} did: how many books it stored, or (stored 0) the ids it found taken. */
export interface StoreOutcome {
  /** Books stored and committed; 0 when anything was refused (then nothing is stored). */
  stored: number
  /** The first 20 rows whose id already exists (or repeats in the file), in file order. */
  conflicts: IdConflict[]
  /** How many rows had a taken id in all (`conflicts` holds at most 20 of them). */
  conflictCount: number
}

/** At most this many id conflicts are kept for the report. */
export const REPORTED_CONFLICTS = 20

/**
 * Bulk reading and writing of the books table for `book-service export` and `import`
 * (docs/data.md "Backups and moving data"), on one connection of its own, beside any running service.
 */
export interface BookTransfer {
  /**
   * Every book, id ascending, in pages of up to 1,000, all read from one snapshot (one read
   * transaction), so an export is consistent while the service writes; memory stays flat.
   */
  pages(): AsyncIterable<Book[]>
  /**
   * The books `search` finds (docs/search.md "Search"), in relevance order, in pages of up to 1,000, from
   * one snapshot like {@link pages}; the whole answer is gathered before the first page.
   */
  searchPages(search: Search): AsyncIterable<Book[]>
  /**
   * Stores every row of `batches` in one transaction: new ids in file order, or with `keepIds`
   * the rows' own ids (the id sequence then moves past the largest, so later creates never
   * collide). Should any id be taken, nothing is stored and the conflicts are returned.
   *
   * @param maxId with `keepIds`, the largest id of the file (known from the validating pass).
   * @param context what the change-log rows of the stored books record (the command).
   * @throws the database's error (nothing is stored then either).
   */
  store(batches: AsyncIterable<ImportRow[]>, options: { keepIds: boolean; maxId: number }, context: ChangeContext): Promise<StoreOutcome>
  /** Closes the connection. */
  close(): Promise<void>
}

/** Records a taken id: the first {@link REPORTED_CONFLICTS} in full, the others counted. */
export function noteConflict(outcome: StoreOutcome, conflict: IdConflict): void {
  if (outcome.conflicts.length < REPORTED_CONFLICTS) outcome.conflicts.push(conflict)
  outcome.conflictCount++
}

/** One engine's side of {@link BookTransfer.store}: its write transaction, and how it stores one batch. */
export interface ImportTransaction {
  /** Starts the transaction (and does what must come first in it). */
  begin(): Promise<void>
  /** Stores the rows of `batch`, noting each taken id in `outcome` ({@link noteConflict}). */
  storeBatch(batch: ImportRow[], outcome: StoreOutcome): Promise<void>
  commit(): Promise<void>
  rollback(): Promise<void>
}

/**
 * {@link BookTransfer.store} on either engine: every batch in one transaction, committed only
 * when no id was taken; otherwise rolled back, so nothing is stored, and the conflicts returned.
 *
 * @throws the database's error (the transaction is rolled back: nothing is stored then either).
 */
export async function storeInOneTransaction(transaction: ImportTransaction, batches: AsyncIterable<ImportRow[]>): Promise<StoreOutcome> {
  const outcome: StoreOutcome = { stored: 0, conflicts: [], conflictCount: 0 }
  try {
    await transaction.begin()
    for await (const batch of batches) {
      await transaction.storeBatch(batch, outcome)
      outcome.stored += batch.length
    }
  } catch (error) {
    // The error that stopped the import is what the operator needs, not a failing rollback's.
    await transaction.rollback().catch(() => {})
    throw error
  }
  if (outcome.conflictCount > 0) {
    await transaction.rollback()
    return { ...outcome, stored: 0 }
  }
  await transaction.commit()
  return outcome
}

/** `books` cut into pages of {@link LIST_PAGE_SIZE} (none when empty). */
export function* inPages(books: Book[]): Generator<Book[]> {
  for (let start = 0; start < books.length; start += LIST_PAGE_SIZE) yield books.slice(start, start + LIST_PAGE_SIZE)
}
