import type { AccountStore } from './account-store.js'
import type { ApiTokenStore } from './api-token-store.js'
import type { BookStore } from './book-store.js'
import type { ChangeLog } from './change-log.js'
import type { LoginAttempts } from './login-attempts.js'
import type { ReadReplicas } from './read-replicas.js'
import type { WebhookStore } from './webhook-store.js'

/**
 * One database the service runs on, whole: its books, accounts and their API tokens, change log,
 * login counters and webhooks, and its lifecycle (readiness, the storage's word on an error,
 * closing). Implemented by the SQLite database (embedded default: sqlite/sqlite-database.ts) and
 * the PostgreSQL one (postgres/postgres-database.ts); `openDatabase` (storage/open.ts) picks one from `DATABASE_URL`.
 *
 * Every part rejects with {@link StorageUnavailableError} when the storage cannot be reached; any
 * other rejection is an unexpected failure.
 */
export interface Database {
  /** The books (docs/api.md). */
  readonly books: BookStore
  /** The accounts (docs/accounts.md). */
  readonly accounts: AccountStore
  /** The accounts' API tokens (docs/api-tokens.md). */
  readonly apiTokens: ApiTokenStore
  /**
   * The change log (src/storage/contracts/change-log.ts, docs/change-feed.md "Change log"): a row
   * per committed create, update and delete, by any process or instance on the database.
   */
  readonly changes: ChangeLog
  /** The login limits' counters (shared by every process on the database). */
  readonly loginAttempts: LoginAttempts
  /** The webhook endpoints, their deliveries and the dispatcher's lease (docs/webhooks.md). */
  readonly webhooks: WebhookStore
  /**
   * Where book reads go when the database has read replicas (PostgreSQL with
   * `DATABASE_REPLICA_URLS`: ./read-replicas.ts); undefined when every read goes to {@link books}.
   */
  readonly readReplicas?: ReadReplicas | undefined
  /** Resolves when the storage answers a trivial query (readiness); rejects otherwise. */
  ping(): Promise<void>
  /**
   * The storage's word on an error a request met (the error handler asks): a
   * {@link StorageUnavailableError} (503) when it means the storage cannot serve at all (SQLite:
   * a damaged database file, which also makes {@link ping} fail from then on), else undefined.
   */
  unavailableFor?(error: unknown): StorageUnavailableError | undefined
  /** Finishes pending writes and releases the storage (files, connections). */
  close(): Promise<void>
}

/**
 * The storage cannot serve this right now; answered 503 `Service unavailable`, with `Retry-After`
 * when `retryAfterSeconds` is given (a query stopped at the service's bound: docs/contract.md "Search").
 */
export class StorageUnavailableError extends Error {
  override name = 'StorageUnavailableError'
  /** Whole seconds a client should wait before asking again (`Retry-After`), when known. */
  readonly retryAfterSeconds: number | undefined

  constructor(message: string, options?: ErrorOptions & { retryAfterSeconds?: number }) {
    super(message, options)
    this.retryAfterSeconds = options?.retryAfterSeconds
  }
}
