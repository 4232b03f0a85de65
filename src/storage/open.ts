import { replicaUrls, type Config } from '../config.js'
import type { AccountStore } from './contracts/account-store.js'
import type { ApiTokenStore } from './contracts/api-token-store.js'
import { BackupError, type BackupOutcome, type RestoredBackup } from './contracts/backup.js'
import type { BookTransfer } from './contracts/book-transfer.js'
import type { Database } from './contracts/database.js'
import { engineOf } from './contracts/engine.js'
import type { PostgresOptions } from './postgres/postgres-connection.js'
import { sqliteAccountStore } from './sqlite/sqlite-account-store.js'
import { sqliteApiTokenStore } from './sqlite/sqlite-api-token-store.js'
import { openMigrated } from './sqlite/sqlite-connection.js'
import { SqliteDatabase } from './sqlite/sqlite-database.js'
import { SqliteBookTransfer } from './sqlite/sqlite-book-transfer.js'
import { sqliteWebhookStore } from './sqlite/sqlite-webhook-store.js'
import { changeLogStatements, type HorizonRow } from './sql/change-log-statements.js'
import type { WebhookStore } from './contracts/webhook-store.js'

/*
 * Where the engine `DATABASE_URL` names is picked: a SQLite file path (or `:memory:`), or a
 * `postgres://` / `postgresql://` URL. PostgreSQL's modules are loaded only when used:
 * node-postgres and Kysely add ~150 ms to every SQLite start otherwise.
 */

/** The settings that say where the database is and how long start-up waits for PostgreSQL. */
export type DatabaseSettings = Pick<Config, 'DATABASE_URL' | 'DATABASE_DIRECT_URL' | 'DATABASE_NAMED_STATEMENTS' | 'DATABASE_POOL_SIZE' | 'DATABASE_STARTUP_TIMEOUT'> &
  Partial<Pick<Config, 'DATABASE_REPLICA_URLS'>>

/** The settings of the change log's retention (docs/change-feed.md "Change log"), which only an open {@link Database} keeps. */
export type ChangeLogSettings = Pick<Config, 'CHANGE_LOG_MAX_AGE' | 'CHANGE_LOG_MAX_ROWS'>

/** Told of each start-up retry while PostgreSQL is unreachable: the error, and the delay before the next try (ms). */
export type RetryListener = (error: unknown, delayMs: number) => void

/** PostgreSQL's pool options from the settings. */
function postgresOptions(config: DatabaseSettings, onRetry?: RetryListener): PostgresOptions {
  return { poolSize: config.DATABASE_POOL_SIZE, startupTimeoutMs: config.DATABASE_STARTUP_TIMEOUT * 1000, onRetry }
}

/**
 * Where the command line and the cluster primary connect on PostgreSQL: `DATABASE_DIRECT_URL`
 * when set (then `DATABASE_URL` is a transaction-mode pooler, which cannot hold their sessions:
 * migrations' locks, a transfer's named statements, `pg_dump`), else `DATABASE_URL`.
 */
function sessionUrl(config: Pick<DatabaseSettings, 'DATABASE_URL' | 'DATABASE_DIRECT_URL'>): string {
  return config.DATABASE_DIRECT_URL ?? config.DATABASE_URL
}

/** Where a postgres:// URL points (`host:port/database`), without its user or password, for the log. */
function serverOf(url: string): string {
  try {
    const { host, pathname } = new URL(url)
    return `${host}${pathname}`
  } catch {
    return 'an unparsable URL'
  }
}

/**
 * Opens the {@link Database} that `DATABASE_URL` names and brings its schema up to date; it keeps
 * the change log's retention while open.
 *
 * @param config `DATABASE_URL`, the change log's retention (seconds, rows), and for PostgreSQL
 *   the pool size and the start-up retry time (seconds).
 * @param onRetry told of each start-up retry while PostgreSQL is unreachable.
 * @param onConnectionError told when a pooled PostgreSQL connection fails between requests
 *   (already discarded; the next query reconnects).
 * @param onWriteHealth told when writes start failing (the error: a full disk, a read-only or
 *   removed database) and when they work again (undefined).
 * @param onWarning told of a setting that weakens a guarantee (PostgreSQL behind a pooler without
 *   the statement bound).
 * @throws when the storage cannot be opened (after the retry time) or migrated.
 */
