import { Kysely, PostgresDialect } from 'kysely'
import pg from 'pg'
import type { Book, BookInput, BookPatch } from '../schemas/book.js'
import { LIST_PAGE_SIZE, StorageUnavailableError, type BookStore } from './book-store.js'
import { migrateToLatest } from './migrations.js'

const INT8_OID = 20
const COLUMNS = 'id, title, author, year'

/** Parses BIGINT ids as numbers: ids are at most 2^53-1 (decisions: "Ids"). */
const types = {
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

/** True when `error` says the database is unreachable (as opposed to a bug or a bad query). */
export function isUnreachable(error: unknown): boolean {
  const { code, message } = error as { code?: string; message?: string }
  if (code && (UNREACHABLE_CODES.has(code) || code.startsWith('08'))) return true
  return /Connection terminated|timeout exceeded when trying to connect|connect ECONNREFUSED/i.test(message ?? '')
}

/** Options of {@link PostgresBookStore.open}. */
export interface PostgresOptions {
  /** Most connections the pool opens. */
  poolSize: number
  /** How long start-up keeps retrying an unreachable database before giving up, in milliseconds. */
  startupTimeoutMs: number
  /** Called before each start-up retry, with the error and the delay before the next try (ms). */
  onRetry?: (error: unknown, delayMs: number) => void
}

/**
 * The PostgreSQL {@link BookStore} (node-postgres pool, parameterised named statements).
 * Ids come from a `BIGINT GENERATED ALWAYS AS IDENTITY` column, so they ascend and are never
 * reused. Each write is one statement, so it is atomic and durable once PostgreSQL commits it;
 * a partial update is a single `UPDATE … SET col = COALESCE($n, col)`, so concurrent updates of
 * different fields all survive, and an update racing a delete never resurrects the row.
 */
export class PostgresBookStore implements BookStore {
  private constructor(private readonly pool: pg.Pool) {}

  /**
   * Connects to `url` and applies pending migrations (under Kysely's advisory lock, so several
   * instances may start at once). While the database is unreachable it retries with exponential
   * backoff (0.25 s doubling to 5 s) for up to `startupTimeoutMs`.
   *
   * @throws the last connection error once the time is up, or a migration error at once.
   */
  static async open(url: string, options: PostgresOptions): Promise<PostgresBookStore> {
    const pool = new pg.Pool({ connectionString: url, max: options.poolSize, connectionTimeoutMillis: 5000, types })
    // An idle client losing its connection must not crash the process; the next query reconnects.
    pool.on('error', () => {})
    const deadline = Date.now() + options.startupTimeoutMs
    for (let delay = 250; ; delay = Math.min(delay * 2, 5000)) {
      try {
        await migrateToLatest(new Kysely<unknown>({ dialect: new PostgresDialect({ pool }) }), 'postgres')
        return new PostgresBookStore(pool)
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

  async create(input: BookInput): Promise<Book> {
    const rows = await this.query<Book>(
      'book-insert',
      `INSERT INTO books (title, author, year) VALUES ($1, $2, $3) RETURNING ${COLUMNS}`,
      [input.title, input.author, input.year]
    )
    return rows[0]!
  }

  async *list(): AsyncIterable<Book> {
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

  async get(id: number): Promise<Book | undefined> {
    const rows = await this.query<Book>('book-get', `SELECT ${COLUMNS} FROM books WHERE id = $1`, [id])
    return rows[0]
  }

  async update(id: number, patch: BookPatch): Promise<Book | undefined> {
    const rows = await this.query<Book>(
      'book-update',
      `UPDATE books SET title = COALESCE($1, title), author = COALESCE($2, author), year = COALESCE($3, year)
       WHERE id = $4 RETURNING ${COLUMNS}`,
      [patch.title ?? null, patch.author ?? null, patch.year ?? null, id]
    )
    return rows[0]
  }

  async delete(id: number): Promise<boolean> {
    const rows = await this.query<{ id: number }>('book-delete', 'DELETE FROM books WHERE id = $1 RETURNING id', [id])
    return rows.length > 0
  }

  async ping(): Promise<void> {
    await this.query('ping', 'SELECT 1', [])
  }

  async close(): Promise<void> {
    await this.pool.end()
  }

  /** Runs one named (prepared per connection) statement; unreachable-database errors become 503s. */
  private async query<Row extends pg.QueryResultRow>(name: string, text: string, values: unknown[]): Promise<Row[]> {
    try {
      return (await this.pool.query<Row>({ name, text, values })).rows
    } catch (error) {
      if (isUnreachable(error)) throw new StorageUnavailableError('PostgreSQL is unreachable', { cause: error })
      throw error
    }
  }
}
