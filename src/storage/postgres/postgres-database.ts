import type pg from 'pg'
import type { Book, BookInput, BookPatch } from '../../book/schema.js'
import type { BookFilter, BookQuery } from '../../book/query.js'
import type { AccountStore } from '../contracts/account-store.js'
import type { ApiTokenStore } from '../contracts/api-token-store.js'
import type { BookStore, BookWriteOutcome, VersionedBook } from '../contracts/book-store.js'
import type { Database } from '../contracts/database.js'
import type { ChangeContext } from '../contracts/change-log.js'
import { contextObject } from '../sql/change-log-statements.js'
import { patchValues } from '../sql/book-statements.js'
import { FEW_CANDIDATES, type SearchReadOptions } from '../sql/search-results.js'
import { DEFAULT_RETENTION, TRIM_INTERVAL_MS, type ChangeLogOptions, type ChangeLogRetention } from '../retention.js'
import { postgresAccountStore } from './postgres-account-store.js'
import { postgresApiTokenStore } from './postgres-api-token-store.js'
import { PostgresChangeLog } from './postgres-change-log.js'
import { ChangeNumbering } from './postgres-change-numbering.js'
import { PostgresLoginAttempts } from './postgres-login-attempts.js'
import { postgresWebhookStore } from './postgres-webhook-store.js'
import type { WebhookStore } from '../contracts/webhook-store.js'
import type { LoginAttempts } from '../contracts/login-attempts.js'
import { QUERY_TIMEOUT_GRACE_MS, QUERY_TIMEOUT_MS, effectiveStatementTimeoutMs, openPool, type PostgresOptions } from './postgres-connection.js'
import { GroupInsert } from './postgres-group-insert.js'
import { isWriteRefused } from './postgres-errors.js'
import { idempotentCreates } from './postgres-idempotency.js'
import { probeWrite } from './postgres-write-probe.js'
import type { IdempotencyClaim, IdempotentCreate } from '../contracts/idempotency.js'
import { STATEMENTS, statementRunner } from './postgres-statements.js'
import type { HistoryPage, RestoreOutcome } from '../contracts/book-history.js'
import { restoreBook } from './postgres-book-restore.js'
import { PostgresBookReads } from './postgres-book-reads.js'
import { PostgresReplicas } from './postgres-replicas.js'

/** The change log's numbering, as the store runs it (postgres-change-numbering.ts). */
interface NumberingOptions {
  /** Told when the numbering connection fails (it reconnects by itself). */
  onNumberingError?: (error: unknown) => void
  /** How searches are read (their cost only; storage/sql/search-results.ts). */
  search?: SearchReadOptions
  /** The read replicas' URLs (docs/several-instances.md "Read replicas"); none: every read on the primary. */
  replicaUrls?: readonly string[]
  /** Told when a replica failed a read and the primary answered it (the replica's URL, the error). */
  onReplicaFallback?: (url: string, error: unknown) => void
}

/** Ids one statement of a search's walk by id covers on PostgreSQL (docs/search.md "How a page is read"). */
const SEARCH_WINDOW = 65_536

/**
 * The PostgreSQL {@link Database} (node-postgres pool, parameterised named statements:
 * postgres-statements.ts). Ids come from a `BIGINT GENERATED ALWAYS AS IDENTITY` column, so they ascend
 * and are never reused. Each write is one statement, so it is atomic and durable once PostgreSQL
 * commits it; creates are gathered into group inserts (postgres-group-insert.ts); a partial update is a
 * single `UPDATE … SET col = COALESCE($n, col)`, so concurrent updates of different fields all
 * survive, and an update racing a delete never resurrects the row.
 */
export class PostgresDatabase implements Database, BookStore {
  /**
   * The book operations are this object's own: they share its pool, its change numbering and the
   * last write refusal with {@link ping}.
   */
  readonly books: BookStore = this
  readonly accounts: AccountStore
  readonly apiTokens: ApiTokenStore
  readonly changes: PostgresChangeLog
  readonly loginAttempts: LoginAttempts
  readonly webhooks: WebhookStore
  /** Where book reads go when `replicaUrls` names replicas (postgres-replicas.ts); else undefined. */
  readonly readReplicas: PostgresReplicas | undefined
  private closed: Promise<void> | undefined
  private readonly query
  private readonly inserts
  private readonly trimTimer: NodeJS.Timeout
  private readonly idempotent
  private readonly numbering: ChangeNumbering
  /** The last write refusal (read-only, disk full), until a probe write succeeds: not ready meanwhile. */
  private refused: Error | undefined
  private readonly queryTimeoutMs: number
  /** The primary's book reads (postgres-book-reads.ts). */
  private readonly reads: PostgresBookReads