export async function openDatabase(
  config: DatabaseSettings & ChangeLogSettings,
  onRetry?: RetryListener,
  onConnectionError?: (error: unknown) => void,
  onWriteHealth?: (failure: Error | undefined) => void,
  onWarning?: (message: string) => void
): Promise<Database> {
  const retention = { maxAgeSeconds: config.CHANGE_LOG_MAX_AGE, maxRows: config.CHANGE_LOG_MAX_ROWS }
  if (engineOf(config.DATABASE_URL) === 'sqlite') return SqliteDatabase.open(config.DATABASE_URL, { retention, onWriteHealth })
  const { PostgresDatabase } = await import('./postgres/postgres-database.js')
  return PostgresDatabase.open(config.DATABASE_URL, {
    ...postgresOptions(config, onRetry),
    directUrl: config.DATABASE_DIRECT_URL,
    namedStatements: config.DATABASE_NAMED_STATEMENTS,
    replicaUrls: replicaUrls(config.DATABASE_REPLICA_URLS),
    onReplicaFallback: (url, error) => onWarning?.(`a read replica failed a read, answered by the primary instead (${serverOf(url)}): ${(error as Error).message}`),
    onConnectionError,
    onWarning,
    retention,
    onWriteHealth
  })
}

/** The accounts and their API tokens of a database opened for them alone, and how to close it. */
export interface OpenedAccounts {
  accounts: AccountStore
  apiTokens: ApiTokenStore
  close(): Promise<void>
}

/**
 * Opens the accounts and their API tokens of the database `DATABASE_URL` names, schema brought up
 * to date, without the rest of the database (no SQLite writer thread): `book-service user` and
 * `book-service api-token`.
 *
 * @throws when the storage cannot be opened or migrated.
 */
export async function openAccounts(config: DatabaseSettings, onRetry?: RetryListener): Promise<OpenedAccounts> {
  if (engineOf(config.DATABASE_URL) === 'sqlite') {
    const db = await openMigrated(config.DATABASE_URL)
    return {
      accounts: sqliteAccountStore(db),
      apiTokens: sqliteApiTokenStore(db),
      close: async () => {
        db.close()
      }
    }
  }
  const { openPool, QUERY_TIMEOUT_MS } = await import('./postgres/postgres-connection.js')
  const { postgresAccountStore } = await import('./postgres/postgres-account-store.js')
  const { postgresApiTokenStore } = await import('./postgres/postgres-api-token-store.js')
  const pool = await openPool(sessionUrl(config), postgresOptions(config, onRetry))
  return { accounts: postgresAccountStore(pool, QUERY_TIMEOUT_MS), apiTokens: postgresApiTokenStore(pool, QUERY_TIMEOUT_MS), close: () => pool.end() }
}

/**
 * Brings the schema of the database `DATABASE_URL` names up to date (creating a missing SQLite
 * file), then closes it: `book-service migrate`. While PostgreSQL is unreachable it retries as
 * start-up does.
 *
 * @throws when the storage cannot be opened or a migration fails.
 */
export async function migrateDatabase(config: DatabaseSettings, onRetry?: RetryListener): Promise<void> {
  if (engineOf(config.DATABASE_URL) === 'sqlite') {
    const db = await openMigrated(config.DATABASE_URL)
    db.close()
    return
  }
  const { openPool } = await import('./postgres/postgres-connection.js')
  await (await openPool(sessionUrl(config), postgresOptions(config, onRetry))).end()
}

/**
 * Opens a {@link BookTransfer} on the database `DATABASE_URL` names, on a connection of its own.
 * For `export` (`migrate` false) it creates and migrates nothing: the SQLite file must exist. For
 * `import` (`migrate` true) it first brings the schema up to date, creating a missing SQLite file,
 * and retries while PostgreSQL is unreachable as start-up does.
 *
 * @throws when the database cannot be opened (or reached) or a migration fails.
 */
