import pg from 'pg'
import { CHANGE_NUMBERING_LOCK } from '../schema/migrations/0007_change_log_numbering.js'
import { IDLE_IN_TRANSACTION_MS, QUERY_TIMEOUT_GRACE_MS, QUERY_TIMEOUT_MS, types } from './postgres-connection.js'

/** Most rows one numbering transaction numbers; a full batch is followed by the next at once. */
export const NUMBERING_BATCH = 1000

/**
 * How often the holder looks for committed rows to number, in ms, when no write of this
 * instance told it to (writes of other instances and programs are found this way).
 */
export const NUMBERING_POLL_MS = 20

/**
 * How often an instance that does not hold the numbering tries to take it over, in ms; also the
 * wait before reconnecting after the connection failed. The failover bound of docs/change-feed.md "Change log".
 */
export const TAKEOVER_MS = 500

/** Longest {@link ChangeNumbering.stop} waits for a round in progress and the connection's end, in ms. */
const STOP_WAIT_MS = 1000

/** Server-side TCP keep-alive of the numbering connection: a holder whose host vanished is dropped after about 5 + 3 × 1 s. */
const KEEPALIVE_SETTINGS = 'SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 1; SET tcp_keepalives_count = 3'

/**
 * The change log's sequencer on PostgreSQL (docs/change-feed.md "Change log"; migration 0007,
 * `numberingStatements` in schema/migrations/0007_change_log_numbering.ts). Every instance runs one, on a connection of its own;
 * the one whose session holds the advisory lock `CHANGE_NUMBERING_LOCK` numbers the committed
 * rows (`book_changes_number`), every {@link NUMBERING_POLL_MS} or at once when this instance
 * committed a write ({@link kick}); each numbered batch notifies `book_changes`, the readers'
 * wake-up. The others try to take the lock every {@link TAKEOVER_MS}: when the holder dies its
 * session ends, PostgreSQL releases the lock, and another instance goes on from the counter the
 * dead one left (a batch it had not committed is rolled back and numbered again), so no number
 * is skipped or given twice.
 */
export class ChangeNumbering {
  private client: pg.Client | undefined
  private holding = false
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> | undefined
  private again = false
  private stopped = false

  /** @param onError told of a failure of the numbering connection (it reconnects by itself). */
  constructor(
    private readonly url: string,
    private readonly onError: (error: unknown) => void = () => {}
  ) {}

  /** Whether this instance numbers the log right now. */
  get isHolder(): boolean {
    return this.holding
  }

  /** Starts taking part: connects and tries to take the numbering. */
  start(): void {
    this.kick()
  }

  /** Runs a round soon: numbers what is committed when this instance holds the numbering. */
  kick(): void {
    if (this.stopped) return
    if (this.running) {
      this.again = true
      return
    }
    clearTimeout(this.timer)
    this.timer = undefined
    this.running = this.round().finally(() => {
      this.running = undefined
      if (this.stopped) return
      if (this.again) {
        this.again = false
        this.kick()
      }
    })
  }

  /**
   * Stops: ends the connection, which releases the numbering to another instance. Waits at most
   * {@link STOP_WAIT_MS} for a round in progress and the connection's end (a silent server).
   */
  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    let timer: NodeJS.Timeout | undefined
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_WAIT_MS)))
    await Promise.race([(async () => {
      await this.running
      await this.disconnect()
    })(), deadline])
    clearTimeout(timer)
    void this.disconnect()
  }

  /** One round: connect, take the lock or number, then schedule the next round. */
  private async round(): Promise<void> {
    try {
      const client = await this.connected()
      if (!this.holding) {
        const { rows } = await client.query<{ taken: boolean }>('SELECT pg_try_advisory_lock($1) AS taken', [CHANGE_NUMBERING_LOCK.toString()])
        this.holding = rows[0]!.taken
      }
      if (this.holding) {
        for (;;) {
          const { rows } = await client.query<{ numbered: number }>('SELECT book_changes_number($1) AS numbered', [NUMBERING_BATCH])
          if (rows[0]!.numbered < NUMBERING_BATCH || this.stopped) break
        }
      }
      this.schedule(this.holding ? NUMBERING_POLL_MS : TAKEOVER_MS)
    } catch (error) {
      if (!this.stopped) this.onError(error)
      await this.disconnect()
      this.schedule(TAKEOVER_MS)
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return
    this.timer = setTimeout(() => this.kick(), delayMs).unref()
  }

  /** The numbering connection, opened when missing. */
  private async connected(): Promise<pg.Client> {
    if (this.client) return this.client
    const client = new pg.Client({
      connectionString: this.url,
      application_name: 'book-service-numbering',
      keepAlive: true,
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
      // The server stops a statement at the bound; a server gone silent fails the round instead of
      // holding it (and close()) forever.
      statement_timeout: QUERY_TIMEOUT_MS,
      query_timeout: QUERY_TIMEOUT_MS + QUERY_TIMEOUT_GRACE_MS,
      connectionTimeoutMillis: QUERY_TIMEOUT_MS,
      types
    })
    client.on('error', () => {}) // the next query fails too, and the round reconnects
    this.client = client
    await client.connect()
    await client.query(KEEPALIVE_SETTINGS)
    return client
  }

  private async disconnect(): Promise<void> {
    const client = this.client
    this.client = undefined
    this.holding = false
    await client?.end().catch(() => {})
  }
}
