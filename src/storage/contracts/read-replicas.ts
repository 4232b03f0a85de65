import type { BookStore } from './book-store.js'
import type { BookChange } from './change-log.js'

/** The read operations of a {@link BookStore}: what a read replica can serve. */
export type BookReads = Pick<BookStore, 'list' | 'count' | 'get' | 'history' | 'hasHistory'>

/**
 * Where book reads go on a database with read replicas (PostgreSQL with `DATABASE_REPLICA_URLS`;
 * docs/several-instances.md "Read replicas"). Positions are PostgreSQL write-ahead log positions
 * (LSNs) as unsigned 64-bit integers: a replica that has replayed up to a position shows every
 * transaction committed before it.
 */
export interface ReadReplicas {
  /**
   * Where this process's book reads and catch-up pages were sent since it started (`/metrics`
   * `book_reads_total`), and how many of those sent to a replica the primary answered after the
   * replica failed them (`replica_fallbacks_total`).
   */
  readonly counters: { readonly primary: number; readonly replica: number; readonly fallbacks: number }
  /**
   * The reads for a read by `actor` (the change log's actor: a token's `sub`; null for none) that
   * must see every write committed at or before `position` (its `Commit-Position`; undefined: none
   * in particular) and every write `actor` made through any instance in the last minute: a replica
   * known to have replayed that far, else the primary. It first hears every write announced before
   * the call (one statement on the listening connection, shared by the reads of one event-loop
   * turn). A replica's failure (unreachable, a recovery conflict) is retried on the primary.
   */
  readsFor(actor: string | null, position: bigint | undefined): Promise<BookReads>
  /**
   * The change log's changes after `after`, at most `limit`, as `ChangeLog.changesAfter`: from a
   * replica known to hold at least one of them, else from the primary (the change feed's catch-up:
   * docs/several-instances.md "Read replicas"). A replica holds the numbered changes as a prefix
   * (1…its last), so what it answers is exactly what the primary would, cut at its last.
   */
  changesAfter(after: number, limit: number): Promise<BookChange[]>
  /**
   * A position at or past the commit of every write that completed before the call, announced
   * with `actor` (the writer; null for none) to every instance: the primary's current WAL insert
   * position, asked once for all the callers of one event-loop turn.
   *
   * @throws the primary's error (unreachable).
   */
  commitPosition(actor: string | null): Promise<bigint>
}

/** The text form of a position, as PostgreSQL prints an LSN (`16/B374D848`). */
export function formatPosition(position: bigint): string {
  return `${(position >> 32n).toString(16).toUpperCase()}/${(position & 0xffff_ffffn).toString(16).toUpperCase()}`
}

/** A position from its text form (`16/B374D848`, any case), or undefined when `text` is not one. */
export function parsePosition(text: string): bigint | undefined {
  const match = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text.trim())
  if (!match) return undefined
  return (BigInt(`0x${match[1]}`) << 32n) | BigInt(`0x${match[2]}`)
}