export async function openTransfer(config: DatabaseSettings, options: { migrate: boolean; onRetry?: RetryListener }): Promise<BookTransfer> {
  const url = config.DATABASE_URL
  if (engineOf(url) === 'sqlite') return options.migrate ? SqliteBookTransfer.openMigrated(url) : SqliteBookTransfer.open(url)
  const { PostgresBookTransfer } = await import('./postgres/postgres-book-transfer.js')
  const direct = sessionUrl(config)
  return options.migrate ? PostgresBookTransfer.openMigrated(direct, postgresOptions(config, options.onRetry)) : PostgresBookTransfer.open(direct)
}

/** The webhooks of a database opened for them alone, the change log's head, and how to close it. */
export interface OpenedWebhooks {
  webhooks: WebhookStore
  /** The highest change-log number committed so far: a new endpoint's `seq`. */
  lastSeq(): Promise<number>
  close(): Promise<void>
}

/**
 * Opens the webhook endpoints of the database `DATABASE_URL` names, schema brought up to date,
 * without the rest of the database: `book-service webhooks`.
 *
 * @throws when the storage cannot be opened or migrated.
 */
export async function openWebhooks(config: DatabaseSettings, onRetry?: RetryListener): Promise<OpenedWebhooks> {
  if (engineOf(config.DATABASE_URL) === 'sqlite') {
    const db = await openMigrated(config.DATABASE_URL)
    const horizon = db.prepare<[], HorizonRow>(changeLogStatements('sqlite').horizon)
    return {
      webhooks: sqliteWebhookStore(db),
      lastSeq: async () => Number(horizon.get()!.last_seq),
      close: async () => {
        db.close()
      }
    }
  }
  const { openPool, QUERY_TIMEOUT_MS } = await import('./postgres/postgres-connection.js')
  const { postgresWebhookStore } = await import('./postgres/postgres-webhook-store.js')
  const pool = await openPool(sessionUrl(config), postgresOptions(config, onRetry))
  return {
    webhooks: postgresWebhookStore(pool, QUERY_TIMEOUT_MS),
    lastSeq: async () => Number((await pool.query<HorizonRow>(changeLogStatements('postgres').horizon)).rows[0]!.last_seq),
    close: () => pool.end()
  }
}

/**
 * `book-service backup FILE` on the database `DATABASE_URL` names (docs/data.md "Backups and
 * moving data"): on SQLite a consistent snapshot written while a service may be running
 * (`backupSqlite`, sqlite/sqlite-backup.ts); on PostgreSQL a run of `pg_dump --format=custom`
 * (`backupPostgres`, postgres/postgres-backup.ts). Either is written under a temporary name and
 * moved into place once complete.
 *
 * @returns the snapshot's book count (SQLite), or how pg_dump ended (PostgreSQL).
 * @throws {BackupError} when there is no SQLite database or its snapshot fails its checks; the
 *   file system's error when a finished backup cannot be moved into place.
 */
export async function backupDatabase(config: Pick<DatabaseSettings, 'DATABASE_URL' | 'DATABASE_DIRECT_URL'>, file: string): Promise<BackupOutcome> {
  const url = config.DATABASE_URL
  if (engineOf(url) === 'sqlite') {
    const { backupSqlite } = await import('./sqlite/sqlite-backup.js')
    return { engine: 'sqlite', books: await backupSqlite(url, file) }
  }
  const { backupPostgres } = await import('./postgres/postgres-backup.js')
  return { engine: 'postgres', pgDump: await backupPostgres(sessionUrl(config), file) }
}

/**
 * `book-service restore FILE` (SQLite; docs/data.md "Backups and moving data"): replaces the
 * database `DATABASE_URL` names with the backup `file` (`restoreSqlite`, sqlite/sqlite-backup.ts:
 * integrity and migrations checked first, refused while a service holds the database, the old
 * file kept beside it).
 *
 * @returns the books restored and where the replaced database is kept.
 * @throws {BackupError} when the backup is unusable, a service holds the database, or the
 *   database is PostgreSQL's (restored with pg_restore).
 */
export async function restoreDatabase(config: Pick<DatabaseSettings, 'DATABASE_URL'>, file: string): Promise<RestoredBackup> {
  const url = config.DATABASE_URL
  if (engineOf(url) !== 'sqlite') throw new BackupError('a PostgreSQL database is restored with pg_restore')
  const { restoreSqlite } = await import('./sqlite/sqlite-backup.js')
  return restoreSqlite(url, file)
}
