import pg from 'pg'
import type { BookChange, ChangeLog, ChangeLogHorizon, NumberingLag } from '../contracts/change-log.js'
import { TRIM_BATCH, trimThrough, type ChangeLogRetention } from '../retention.js'
import { ChangeListeners } from '../sql/change-listeners.js'
import { bookChangeOf, changeLogStatements, type ChangeRow, type HorizonRow } from '../sql/change-log-statements.js'
import { IDLE_IN_TRANSACTION_MS, QUERY_TIMEOUT_MS, types } from './postgres-connection.js'
import type { Statement } from './postgres-statements.js'
import { inTransaction } from './postgres-transaction.js'

/** The change log's statements on PostgreSQL (placeholders `$n`), named for node-postgres to prepare. */
const SQL = changeLogStatements('postgres')
const STATEMENTS = {
  after: { name: 'change-log-after', text: SQL.after },
  horizon: { name: 'change-log-horizon', text: SQL.horizon },
  oldest: { name: 'change-log-oldest', text: SQL.oldest },
  lag: {
    name: 'change-log-numbering-lag',
    text: `SELECT count(*)::integer AS waiting, COALESCE(EXTRACT(EPOCH FROM now() - min(changed_at)::timestamptz), 0)::float8 AS age
      FROM book_changes WHERE seq IS NULL`
  }
} satisfies Record<string, Statement>

/** The channel the sequencer notifies on after each batch it numbered (postgres-change-numbering.ts). */
const CHANNEL = 'book_changes'

/** How long the listening connection waits before reconnecting after it was lost, in ms. */
const RECONNECT_MS = 1000

/** Runs one statement of the store (its pool, its query timeout, its error classification). */
type Query = <Row extends object>(statement: Statement, values: unknown[]) => Promise<Row[]>

/**
 * The PostgreSQL {@link ChangeLog}. The trigger of migration 0007 writes the rows unnumbered in
 * the writing transaction; one sequencer per database (postgres-change-numbering.ts) numbers them once
 * committed, a batch at a time, so a reader sees the numbers as a growing prefix and never a
 * number before a smaller one. Only numbered rows are read.
 *
 * {@link onChanges} listens (`LISTEN book_changes`) on a connection of its own, opened with the
 * first listener and closed with the last; the sequencer notifies once per numbered batch,
 * whichever instance holds it. When that connection is lost it reconnects every second, and wakes the listeners
 * once it is back (changes may have been missed meanwhile).
 */
export class PostgresChangeLog implements ChangeLog {
  private readonly listeners = new ChangeListeners(
    () => this.listen(),
    () => this.stop()
  )
  private listening: pg.Client | undefined
  private reconnect: NodeJS.Timeout | undefined

  constructor(
    private readonly url: string,
    private readonly query: Query
  ) {}

  async changesAfter(after: number, limit: number): Promise<BookChange[]> {
    return (await this.query<ChangeRow>(STATEMENTS.after, [after, limit])).map(bookChangeOf)
  }

  async horizon(): Promise<ChangeLogHorizon> {
    const [row] = await this.query<HorizonRow>(STATEMENTS.horizon, [])
    return { trimmedThrough: row!.trimmed_through, lastSeq: row!.last_seq }
  }

  onChanges(listener: () => void): () => void {
    return this.listeners.add(listener)
  }

  async numberingLag(): Promise<NumberingLag> {
    const [row] = await this.query<{ waiting: number; age: number }>(STATEMENTS.lag, [])
    return { waiting: row!.waiting, oldestAgeSeconds: Math.max(0, row!.age) }
  }

  /** Closes the listening connection (the last listener left, or the store is closing). */
  stop(): void {
    clearTimeout(this.reconnect)
    this.reconnect = undefined
    const client = this.listening
    this.listening = undefined
    void client?.end().catch(() => {})
  }

  /**
   * One retention step, on a connection of `pool`, each statement within `queryTimeoutMs`: removes up to {@link TRIM_BATCH} of the oldest
   * rows `retention` no longer keeps, and records the highest number removed, in one transaction.
   * Instances may run it at once: the removal and `GREATEST` make a second run change nothing.
   *
   * @returns true when it removed a whole batch (more may be due).
   * @throws the database's error (the transaction is rolled back).
   */
  async trim(pool: pg.Pool, retention: ChangeLogRetention, queryTimeoutMs: number): Promise<boolean> {
    return inTransaction(pool, queryTimeoutMs, async (query) => {
      const oldest = await query<{ seq: number; changed_at: string }>(STATEMENTS.oldest.text, [TRIM_BATCH])
      const [horizon] = await query<HorizonRow>(STATEMENTS.horizon.text)
      const through = trimThrough(oldest, horizon!.last_seq, Date.now(), retention)
      if (through === 0) return false
      await query(SQL.trim, [through])
      await query(SQL.trimmed, [through])
      // The oldest rows read are the ones removed (another instance may have removed some first).
      return oldest.filter((row) => row.seq <= through).length >= TRIM_BATCH
    })
  }

  /** Opens the listening connection and tells the listeners once it is up (changes may have committed before). */
  private listen(): void {
    const client = new pg.Client({
      connectionString: this.url,
      application_name: 'book-service-changes',
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
      statement_timeout: QUERY_TIMEOUT_MS,
      types
    })
    this.listening = client
    const retry = () => {
      if (this.listening !== client) return
      this.listening = undefined
      void client.end().catch(() => {})
      this.reconnect = setTimeout(() => this.listen(), RECONNECT_MS).unref()
    }
    client.on('error', retry)
    client.on('end', retry)
    client.on('notification', () => this.listeners.wake())
    client
      .connect()
      .then(() => client.query(`LISTEN ${CHANNEL}`))
      // Commits made before LISTEN took effect sent no notification to this connection: wake once it is up.
      .then(() => this.listeners.wake(), retry)
  }
}
