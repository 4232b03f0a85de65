import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import type { Book, BookInput, BookPatch } from '../schemas/book.js'
import {
  LIST_PAGE_SIZE,
  StorageUnavailableError,
  type BookFilter,
  type BookQuery,
  type BookStore,
  type VersionedBook
} from './book-store.js'
import { countStatement, listStatement } from './book-query-sql.js'
import { foldText } from './fold.js'
import { patchValues } from './patch-values.js'
import { migrateToLatest } from './migrations.js'
import { PostgresAccountStore } from './postgres-accounts.js'

const INT8_OID = 20
const COLUMNS = 'id, title, author, year'
const VERSIONED = `${COLUMNS}, version`

/** The SET clause of every update ($1..$5 = {@link patchValues}): absent fields keep; the version goes up. */
const SET_PATCH = `title = COALESCE($1, title), title_folded = COALESCE($2, title_folded),
  author = COALESCE($3, author), author_folded = COALESCE($4, author_folded),
  year = COALESCE($5, year), version = version + 1`


/** Parses BIGINT ids as numbers: ids are at most 2^53-1 (decisions: "Ids"). */
export const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser
}

/** Node and PostgreSQL error codes that mean "the database cannot be reached right now". */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN',
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now
  '53300' // too_many_connections
])

/**
 * node-postgres errors without a code that mean the connection is gone or never came: the socket
 * closed ("Connection terminated unexpectedly"), the connect or pool-wait timeout, a client whose
 * connection already failed, and the per-query read timeout.
 */
const UNREACHABLE_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|connect ECONNREFUSED|not queryable|Query read timeout/i

/** True when `error` says the database is unreachable (as opposed to a bug or a bad query). */
export function isUnreachable(error: unknown): boolean {
  const { code, message } = error as { code?: string; message?: string }
  if (code && (UNREACHABLE_CODES.has(code) || code.startsWith('08'))) return true
  return UNREACHABLE_MESSAGES.test(message ?? '')
}

/** A create waiting for its group insert. */
interface PendingCreate {
  input: BookInput
  resolve: (book: Book) => void
  reject: (error: unknown) => void
}

/** Options of {@link PostgresBookStore.open}. */
export interface PostgresOptions {
  /** Most connections the pool opens. */
  poolSize: number
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
}

/** Default {@link PostgresOptions.connectTimeoutMs}: 5 s (node-postgres' own default is to wait forever). */
export const CONNECT_TIMEOUT_MS = 5000
/** Default {@link PostgresOptions.queryTimeoutMs}: 10 s (node-postgres' own default is to wait forever). */
export const QUERY_TIMEOUT_MS = 10_000

/**
 * The PostgreSQL {@link BookStore} (node-postgres pool, parameterised named statements).
 * Ids come from a `BIGINT GENERATED ALWAYS AS IDENTITY` column, so they ascend and are never
 * reused. Each write is one statement, so it is atomic and durable once PostgreSQL commits it;
 * a partial update is a single `UPDATE … SET col = COALESCE($n, col)`, so concurrent updates of
 * different fields all survive, and an update racing a delete never resurrects the row.
 */
export class PostgresBookStore implements BookStore {
  private closed: Promise<void> | undefined
  readonly accounts: PostgresAccountStore
  /** Creates waiting for the next group insert (see {@link create}). */
  private pendingCreates: PendingCreate[] = []

  private constructor(
    private readonly pool: pg.Pool,
    private readonly queryTimeoutMs: number
  ) {
    this.accounts = new PostgresAccountStore(pool, queryTimeoutMs)
  }