  private constructor(
    private readonly pool: pg.Pool,
    url: string,
    options: PostgresOptions & ChangeLogOptions & NumberingOptions,
    private readonly onWriteHealth: (failure: Error | undefined) => void
  ) {
    // The server stops a statement at the bound (the pool's `statement_timeout`); the client waits a
    // little longer, for a server gone silent (postgres-connection.ts: QUERY_TIMEOUT_GRACE_MS).
    this.queryTimeoutMs = (options.queryTimeoutMs ?? QUERY_TIMEOUT_MS) + QUERY_TIMEOUT_GRACE_MS
    const queryTimeoutMs = this.queryTimeoutMs
    const run = statementRunner(pool, queryTimeoutMs, options.namedStatements ?? options.directUrl === undefined)
    this.query = <Row extends pg.QueryResultRow>(statement: Parameters<typeof run>[0], values: unknown[]) =>
      run<Row>(statement, values).catch((error: unknown) => this.noted(error))
    // The numbering's lock and the listener's LISTEN need a session: never through a pooler.
    const sessionUrl = options.directUrl ?? url
    this.numbering = new ChangeNumbering(sessionUrl, options.onNumberingError)
    this.numbering.start()
    const search = { fewCandidates: FEW_CANDIDATES, windowSize: SEARCH_WINDOW, boundMs: options.queryTimeoutMs ?? QUERY_TIMEOUT_MS, ...options.search }
    this.reads = new PostgresBookReads(this.query, search)
    this.inserts = new GroupInsert(this.query)
    this.idempotent = idempotentCreates(pool, queryTimeoutMs)
    this.accounts = postgresAccountStore(pool, queryTimeoutMs)
    this.apiTokens = postgresApiTokenStore(pool, queryTimeoutMs)
    this.changes = new PostgresChangeLog(sessionUrl, this.query)
    this.readReplicas = options.replicaUrls?.length
      ? new PostgresReplicas(options.replicaUrls, this.reads, this.query, this.changes, {
          sessionUrl,
          poolSize: options.poolSize,
          connectTimeoutMs: options.connectTimeoutMs,
          onConnectionError: options.onConnectionError,
          statementTimeoutMs: options.queryTimeoutMs ?? QUERY_TIMEOUT_MS,
          queryTimeoutMs,
          search,
          onFallback: options.onReplicaFallback
        })
      : undefined
    const retention = options.retention ?? DEFAULT_RETENTION
    this.trimTimer = setInterval(() => void this.trim(retention), options.trimIntervalMs ?? TRIM_INTERVAL_MS).unref()
    this.loginAttempts = new PostgresLoginAttempts(pool, queryTimeoutMs)
    this.webhooks = postgresWebhookStore(pool, queryTimeoutMs)
  }

  /**
   * Connects to `url` and applies pending migrations, retrying while the database is unreachable
   * (postgres-connection.ts: `openPool`). Every statement of the pool runs under
   * `statement_timeout` = `queryTimeoutMs` (default 10 s): past it the server stops it and the
   * request answers 503 with `Retry-After`. Every instance keeps the change log's retention, one short
   * transaction of at most `TRIM_BATCH` rows at a time.
   *
   * @param options the pool's options, and the change log's retention (docs/change-feed.md "Change log").
   * @throws the last connection error once the start-up time is up, or a migration error at once.
   */
  static async open(
    url: string,
    options: PostgresOptions & ChangeLogOptions & NumberingOptions & { onWriteHealth?: (failure: Error | undefined) => void }
  ): Promise<PostgresDatabase> {
    const bound = options.queryTimeoutMs ?? QUERY_TIMEOUT_MS
    const pool = await openPool(url, { ...options, statementTimeoutMs: bound })
    if (options.directUrl !== undefined) {
      // Behind a pooler the bound is the pooler's to set (its connections carry no startup setting).
      const timeoutMs = await effectiveStatementTimeoutMs(pool).catch(() => undefined)
      if (timeoutMs !== undefined && (timeoutMs === 0 || timeoutMs > bound)) {
        options.onWarning?.(
          `statement_timeout through DATABASE_URL is ${timeoutMs === 0 ? 'unset' : `${timeoutMs} ms`}, not ${bound} ms: a statement past the bound runs on after its 503; set it in the pooler (docs/several-instances.md "Behind PgBouncer")`
        )
      }
    }
    return new PostgresDatabase(pool, url, options, options.onWriteHealth ?? (() => {}))
  }

  /** Stored by the next group insert (postgres-group-insert.ts), with the other creates of this event-loop turn. */
  create(input: BookInput, context: ChangeContext): Promise<Book> {
    return this.numbered(this.inserts.create(input, context))
  }

  /** Its own transaction (postgres/postgres-idempotency.ts), outside the group insert: the key's lock, lookup, book and answer. */
  createIdempotent(input: BookInput, claim: IdempotencyClaim, context: ChangeContext): Promise<IdempotentCreate> {
    return this.numbered(this.idempotent.create(input, claim, context).catch((error: unknown) => this.noted(error)))
  }

