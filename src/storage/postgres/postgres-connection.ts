import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import { migrateToLatest } from '../schema/migrate.js'
import { isUnreachable } from './postgres-errors.js'

const INT8_OID = 20

/** Parses BIGINT ids as numbers: ids are at most 2^53-1 (docs/contract.md "Ids"). */
export const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser
}

/** Options of {@link openPool} (and `PostgresDatabase.open`). */
export interface PostgresOptions {
  /** Most connections the pool opens. */
  poolSize: number
  /** How the connections name themselves to the server (`pg_stat_activity`); default `book-service`. */
  applicationName?: string
  /** How long start-up keeps retrying an unreachable database before giving up, in milliseconds. */
  startupTimeoutMs: number
  /** Called before each start-up retry, with the error and the delay before the next try (ms). */
  onRetry?: (error: unknown, delayMs: number) => void
  /**
   * Called when a pooled connection fails outside any request (the server restarted, the network
   * dropped it). The pool has already discarded that connection; the next query opens a new one.
   */
  onConnectionError?: (error: unknown) => void
  /**
   * Longest wait, in milliseconds, for a connection: opening a new one, or a free one when all
   * `poolSize` are busy. Past it the request answers 503. Default {@link CONNECT_TIMEOUT_MS}.
   */
  connectTimeoutMs?: number
  /**
   * Longest wait, in milliseconds, for the answer to one book query once sent (a server or network
   * that went silent without closing the connection). Past it the request answers 503 and the
   * connection is discarded. Default {@link QUERY_TIMEOUT_MS}.
   */
  queryTimeoutMs?: number
  /**
   * The connections' `statement_timeout`, in ms: the server stops any statement of theirs that
   * runs longer, so nothing runs on after its request answered 503 (docs/operations.md "Bounded
   * reads"). The service's pool sets it to its query bound; absent (the command line's import,
   * accounts and webhooks), the server's own setting applies. Migrations never run under it.
   */
  statementTimeoutMs?: number
  /**
   * A direct connection's URL, for what needs a session (migrations here; the change log's
   * numbering and listener in postgres-database.ts). When given, the pool's own URL is taken to
   * be a transaction-mode pooler (PgBouncer): its connections send no session setting as a
   * startup parameter (a pooler refuses them), so `statementTimeoutMs` is the pooler's to set
   * (docs/several-instances.md "Behind PgBouncer").
   */
  directUrl?: string
  /**
   * Whether the store's statements are prepared once per connection under a name
   * (postgres-statements.ts `statementRunner`). Default: true, or false when `directUrl` is given.
   */
  namedStatements?: boolean
  /** Told of a setting that weakens a guarantee without stopping the service (one line each). */
  onWarning?: (message: string) => void
}

/** Default {@link PostgresOptions.connectTimeoutMs}: 5 s (node-postgres' own default is to wait forever). */
export const CONNECT_TIMEOUT_MS = 5000
/**
 * `idle_in_transaction_session_timeout` of every connection of the service, in ms: a transaction
 * of its own left open (a bug, a lost client) is ended by the server, so it holds no row locks
 * (docs/change-feed.md "Change log": what a long transaction costs).
 */
export const IDLE_IN_TRANSACTION_MS = 60_000

/** Default {@link PostgresOptions.queryTimeoutMs}: 10 s (node-postgres' own default is to wait forever). */
export const QUERY_TIMEOUT_MS = 10_000

/**
 * How much longer than a statement's bound the client waits for its answer, in ms, when the
 * server enforces the bound (`statementTimeoutMs`): the server's timeout error arrives first,
 * and the statement is gone from the server when the request answers 503; the client's own
 * timer is then only for a server or network gone silent.
 */
export const QUERY_TIMEOUT_GRACE_MS = 1000

/**
 * Opens the connection pool to `url` and applies pending migrations (under Kysely's advisory
 * lock, so several instances may start at once). While the database is unreachable it retries
 * with exponential backoff (0.25 s doubling to 5 s) for up to `startupTimeoutMs`.
 *
 * @returns the pool, its schema up to date.
 * @throws the last connection error once the time is up, or a migration error at once.
 */
export async function openPool(url: string, options: PostgresOptions): Promise<pg.Pool> {
  const deadline = Date.now() + options.startupTimeoutMs
  for (let delay = 250; ; delay = Math.min(delay * 2, 5000)) {
    // Migrations run on connections of their own, without the statement bound: a migration may
    // legitimately take minutes (an index built concurrently on millions of rows).
    // Whatever the URL's or the server's own setting, no migration statement is cut short: 0 (none)
    // is sent at connection start, which wins over the database's and the role's settings and over
    // the URL's `options`. Set by a statement after connecting instead, it could itself be cut
    // short by such a setting, and a connection that failed there is never handed back to the pool.
    const migrating = newPool(options.directUrl ?? url, { ...options, directUrl: undefined, poolSize: 1, statementTimeoutMs: 0 })
    try {
      const dialect = new PostgresDialect({ pool: migrating })
      await migrateToLatest(new Kysely<unknown>({ dialect }), 'postgres')
      await migrating.end()
      return newPool(url, options)
    } catch (error) {
      await migrating.end()
      if (!isUnreachable(error) || Date.now() + delay > deadline) throw error
      options.onRetry?.(error, delay)
      await new Promise((resolve) => setTimeout(resolve, delay))
    }
  }
}

/**
 * A pool of connections to `url` with `options`, each under `options.statementTimeoutMs` when
 * given, unless `url` is a pooler (`options.directUrl` given): then they carry no session setting.
 * Nothing is migrated: {@link openPool} does that on the primary; a read replica (postgres-replicas.ts)
 * replays the primary's schema.
 */
export function newPool(url: string, options: PostgresOptions): pg.Pool {
  const sessionSettings = options.directUrl !== undefined ? {} : {
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_MS,
    // node-postgres sends only a truthy `statement_timeout`: 0 (none) goes as the text '0'.
    ...(options.statementTimeoutMs === undefined ? {} : { statement_timeout: (options.statementTimeoutMs === 0 ? '0' : options.statementTimeoutMs) as number })
  }
  const pool = new pg.Pool({
    connectionString: url, // ssl, sslmode, application_name, options… in the URL pass through and win
    application_name: options.applicationName ?? 'book-service',
    max: options.poolSize,
    connectionTimeoutMillis: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
    keepAlive: true, // TCP keep-alive, so a dead peer is noticed on an idle connection too
    ...sessionSettings,
    types
  })
  // A connection that fails while idle in the pool is discarded by the pool, which then emits
  // 'error': without a listener that would crash the process. Log it and go on.
  pool.on('error', (error) => options.onConnectionError?.(error))
  // While a client is checked out (Kysely holds one for the whole migration) the pool does not
  // listen for its errors; this listener keeps a connection lost mid-migration from crashing
  // the process: the pending query rejects instead, and the pool discards the client on release.
  pool.on('connect', (client) => client.on('error', () => {}))
  return pool
}

/**
 * The `statement_timeout` that a new transaction through `pool` runs under, in ms (0: none). Behind
 * a pooler it comes from the pooler's set-up (`connect_query`) or the role's or database's
 * settings, not from the service.
 */
export async function effectiveStatementTimeoutMs(pool: pg.Pool): Promise<number> {
  const { rows } = await pool.query<{ ms: string }>("SELECT setting AS ms FROM pg_settings WHERE name = 'statement_timeout'")
  return Number(rows[0]!.ms)
}