  /**
   * Connects to `url` and applies pending migrations (under Kysely's advisory lock, so several
   * instances may start at once). While the database is unreachable it retries with exponential
   * backoff (0.25 s doubling to 5 s) for up to `startupTimeoutMs`.
   *
   * @throws the last connection error once the time is up, or a migration error at once.
   */
  static async open(url: string, options: PostgresOptions): Promise<PostgresBookStore> {
    const pool = new pg.Pool({
      connectionString: url, // ssl, sslmode, application_name, options… in the URL pass through and win
      application_name: 'book-service',
      max: options.poolSize,
      connectionTimeoutMillis: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
      keepAlive: true, // TCP keep-alive, so a dead peer is noticed on an idle connection too
      types
    })
    // A connection that fails while idle in the pool is discarded by the pool, which then emits
    // 'error': without a listener that would crash the process. Log it and go on.
    pool.on('error', (error) => options.onConnectionError?.(error))
    // While a client is checked out (Kysely holds one for the whole migration) the pool does not
    // listen for its errors; this listener keeps a connection lost mid-migration from crashing
    // the process: the pending query rejects instead, and the pool discards the client on release.
    pool.on('connect', (client) => client.on('error', () => {}))
    const deadline = Date.now() + options.startupTimeoutMs
    for (let delay = 250; ; delay = Math.min(delay * 2, 5000)) {
      try {
        await migrateToLatest(new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) }), 'postgres')
        return new PostgresBookStore(pool, options.queryTimeoutMs ?? QUERY_TIMEOUT_MS)
      } catch (error) {
        if (!isUnreachable(error) || Date.now() + delay > deadline) {
          await pool.end()
          throw error
        }
        options.onRetry?.(error, delay)
        await new Promise((resolve) => setTimeout(resolve, delay))
      }
    }
  }

  /**
   * Group insert: the creates that arrive in one event-loop turn are stored by one multi-row
   * `INSERT … SELECT FROM unnest(…) RETURNING` (one statement, one commit, one WAL flush), and
   * each resolves only once that statement has committed. Ids are drawn in the batch's order.
   * When the batch fails for another reason than an unreachable database, each of its books is
   * inserted alone, so one failing row fails only its own request.
   */
  create(input: BookInput): Promise<Book> {
    return new Promise<Book>((resolve, reject) => {
      if (this.pendingCreates.length === 0) setImmediate(() => void this.insertPending())
      this.pendingCreates.push({ input, resolve, reject })
    })
  }

  /** Inserts the creates gathered so far as one statement and settles each of them. */
  private async insertPending(): Promise<void> {
    const batch = this.pendingCreates
    this.pendingCreates = []
    try {
      const books = await this.insertBooks(batch.map((pending) => pending.input))
      batch.forEach((pending, index) => pending.resolve(books[index]!))
    } catch (error) {
      if (batch.length === 1 || error instanceof StorageUnavailableError) {
        for (const pending of batch) pending.reject(error)
        return
      }
      await Promise.all(batch.map((pending) =>
        this.insertBooks([pending.input]).then(([book]) => pending.resolve(book!), pending.reject)))
    }
  }

  /**
   * Inserts `inputs` in one statement and returns the stored books in the same order: ids come
   * from the identity sequence in row order (`ORDER BY n`), so the i-th smallest id returned is
   * the i-th input's.
   */
  private async insertBooks(inputs: BookInput[]): Promise<Book[]> {
    const rows = await this.query<Book>(
      'book-insert-many',
      `INSERT INTO books (title, author, year, title_folded, author_folded)
       SELECT title, author, year, title_folded, author_folded
       FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[])
         WITH ORDINALITY AS batch(title, author, year, title_folded, author_folded, n)
       ORDER BY n
       RETURNING ${COLUMNS}`,
      [
        inputs.map((input) => input.title),
        inputs.map((input) => input.author),
        inputs.map((input) => input.year),
        inputs.map((input) => foldText(input.title)),
        inputs.map((input) => foldText(input.author))
      ]
    )
    return rows.sort((a, b) => a.id - b.id)
  }

  async *list(query?: BookQuery): AsyncIterable<Book> {
    if (query) {
      const { sql, parameters } = listStatement('postgres', query)
      yield* await this.query<Book>(undefined, sql, [...parameters])
      return
    }
    let after = 0
    for (;;) {
      const page = await this.query<Book>(
        'book-page',
        `SELECT ${COLUMNS} FROM books WHERE id > $1 ORDER BY id LIMIT $2`,
        [after, LIST_PAGE_SIZE]
      )
      yield* page
      if (page.length < LIST_PAGE_SIZE) return
      after = page[page.length - 1]!.id
    }
  }

  async count(filter: BookFilter): Promise<number> {
    const { sql, parameters } = countStatement('postgres', filter)
    const rows = await this.query<{ total: number }>(undefined, sql, [...parameters])
    return rows[0]!.total
  }

  async get(id: number): Promise<VersionedBook | undefined> {
    const rows = await this.query<VersionedBook>('book-get-versioned', `SELECT ${VERSIONED} FROM books WHERE id = $1`, [id])
    return rows[0]
  }

  async update(id: number, patch: BookPatch): Promise<VersionedBook | undefined> {
    const rows = await this.query<VersionedBook>(
      'book-update-versioned',
      `UPDATE books SET ${SET_PATCH} WHERE id = $6 RETURNING ${VERSIONED}`,
      [...patchValues(patch), id]
    )
    return rows[0]
  }

  /**
   * One `UPDATE … WHERE id = $6 AND version = $7`: PostgreSQL locks the row, and a concurrent
   * update that committed first makes the condition false, so exactly one of two racing
   * conditional updates of the same version succeeds.
   */
  async updateIfVersion(id: number, version: number, patch: BookPatch): Promise<VersionedBook | 'missing' | 'stale'> {
    const rows = await this.query<VersionedBook>(
      'book-update-if-version',
      `UPDATE books SET ${SET_PATCH} WHERE id = $6 AND version = $7 RETURNING ${VERSIONED}`,
      [...patchValues(patch), id, version]
    )
    return rows[0] ?? this.missingOrStale(id)
  }

  async deleteIfVersion(id: number, version: number): Promise<'deleted' | 'missing' | 'stale'> {
    const rows = await this.query<{ id: number }>(
      'book-delete-if-version',
      'DELETE FROM books WHERE id = $1 AND version = $2 RETURNING id',
      [id, version]
    )
    return rows.length > 0 ? 'deleted' : this.missingOrStale(id)
  }

  async delete(id: number): Promise<boolean> {
    const rows = await this.query<{ id: number }>('book-delete', 'DELETE FROM books WHERE id = $1 RETURNING id', [id])
    return rows.length > 0
  }

  async ping(): Promise<void> {
    await this.query('ping', 'SELECT 1', [])
  }

  /**
   * Drains the pool: waits for queries in flight, then closes every connection. Safe to call
   * more than once (node-postgres throws on a second `end()`).
   */
  async close(): Promise<void> {
    this.closed ??= this.pool.end()
    await this.closed
  }

  /** Why a conditional write changed nothing: the book is gone, or its version moved on. */
  private async missingOrStale(id: number): Promise<'missing' | 'stale'> {
    const rows = await this.query('book-exists', 'SELECT 1 FROM books WHERE id = $1', [id])
    return rows.length > 0 ? 'stale' : 'missing'
  }

  /**
   * Runs one statement, named (prepared per connection) when `name` is given; unreachable-database
   * errors become 503s.
   */
  private async query<Row extends pg.QueryResultRow>(name: string | undefined, text: string, values: unknown[]): Promise<Row[]> {
    try {
      // `query_timeout` per query is honoured by node-postgres but missing from @types/pg.
      const query: pg.QueryConfig & { query_timeout: number } = { name, text, values, query_timeout: this.queryTimeoutMs }
      return (await this.pool.query<Row>(query)).rows
    } catch (error) {
      if (isUnreachable(error)) throw new StorageUnavailableError('PostgreSQL is unreachable', { cause: error })
      throw error
    }
  }
}
