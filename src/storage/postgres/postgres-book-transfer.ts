import pg from 'pg'
import type { Book } from '../../book/schema.js'
import { insertValues } from '../sql/book-statements.js'
import type { Search } from '../../book/search.js'
import { searchStatement } from '../sql/list.js'
import { searchList, type ReadCandidates } from '../sql/search-results.js'
import { inPages, noteConflict, storeInOneTransaction, type BookTransfer, type ImportRow, type StoreOutcome } from '../contracts/book-transfer.js'
import { pagesById } from '../sql/list-pages.js'
import type { ChangeContext } from '../contracts/change-log.js'
import { contextObject } from '../sql/change-log-statements.js'
import { openPool, types, type PostgresOptions } from './postgres-connection.js'
import { STATEMENTS, columnArrays } from './postgres-statements.js'

/** How the command line's connections name themselves to the server (`pg_stat_activity`). */
const APPLICATION_NAME = 'book-service-cli'

/**
 * {@link BookTransfer} on PostgreSQL, through one connection of its own: an export is one
 * `REPEATABLE READ READ ONLY` transaction (one snapshot), an import one transaction of
 * multi-row `INSERT … SELECT FROM unnest(…)` statements, one per batch.
 */
export class PostgresBookTransfer implements BookTransfer {
  /** @param release ends the connection (or gives it back and ends its pool). */
  private constructor(
    private readonly client: pg.ClientBase,
    private readonly release: () => Promise<void>
  ) {}

  /**
   * Connects to `url` (the schema must be migrated already: `export`).
   *
   * @throws when the database cannot be reached.
   */
  static async open(url: string): Promise<PostgresBookTransfer> {
    const client = new pg.Client({ connectionString: url, application_name: APPLICATION_NAME, types })
    await client.connect()
    return new PostgresBookTransfer(client, () => client.end())
  }

  /**
   * Connects to `url` and applies pending migrations first (`import`), retrying while the
   * database is unreachable as start-up does (postgres-connection.ts: `openPool`, with one connection).
   *
   * @throws the last connection error once the start-up time is up, or a migration error at once.
   */
  static async openMigrated(url: string, options: Pick<PostgresOptions, 'startupTimeoutMs' | 'onRetry'>): Promise<PostgresBookTransfer> {
    const pool = await openPool(url, { ...options, poolSize: 1, applicationName: APPLICATION_NAME })
    try {
      const client = await pool.connect()
      return new PostgresBookTransfer(client, async () => {
        client.release()
        await pool.end()
      })
    } catch (error) {
      await pool.end()
      throw error
    }
  }

  async *pages(): AsyncIterable<Book[]> {
    await this.client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
    try {
      const readPage = async (after: number, size: number) =>
        (await this.client.query<Book>({ ...STATEMENTS.page, values: [after, size] })).rows
      for await (const page of pagesById(readPage)) if (page.length > 0) yield page
    } finally {
      await this.client.query('COMMIT')
    }
  }

  async *searchPages(search: Search): AsyncIterable<Book[]> {
    await this.client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
    try {
      const read: ReadCandidates = async (pieces, afterId, size) => {
        const { sql, parameters } = await searchStatement('postgres', { search }, pieces, afterId, size)
        return (await this.client.query<Book>({ text: sql, values: [...parameters] })).rows
      }
      yield* inPages(await searchList({ search }, search, read))
    } finally {
      await this.client.query('COMMIT')
    }
  }

  store(batches: AsyncIterable<ImportRow[]>, options: { keepIds: boolean; maxId: number }, context: ChangeContext): Promise<StoreOutcome> {
    const client = this.client
    return storeInOneTransaction(
      {
        begin: async () => {
          await client.query('BEGIN')
          await client.query({ ...STATEMENTS.setContext, values: [JSON.stringify(contextObject(context))] })
          if (options.keepIds && options.maxId > 0) {
            // First, so that services creating books meanwhile take ids past the file's. A sequence
            // is not transactional: after a refused import it stays moved (ids are never reused anyway).
            await client.query({ ...STATEMENTS.moveIdSequence, values: [options.maxId] })
          }
        },
        storeBatch: async (batch, outcome) => {
          const columns = columnArrays(batch.map(({ row }) => insertValues(row)))
          if (!options.keepIds) {
            // WITH ORDINALITY … ORDER BY: ids are drawn in file order.
            await client.query({ ...STATEMENTS.importMany, values: columns })
            return
          }
          const { rows } = await client.query<{ id: number }>({
            ...STATEMENTS.importManyKeepingIds,
            values: [batch.map(({ row }) => row.id), ...columns]
          })
          const stored = new Set(rows.map((row) => row.id))
          for (const { line, row } of batch) {
            // A stored id counts once: a repeat of it in the same batch is a conflict too.
            if (!stored.delete(row.id!)) noteConflict(outcome, { line, id: row.id! })
          }
        },
        commit: async () => {
          await client.query('COMMIT')
        },
        rollback: async () => {
          await client.query('ROLLBACK')
        }
      },
      batches
    )
  }

  async close(): Promise<void> {
    await this.release()
  }
}
