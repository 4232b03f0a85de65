import { createHash } from 'node:crypto'
import pg from 'pg'
import { parsePosition } from '../contracts/read-replicas.js'
import { IDLE_IN_TRANSACTION_MS, types } from './postgres-connection.js'

/** The channel every instance announces its accounts' book writes on, and listens to. */
export const WRITES_CHANNEL = 'book_service_writes'

/**
 * How long an account that wrote, through any instance, has its reads served at or past its last
 * write's position, in ms (bounded stickiness: reads that do not send `Commit-Position` back).
 */
export const STICKY_MS = 60_000

/** Most accounts whose last write a process remembers for {@link STICKY_MS}; the oldest go first. */
export const MAX_STICKY_ACCOUNTS = 10_000

/** Most accounts named in one announcement: with keys of at most {@link LONGEST_KEPT_ACTOR} bytes as JSON the payload stays under PostgreSQL's 8,000 bytes. */
export const ACTORS_PER_ANNOUNCEMENT = 25

/** Longest actor kept as written in an announcement, in bytes of its JSON text; a longer one (a long `sub` claim) is sent as its SHA-256. */
const LONGEST_KEPT_ACTOR = 200

/** How long the listening connection waits before reconnecting after it was lost, in ms. */
const RECONNECT_MS = 1000

/** Most time a barrier may take on the listening connection before it is taken as lost, in ms. */
const BARRIER_TIMEOUT_MS = 2000

/**
 * An actor (the change log's `actor`: a token's `sub`) as announcements and the stickiness name it:
 * as written when its JSON text takes at most {@link LONGEST_KEPT_ACTOR} bytes, else `sha256:` and
 * its SHA-256 in base64url (no account's key collides with it in practice; a collision would only
 * send more reads to the primary).
 */
export function actorKey(actor: string): string {
  return Buffer.byteLength(JSON.stringify(actor)) <= LONGEST_KEPT_ACTOR ? actor : `sha256:${createHash('sha256').update(actor).digest('base64url')}`
}

/**
 * The statement announcing writes that have committed: the primary's current WAL insert position
 * (at or past every one of their commits) and, in the same statement, a notification on
 * {@link WRITES_CHANNEL} carrying it and the writers' keys (`$1`, a JSON array). Its own
 * transaction writes nothing but the notification, so it commits without waiting for the disk
 * (`synchronous_commit` off for it alone): the notification is sent at its commit, before its answer.
 */
export const ANNOUNCE_WRITES = {
  text: `SELECT now_at.lsn::text AS lsn, pg_notify('${WRITES_CHANNEL}', json_build_object('position', now_at.lsn::text, 'actors', $1::json)::text)
    FROM (SELECT pg_current_wal_insert_lsn() AS lsn, set_config('synchronous_commit', 'off', true)) AS now_at`
}

/**
 * Which accounts wrote in the last {@link STICKY_MS}, through any instance, and at what position
 * (docs/several-instances.md "Read replicas"). Each instance announces its writes on
 * {@link WRITES_CHANNEL} before it answers them ({@link ANNOUNCE_WRITES}) and listens on a connection of
 * its own (the direct URL: a pooler in transaction mode cannot `LISTEN`).
 *
 * The notification leaves the primary at the announcement's commit, before the writing instance
 * has its answer, but nothing orders its arrival here with a client's next request. So a read
 * first takes a {@link barrier}: one statement on the listening connection, sent after the read
 * arrived; PostgreSQL delivers every notification committed before a statement began ahead of its
 * answer, so once it answers every write answered before the read is known here. While the
 * connection is down, {@link heardFrom} is unknown and reads go to the primary.
 */
export class WriteAnnouncements {
  /** Account key → its last announced write's position and when it was heard (ms since the epoch), oldest first. */
  private readonly lastWrites = new Map<string, { position: bigint; at: number }>()
  private client: pg.Client | undefined
  private reconnect: NodeJS.Timeout | undefined
  private closed = false
  /** The barrier the current event-loop turn's reads share, before it is sent. */
  private nextBarrier: Promise<void> | undefined
  /**
   * The primary's position read just after `LISTEN` took effect, on the listening connection:
   * every write not heard of committed before it. Undefined while the connection is not listening.
   */
  heardFrom: bigint | undefined

