import type { Book } from '../book/schema.js'
import type { BookChange, ChangeLog, ChangeLogHorizon, ChangeOperation } from './change-log.js'

/** Most changes the stand-in keeps; older ones are trimmed (a `reset` for a subscriber that far behind). */
const RETAINED_CHANGES = 100_000

/**
 * STAND-IN for the durable change log: an in-memory {@link ChangeLog} of the changes committed by
 * this process's store, appended to after each committed write, before the write resolves. It is
 * replaced by the store's durable log (rows in `book_changes`, written in the write's own
 * transaction, woken across processes and instances); until then the change feed sees only the
 * writes of its own process, numbered from 1 at every start.
 */
export class MemoryChangeLog implements ChangeLog {
  private readonly changes: BookChange[] = []
  private readonly listeners = new Set<() => void>()
  private trimmedThrough = 0
  private lastSeq = 0
  private wakeScheduled = false

  constructor(private readonly retained = RETAINED_CHANGES) {}

  /**
   * Records a committed change. `book` is the book after the change (`created`, `updated`) or the
   * id of the deleted one; `version` is 0 for a delete whose version the store did not read.
   */
  record(operation: ChangeOperation, book: Book | number, version: number): void {
    const bookId = typeof book === 'number' ? book : book.id
    const stored = typeof book === 'number' ? null : { id: book.id, title: book.title, author: book.author, year: book.year }
    this.changes.push({ seq: ++this.lastSeq, bookId, operation, version, book: stored, changedAt: new Date().toISOString() })
    // Trimmed a thousand at a time, so a write does not move the whole array each time.
    if (this.changes.length >= this.retained + 1000) this.trimmedThrough = this.changes.splice(0, 1000).at(-1)!.seq
    if (this.wakeScheduled) return
    // One wake-up for the writes of one event-loop turn (a group commit resolves many at once).
    this.wakeScheduled = true
    queueMicrotask(() => {
      this.wakeScheduled = false
      for (const listener of this.listeners) listener()
    })
  }

  async changesAfter(after: number, limit: number): Promise<BookChange[]> {
    const start = Math.max(0, after - this.trimmedThrough)
    return this.changes.slice(start, start + limit)
  }

  async horizon(): Promise<ChangeLogHorizon> {
    return { trimmedThrough: this.trimmedThrough, lastSeq: this.lastSeq }
  }

  onChanges(listener: () => void): () => void {
    const own = () => listener()
    this.listeners.add(own)
    return () => void this.listeners.delete(own)
  }
}
