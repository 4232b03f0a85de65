import type pg from 'pg'
import type { Book } from '../../book/schema.js'
import type { BookChange, ChangeLog } from '../contracts/change-log.js'
import type { StorageUnavailableError } from '../contracts/database.js'
import { parsePosition, type BookReads, type ReadReplicas } from '../contracts/read-replicas.js'
import type { SearchReadOptions } from '../sql/search-results.js'
import { bookChangeOf, changeLogStatements, type ChangeRow } from '../sql/change-log-statements.js'
import { PostgresBookReads, type Query } from './postgres-book-reads.js'
import { newPool, type PostgresOptions } from './postgres-connection.js'
import { statementRunner } from './postgres-statements.js'
import { ACTORS_PER_ANNOUNCEMENT, ANNOUNCE_WRITES, WriteAnnouncements, actorKey } from './postgres-write-announcements.js'

/** The change log's read of changes after a number, on a replica (placeholders `$n`). */
const CHANGES_AFTER = { name: 'replica-change-log-after', text: changeLogStatements('postgres').after }

/**
 * What each poll reads from a replica: its replayed WAL position (NULL when it is not in recovery)
 * and the last change number it holds (as the change log's `horizon` counts it).
 */
const REPLICA_STATE = `SELECT pg_last_wal_replay_lsn()::text AS lsn,
  (SELECT GREATEST(trimmed_through, COALESCE((SELECT max(seq) FROM book_changes), 0)) FROM book_change_horizon) AS last_seq`

/** How often each replica's replayed position is read, in ms: how soon a replica is used again after a write. */
export const REPLAY_POLL_MS = 50

/** How long a replica's position may go unread before reads stop going to it, in ms (a replica gone silent). */
const REPLAY_SILENT_MS = 1000

/** SQLSTATEs of a replica's read that the primary may well answer: a recovery conflict cancelled it (`serialization_failure`, `deadlock_detected`). */
const RECOVERY_CONFLICT_CODES = new Set(['40001', '40P01'])

/** One read replica: its pool, its reads, and the position it was last seen to have replayed. */
interface Replica {
  readonly url: string
  readonly pool: pg.Pool
  /** Its reads, retried on the primary when they fail ({@link withFallback}). */
  readonly reads: BookReads
  /** Its change log's changes after a number (not retried: {@link PostgresReplicas.changesAfter} does that). */
  readonly changesAfter: (after: number, limit: number) => Promise<BookChange[]>
  /** The last change number it held at the last poll; undefined while unknown. */
  lastSeq: number | undefined
  /** The WAL position it had replayed at the last poll; undefined while unknown (not polled yet, unreachable, silent, promoted). */
  replayed: bigint | undefined
  /** When the poll in flight started (ms since the epoch), or undefined when none is. */
  pollingSince: number | undefined
}

/** Options of {@link PostgresReplicas}. */
export interface ReplicaOptions extends Pick<PostgresOptions, 'poolSize' | 'connectTimeoutMs' | 'onConnectionError'> {
  /** The primary's session URL (the direct one behind a pooler), where this instance listens to every instance's write announcements. */
  sessionUrl: string
  /** Each read's bound on a replica, in ms (its `statement_timeout`), as on the primary. */
  statementTimeoutMs: number
  /** How long the client waits for an answer, in ms (the bound plus a grace). */
  queryTimeoutMs: number
  /** The searches' cost options, as on the primary. */
  search: Required<SearchReadOptions>
  /** Told when a replica's read failed and was answered by the primary instead (the error). */
  onFallback?: (url: string, error: unknown) => void
}

/**
 * The read replicas of a PostgreSQL primary (`DATABASE_REPLICA_URLS`; docs/several-instances.md
 * "Read replicas"). Each replica's replayed WAL position (`pg_last_wal_replay_lsn()`) is read every
 * {@link REPLAY_POLL_MS}; a read that must see a position goes to a replica seen at or past it,
 * in turn, else to the primary. The position seen only grows while a replica streams from this
 * primary, so a replica seen past a position has replayed it: a read routed so is never stale.
 * Every instance announces its accounts' writes and hears the others' ({@link WriteAnnouncements}),
 * so an account that wrote through any instance reads at or past its write without sending the position.
 */