  /**
   * @param url the primary's session URL (the direct one behind a pooler).
   * @param now the clock, in ms (tests pass their own).
   */
  constructor(
    private readonly url: string,
    private readonly now: () => number = Date.now
  ) {}

  /** Opens the listening connection (and reopens it every second while it is lost). */
  start(): void {
    if (this.closed) return
    const client = new pg.Client({
      connectionString: this.url,
      application_name: 'book-service-write-announcements',
      idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
      query_timeout: BARRIER_TIMEOUT_MS,
      types
    })
    this.client = client
    const retry = () => this.drop(client)
    client.on('error', retry)
    client.on('end', retry)
    client.on('notification', (message) => this.heard(message.payload))
    client
      .connect()
      .then(() => client.query(`LISTEN ${WRITES_CHANNEL}`))
      .then(() => client.query<{ lsn: string }>('SELECT pg_current_wal_insert_lsn()::text AS lsn'))
      .then(({ rows }) => {
        if (this.client === client) this.heardFrom = parsePosition(rows[0]!.lsn)
      }, retry)
  }

  /** Records that the accounts `actors` (keys) wrote at or before `position` (this process's own writes, at once; others' as heard). */
  remember(actors: readonly string[], position: bigint): void {
    const at = this.now()
    for (const actor of actors) {
      const last = this.lastWrites.get(actor)
      this.lastWrites.delete(actor)
      this.lastWrites.set(actor, { position: last !== undefined && last.position > position ? last.position : position, at })
      if (this.lastWrites.size > MAX_STICKY_ACCOUNTS) this.lastWrites.delete(this.lastWrites.keys().next().value!)
    }
  }

  /** The position of `actor`'s (key) last write heard of in the last {@link STICKY_MS}, or undefined. */
  lastWriteOf(actor: string): bigint | undefined {
    const last = this.lastWrites.get(actor)
    if (last === undefined) return undefined
    if (this.now() - last.at <= STICKY_MS) return last.position
    this.lastWrites.delete(actor)
    return undefined
  }

  /**
   * Resolves once every announcement committed before the call has been heard: a statement sent on
   * the listening connection after the call (shared by the callers of one event-loop turn). When
   * the connection is not listening, or the statement fails, it resolves at once with
   * {@link heardFrom} unknown (the caller then reads from the primary); never rejects.
   */
  barrier(): Promise<void> {
    this.nextBarrier ??= new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
      this.nextBarrier = undefined
      const client = this.client
      if (client === undefined || this.heardFrom === undefined) return
      try {
        await client.query('SELECT')
      } catch {
        // Lost, or too slow to be relied on: reads go to the primary until a new connection listens.
        this.drop(client)
      }
    })
    return this.nextBarrier
  }

  /** Closes the listening connection for good. */
  close(): void {
    this.closed = true
    clearTimeout(this.reconnect)
    const client = this.client
    this.client = undefined
    this.heardFrom = undefined
    void client?.end().catch(() => {})
  }

  /** Ends `client` if it is still the listening connection, and opens another in {@link RECONNECT_MS}. */
  private drop(client: pg.Client): void {
    if (this.client !== client) return
    this.client = undefined
    this.heardFrom = undefined
    void client.end().catch(() => {})
    if (!this.closed) this.reconnect = setTimeout(() => this.start(), RECONNECT_MS).unref()
  }

  /** Takes in one announcement's payload (`{"position": "16/B374D848", "actors": [...]}`); anything else is ignored. */
  private heard(payload: string | undefined): void {
    try {
      const { position, actors } = JSON.parse(payload ?? '') as { position?: unknown; actors?: unknown }
      const at = typeof position === 'string' ? parsePosition(position) : undefined
      if (at === undefined || !Array.isArray(actors)) return
      this.remember(actors.filter((actor): actor is string => typeof actor === 'string'), at)
    } catch {
      // Not an announcement of this release: nothing to learn from it.
    }
  }
}
