import type Database from 'better-sqlite3'
import type { BookChange, ChangeLog, ChangeLogHorizon } from '../contracts/change-log.js'
import { TRIM_BATCH, trimThrough, type ChangeLogRetention } from '../retention.js'
import { ChangeListeners } from '../sql/change-listeners.js'
import { bookChangeOf, changeLogStatements, type ChangeRow, type HorizonRow } from '../sql/change-log-statements.js'
import { retryWhileBusy } from './sqlite-connection.js'

/** The change log's statements on SQLite (placeholders `?`), from the one description in sql/change-log-statements.ts. */
const SQL = changeLogStatements('sqlite')

/** How often the log looks for commits of other connections while someone listens, in ms. */
const POLL_MS = 100

/**
 * The SQLite {@link ChangeLog}, read on the store's main connection. The rows are written by the
 * triggers of migration 0004 in the transaction of each change, whichever connection or process
 * makes it; SQLite commits one writer at a time, so the numbers follow commit order.
 *
 * {@link onChanges} watches `mark` (the store's `changeMark()`: its own commits and `PRAGMA
 * data_version`, which moves when any other connection commits) every {@link POLL_MS} while
 * someone listens: reading it costs no I/O.
 */
export class SqliteChangeLog implements ChangeLog {
  private readonly after
  private readonly horizonRow
  private readonly listeners = new ChangeListeners(
    () => {
      this.lastMark = this.mark()
      this.poll = setInterval(() => this.check(), POLL_MS).unref()
    },
    () => this.stop()
  )
  private poll: NodeJS.Timeout | undefined
  private lastMark = ''

  constructor(
    db: Database.Database,
    private readonly mark: () => string
  ) {
    this.after = db.prepare<[number, number], ChangeRow>(SQL.after)
    this.horizonRow = db.prepare<[], HorizonRow>(SQL.horizon)
  }

  async changesAfter(after: number, limit: number): Promise<BookChange[]> {
    return this.after.all(after, limit).map(bookChangeOf)
  }

  async horizon(): Promise<ChangeLogHorizon> {
    const row = this.horizonRow.get()!
    return { trimmedThrough: row.trimmed_through, lastSeq: row.last_seq }
  }

  onChanges(listener: () => void): () => void {
    return this.listeners.add(listener)
  }

  /** Stops watching (the store is closing). */
  stop(): void {
    clearInterval(this.poll)
    this.poll = undefined
  }

  private check(): void {
    const mark = this.mark()
    if (mark === this.lastMark) return
    this.lastMark = mark
    this.listeners.wake()
  }
}

/**
 * Whether the change log has rows `retention` no longer keeps, read on the connection `db` (no
 * write): the writer thread, which removes them, is started only when there are
 * (sqlite-write-queue.ts).
 *
 * @returns the check; call it as often as retention would run.
 */
export function changeLogTrimDue(db: Database.Database, retention: ChangeLogRetention): (now?: number) => boolean {
  const oldest = db.prepare<[number], { seq: number; changed_at: string }>(SQL.oldest)
  const horizon = db.prepare<[], HorizonRow>(SQL.horizon)
  return (now = Date.now()) => trimThrough(oldest.all(TRIM_BATCH), horizon.get()!.last_seq, now, retention) !== 0
}

/**
 * Makes the retention step of the connection `db` (the writer thread's, run between two group
 * commits): each call removes up to {@link TRIM_BATCH} of the oldest rows that `retention` no
 * longer keeps and records the highest number removed, in one `BEGIN IMMEDIATE` transaction.
 *
 * @returns the step, which returns true when it removed a whole batch (more may be due: run it again soon).
 */
export function changeLogTrimmer(db: Database.Database, retention: ChangeLogRetention): (now?: number) => boolean {
  const oldest = db.prepare<[number], { seq: number; changed_at: string }>(SQL.oldest)
  const horizon = db.prepare<[], HorizonRow>(SQL.horizon)
  const trim = db.prepare<[number]>(SQL.trim)
  const trimmed = db.prepare<[number]>(SQL.trimmed)
  const step = db.transaction((now: number) => {
    const through = trimThrough(oldest.all(TRIM_BATCH), horizon.get()!.last_seq, now, retention)
    if (through === 0) return 0
    const removed = trim.run(through).changes
    trimmed.run(through)
    return removed
  })
  return (now = Date.now()) => retryWhileBusy(() => step.immediate(now)) >= TRIM_BATCH
}