export class PostgresReplicas implements ReadReplicas {
  readonly counters = { primary: 0, replica: 0, fallbacks: 0 }
  private readonly replicas: Replica[]
  private readonly timer: NodeJS.Timeout
  private turn = 0
  private readonly announcements: WriteAnnouncements
  /** The announcement the current event-loop turn's writes share, before it is sent, with the writers' keys. */
  private nextAnnouncement: { position: Promise<bigint>; actors: Set<string> } | undefined

  /**
   * @param urls the replicas' postgres:// URLs.
   * @param primary the primary's reads (where a read goes when no replica has replayed far enough).
   * @param primaryQuery runs a statement on the primary (the commit position).
   * @param primaryChanges the primary's change log (where a catch-up read goes when no replica has the changes).
   */
  constructor(
    urls: readonly string[],
    private readonly primary: BookReads,
    private readonly primaryQuery: Query,
    private readonly primaryChanges: Pick<ChangeLog, 'changesAfter'>,
    private readonly options: ReplicaOptions
  ) {
    this.replicas = urls.map((url) => {
      const pool = newPool(url, { ...options, applicationName: 'book-service-replica-reads', startupTimeoutMs: 0 })
      const query = statementRunner(pool, options.queryTimeoutMs)
      const reads = new PostgresBookReads(query, options.search)
      return {
        url,
        pool,
        reads: withFallback(reads, primary, (error) => this.fellBack(url, error)),
        changesAfter: async (after: number, limit: number) => (await query<ChangeRow>(CHANGES_AFTER, [after, limit])).map(bookChangeOf),
        replayed: undefined,
        lastSeq: undefined,
        pollingSince: undefined
      }
    })
    this.announcements = new WriteAnnouncements(options.sessionUrl)
    this.announcements.start()
    this.timer = setInterval(() => this.poll(), REPLAY_POLL_MS).unref()
    this.poll()
  }

  async readsFor(actor: string | null, position: bigint | undefined): Promise<BookReads> {
    if (actor !== null) {
      await this.announcements.barrier()
      const last = this.announcements.lastWriteOf(actorKey(actor))
      if (last !== undefined && (position === undefined || last > position)) position = last
    }
    return this.readsAfter(position)
  }

  /**
   * A replica seen at or past `position` and past the floor ({@link WriteAnnouncements.heardFrom}:
   * every write not heard of committed before it, and the schema this instance migrated to), in
   * turn, else the primary.
   */
  private readsAfter(position: bigint | undefined): BookReads {
    const floor = this.announcements.heardFrom
    if (floor !== undefined) {
      const needed = position === undefined || position < floor ? floor : position
      const count = this.replicas.length
      for (let tried = 0; tried < count; tried++) {
        const replica = this.replicas[this.turn++ % count]!
        if (replica.replayed !== undefined && replica.replayed >= needed) {
          this.counters.replica++
          return replica.reads
        }
      }
    }
    this.counters.primary++
    return this.primary
  }

  async changesAfter(after: number, limit: number): Promise<BookChange[]> {
    // Only a replica past the floor (the schema) that holds a change after `after`: its answer is
    // then never empty, so a catch-up never takes a lagging replica's silence for "caught up".
    const floor = this.announcements.heardFrom
    if (floor !== undefined) {
      const count = this.replicas.length
      for (let tried = 0; tried < count; tried++) {
        const replica = this.replicas[this.turn++ % count]!
        if (replica.replayed === undefined || replica.replayed < floor || replica.lastSeq === undefined || replica.lastSeq <= after) continue
        this.counters.replica++
        try {
          return await replica.changesAfter(after, limit)
        } catch (error) {
          if (!isReplicaFailure(error)) throw error
          this.fellBack(replica.url, error)
          return this.primaryChanges.changesAfter(after, limit)
        }
      }
    }
    this.counters.primary++
    return this.primaryChanges.changesAfter(after, limit)
  }