  trimIdempotencyKeys(before: string): Promise<number> {
    return this.idempotent.trim(before)
  }

  list(query?: BookQuery): AsyncIterable<Book> {
    return this.reads.list(query)
  }

  count(filter: BookFilter): Promise<number> {
    return this.reads.count(filter)
  }

  get(id: number): Promise<VersionedBook | undefined> {
    return this.reads.get(id)
  }

  /**
   * With `expectedVersion`, one `UPDATE … WHERE id = $6 AND version = $7`: PostgreSQL locks the
   * row, and a concurrent update that committed first makes the condition false, so exactly one
   * of two racing conditional updates of the same version succeeds.
   */
  async update(id: number, patch: BookPatch, context: ChangeContext, expectedVersion?: number): Promise<BookWriteOutcome<{ book: VersionedBook }>> {
    const rows = await this.numbered(
      expectedVersion === undefined
        ? this.query<VersionedBook>(STATEMENTS.update, [...patchValues(patch), id, contextText(context)])
        : this.query<VersionedBook>(STATEMENTS.updateIfVersion, [...patchValues(patch), id, expectedVersion, contextText(context)])
    )
    if (rows[0] !== undefined) return { status: 'written', book: rows[0] }
    return expectedVersion === undefined ? { status: 'missing' } : this.missingOrStale(id)
  }

  async delete(id: number, context: ChangeContext, expectedVersion?: number): Promise<BookWriteOutcome> {
    const rows = await this.numbered(
      expectedVersion === undefined
        ? this.query(STATEMENTS.delete, [id, contextText(context)])
        : this.query(STATEMENTS.deleteIfVersion, [id, expectedVersion, contextText(context)])
    )
    if (rows.length > 0) return { status: 'written' }
    return expectedVersion === undefined ? { status: 'missing' } : this.missingOrStale(id)
  }

  history(id: number, before: number, limit: number): Promise<HistoryPage | undefined> {
    return this.reads.history(id, before, limit)
  }

  hasHistory(id: number): Promise<boolean> {
    return this.reads.hasHistory(id)
  }

  /** Its own transaction (postgres-book-restore.ts): the version's lookup, the row lock and check, the write and its mark. */
  restore(id: number, version: number, expectedVersion: number | undefined, context: ChangeContext): Promise<RestoreOutcome> {
    const restoring = contextText({ ...context, restoredFrom: version })
    return restoreBook(this.pool, this.queryTimeoutMs, id, version, expectedVersion, restoring).catch((error: unknown) => this.noted(error))
  }

  /** Undefined: other instances write to the same database, so only a query could tell. */
  changeMark(): undefined {
    return undefined
  }

  /**
   * Ready when the database answers and, after a write was refused (read-only, disk full), once a
   * probe write succeeds again (postgres-write-probe.ts).
   */
  async ping(): Promise<void> {
    await this.query(STATEMENTS.ping, [])
    if (!this.refused) return
    await probeWrite(this.pool, this.queryTimeoutMs)
    this.refused = undefined
    this.onWriteHealth(undefined)
  }

  /**
   * `write`, and once it committed a numbering round at once when this instance holds the
   * numbering (postgres-change-numbering.ts), so its own writes reach the feed without waiting for the poll.
   */
  private numbered<T>(write: Promise<T>): Promise<T> {
    return write.then((result) => {
      this.numbering.kick()
      return result
    })
  }

  /** Notes a write refusal (told once, until a probe succeeds), then rethrows `error`. */
  private noted(error: unknown): never {
    if (isWriteRefused(error)) {
      if (!this.refused) this.onWriteHealth(error as Error)
      this.refused = error as Error
    }
    throw error
  }

  /**
   * Drains the pool: waits for queries in flight, then closes every connection. Safe to call
   * more than once (node-postgres throws on a second `end()`).
   */
  async close(): Promise<void> {
    clearInterval(this.trimTimer)
    this.changes.stop()
    await this.numbering.stop()
    await this.readReplicas?.close()
    this.closed ??= this.pool.end()
    await this.closed
  }

  /** Retention steps until nothing more is due; a failure waits for the next round. */
  private async trim(retention: ChangeLogRetention): Promise<void> {
    try {
      while (this.closed === undefined && (await this.changes.trim(this.pool, retention, this.queryTimeoutMs)));
    } catch {
      // The database is unreachable or busy: the next round tries again; writes never wait on it.
    }
  }

  /** Why a conditional write changed nothing: the book is gone, or its version moved on. */
  private async missingOrStale(id: number): Promise<{ status: 'missing' | 'stale' }> {
    return { status: (await this.query(STATEMENTS.exists, [id])).length > 0 ? 'stale' : 'missing' }
  }
}

/** The change context as the JSON text the statements set for the trigger (`ChangeContext`). */
function contextText(context: ChangeContext): string {
  return JSON.stringify(contextObject(context))
}