  commitPosition(actor: string | null): Promise<bigint> {
    // Shared only by callers that came before the statement is sent: each of their writes had
    // committed by then, so the position read is past every one of them.
    if (this.nextAnnouncement === undefined || this.nextAnnouncement.actors.size >= ACTORS_PER_ANNOUNCEMENT) {
      const actors = new Set<string>()
      const position = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
        if (this.nextAnnouncement?.actors === actors) this.nextAnnouncement = undefined
        const [row] = await this.primaryQuery<{ lsn: string }>(ANNOUNCE_WRITES, [JSON.stringify([...actors])])
        const at = parsePosition(row!.lsn)!
        // This process's own writes count at once, without waiting for the notification to come back.
        this.announcements.remember([...actors], at)
        return at
      })
      this.nextAnnouncement = { position, actors }
    }
    if (actor !== null) this.nextAnnouncement.actors.add(actorKey(actor))
    return this.nextAnnouncement.position
  }

  /** Counts a read a replica failed and the primary answered, and tells `onFallback`. */
  private fellBack(url: string, error: unknown): void {
    this.counters.fallbacks++
    this.options.onFallback?.(url, error)
  }

  /** Stops the polling and closes the replicas' and the announcements' connections. */
  async close(): Promise<void> {
    clearInterval(this.timer)
    this.announcements.close()
    await Promise.all(this.replicas.map((replica) => replica.pool.end().catch(() => {})))
  }

  /** Reads each replica's replayed position; one poll in flight per replica. */
  private poll(): void {
    const now = Date.now()
    for (const replica of this.replicas) {
      if (replica.pollingSince !== undefined) {
        if (now - replica.pollingSince > REPLAY_SILENT_MS) replica.replayed = undefined
        continue
      }
      replica.pollingSince = now
      replica.pool
        .query<{ lsn: string | null; last_seq: string }>({ text: REPLICA_STATE, query_timeout: REPLAY_SILENT_MS } as pg.QueryConfig)
        .then(
          ({ rows }) => {
            // NULL: not in recovery (promoted, or not a standby at all): its data may have gone another way.
            const lsn = rows[0]?.lsn
            replica.replayed = lsn ? parsePosition(lsn) : undefined
            replica.lastSeq = replica.replayed === undefined ? undefined : Number(rows[0]!.last_seq)
          },
          () => {
            // Unreachable, or still before the schema (no change log yet): no reads until it answers.
            replica.replayed = undefined
            replica.lastSeq = undefined
          }
        )
        .finally(() => {
          replica.pollingSince = undefined
        })
    }
  }
}

/** Whether a replica's failed read is worth asking the primary: the replica is unreachable, or a recovery conflict cancelled the read. */
function isReplicaFailure(error: unknown): boolean {
  const unavailable = error as Partial<StorageUnavailableError> & { code?: string }
  if (unavailable.name === 'StorageUnavailableError') return unavailable.retryAfterSeconds === undefined
  return unavailable.code !== undefined && RECOVERY_CONFLICT_CODES.has(unavailable.code)
}

/**
 * `replica`'s reads, each answered by `primary` when the replica fails it ({@link isReplicaFailure});
 * a list only while it has yielded nothing yet. A statement stopped at the bound is not repeated
 * on the primary: it would cost as much there.
 */
export function withFallback(replica: BookReads, primary: BookReads, onFallback: (error: unknown) => void): BookReads {
  const retried = async <T>(read: (reads: BookReads) => Promise<T>): Promise<T> => {
    try {
      return await read(replica)
    } catch (error) {
      if (!isReplicaFailure(error)) throw error
      onFallback(error)
      return read(primary)
    }
  }
  return {
    get: (id) => retried((reads) => reads.get(id)),
    count: (filter) => retried((reads) => reads.count(filter)),
    history: (id, before, limit) => retried((reads) => reads.history(id, before, limit)),
    hasHistory: (id) => retried((reads) => reads.hasHistory(id)),
    async *list(query) {
      const books = replica.list(query)[Symbol.asyncIterator]()
      let first: IteratorResult<Book>
      try {
        first = await books.next()
      } catch (error) {
        if (!isReplicaFailure(error)) throw error
        onFallback(error)
        yield* primary.list(query)
        return
      }
      // A consumer that stops early (a client gone mid-stream) ends the replica's list too.
      try {
        for (let next = first; !next.done; next = await books.next()) yield next.value
      } finally {
        await books.return?.()
      }
    }
  }
}
